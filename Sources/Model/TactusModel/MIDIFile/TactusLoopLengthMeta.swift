import TactusEngine
/// The loop length a Tactus export stores in its file so that an import
/// gets the exact length back (docs/midi-files.md, M16): a sequencer-specific
/// meta event (`FF 7F`) whose data is the non-commercial manufacturer ID
/// `7D` followed by the ASCII `tactus-length N/D` (or `tactus-length N`).
/// Other programs skip it as they skip any sequencer-specific event.
public enum TactusLoopLengthMeta {
    private static var prefix: [UInt8] { Array("tactus-length ".utf8) }

    /// The event's data (after `FF 7F` and the length).
    public static func data(_ length: BeatRational) -> [UInt8] {
        var text = "\(length.numerator)"
        if length.denominator != 1 { text += "/\(length.denominator)" }
        return [0x7D] + prefix + Array(text.utf8)
    }

    /// The length stored in `data`, or nil when `data` is some other sequencer's event
    /// or not a positive length.
    public static func parse(_ data: UnsafeBufferPointer<UInt8>) -> BeatRational? {
        guard data.count > 1 + prefix.count, data.count <= 64, data[0] == 0x7D else { return nil }
        for i in 0..<prefix.count where data[1 + i] != prefix[i] { return nil }
        var numerator: Int64 = 0
        var denominator: Int64 = 0
        var seenSlash = false
        var digits = 0
        for byte in data[(1 + prefix.count)...] {
            if byte == 0x2F, !seenSlash, digits > 0 {
                seenSlash = true
                digits = 0
                continue
            }
            guard byte >= 0x30, byte <= 0x39, digits < 12 else { return nil }
            digits += 1
            let d = Int64(byte - 0x30)
            if seenSlash { denominator = denominator * 10 + d } else { numerator = numerator * 10 + d }
        }
        guard digits > 0 else { return nil }
        guard let value = BeatRational(numerator: numerator, denominator: seenSlash ? denominator : 1), value > .zero else { return nil }
        return value
    }
}
