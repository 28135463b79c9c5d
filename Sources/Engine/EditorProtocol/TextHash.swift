/// The identity the plugin and its editor give a pattern text: FNV-1a, 64
/// bits, of its bytes, with its length beside it wherever it names a text.
///
/// A text that travels in pieces carries it, so that pieces of two texts are
/// never assembled into one, and a change names the text it was made on by
/// it. It is not a cryptographic hash: it tells apart the texts of one
/// session (two different texts of one length agree with odds of 2^-64), not
/// texts built to collide; what is installed is parsed and checked whatever
/// it is. O(n), no allocation, any thread.
public enum TextHash {
    static var offsetBasis: UInt64 { 0xcbf2_9ce4_8422_2325 }
    static var prime: UInt64 { 0x0000_0100_0000_01b3 }

    /// The hash of `bytes`.
    @_noLocks
    public static func of(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var h = offsetBasis
        for b in bytes {
            h ^= UInt64(b)
            h = h &* prime
        }
        return h
    }

    /// The hash of `bytes`.
    public static func of(_ bytes: [UInt8]) -> UInt64 {
        bytes.withUnsafeBytes { of($0) }
    }

    /// The hash as sixteen lower-case hexadecimal digits (how a change names it).
    public static func hex(_ hash: UInt64) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 16)
        for i in 0..<16 {
            let digit = UInt8((hash >> UInt64(60 - 4 * i)) & 0xF)
            out[i] = digit < 10 ? 48 + digit : 87 + digit
        }
        return out
    }

    /// The hash sixteen hexadecimal digits spell, or nil.
    public static func parseHex(_ digits: ArraySlice<UInt8>) -> UInt64? {
        guard digits.count == 16 else { return nil }
        var h: UInt64 = 0
        for c in digits {
            let v: UInt8
            switch c {
            case 48...57: v = c - 48
            case 97...102: v = c - 87
            case 65...70: v = c - 55
            default: return nil
            }
            h = h << 4 | UInt64(v)
        }
        return h
    }
}
