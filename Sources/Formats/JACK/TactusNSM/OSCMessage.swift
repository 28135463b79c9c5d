/// One OSC 1.0 message (what NSM speaks over UDP): an address and its
/// arguments, encoded and decoded here, with no library.
///
/// Read: strings (`s`, and `S`), int32 (`i`) and float32 (`f`) as values;
/// blobs (`b`) by their size, skipped, the size checked against the packet;
/// the other standard tags of fixed size (`h`, `t`, `d`: 8 bytes; `c`, `r`,
/// `m`: 4; `T`, `F`, `N`, `I`: none) skipped as `.other`. A packet that ends
/// early, a string without its terminator, a size that runs past the end, a
/// bundle or an unknown type tag is refused with an `OSCDecodeError` that
/// says what was wrong and where, never a trap. Written: `s`, `i`, `f`.
///
/// Value type, any thread; encoding and decoding are O(packet size).
public struct OSCMessage: Equatable, Sendable {
    public var address: String
    public var arguments: [OSCArgument]

    public init(_ address: String, _ arguments: [OSCArgument] = []) {
        self.address = address
        self.arguments = arguments
    }

    /// The type tag string without its comma: `sss`, `sis`.
    public var typeTags: String { String(arguments.map(\.tag)) }

    /// The arguments as strings, if every one is a string and there are `count` of them.
    public func strings(_ count: Int) -> [String]? {
        guard arguments.count == count else { return nil }
        var out: [String] = []
        for argument in arguments {
            guard case .string(let s) = argument else { return nil }
            out.append(s)
        }
        return out
    }

    /// The packet: address, type tags, arguments, each padded to 4 bytes, big-endian.
    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        OSCMessage.appendString(address, to: &bytes)
        OSCMessage.appendString("," + typeTags, to: &bytes)
        for argument in arguments {
            switch argument {
            case .string(let s): OSCMessage.appendString(s, to: &bytes)
            case .int32(let v): OSCMessage.appendWord(UInt32(bitPattern: v), to: &bytes)
            case .float32(let v): OSCMessage.appendWord(v.bitPattern, to: &bytes)
            case .blob(let size):
                // Written as a blob of that many zero bytes (tests build packets with it).
                OSCMessage.appendWord(UInt32(size), to: &bytes)
                bytes += [UInt8](repeating: 0, count: (size + 3) & ~3)
            case .other: break
            }
        }
        return bytes
    }

    /// Reads one message; throws what was wrong (the packet is left alone).
    public static func decode(_ bytes: [UInt8]) throws(OSCDecodeError) -> OSCMessage {
        var reader = Reader(bytes: bytes)
        guard !bytes.isEmpty else { throw OSCDecodeError("an empty packet") }
        guard bytes.count % 4 == 0 else { throw OSCDecodeError("its size, \(bytes.count) bytes, is not a multiple of 4") }
        if bytes.starts(with: Array("#bundle".utf8)) { throw OSCDecodeError("an OSC bundle (NSM sends single messages)") }
        guard bytes[0] == UInt8(ascii: "/") else { throw OSCDecodeError("it does not start with an address ('/')") }
        let address = try reader.string(what: "the address")
        // OSC 1.0 allows a message without type tags (old senders); NSM's never omit them.
        guard reader.offset < bytes.count else { return OSCMessage(address) }
        guard bytes[reader.offset] == UInt8(ascii: ",") else { throw OSCDecodeError("\(address): no type tag string after the address") }
        let tags = try reader.string(what: "the type tag string").utf8.dropFirst()
        var arguments: [OSCArgument] = []
        for (index, tag) in tags.enumerated() {
            let what = "\(address): argument \(index + 1) ('\(Character(Unicode.Scalar(tag)))')"
            switch tag {
            case UInt8(ascii: "s"), UInt8(ascii: "S"): arguments.append(.string(try reader.string(what: what)))
            case UInt8(ascii: "i"): arguments.append(.int32(Int32(bitPattern: try reader.word(what: what))))
            case UInt8(ascii: "f"): arguments.append(.float32(Float(bitPattern: try reader.word(what: what))))
            case UInt8(ascii: "b"):
                let size = Int(try reader.word(what: what))
                try reader.skip((size + 3) & ~3, what: what + ", a blob of \(size) bytes")
                arguments.append(.blob(size))
            case UInt8(ascii: "h"), UInt8(ascii: "t"), UInt8(ascii: "d"):
                try reader.skip(8, what: what)
                arguments.append(.other(Character(Unicode.Scalar(tag))))
            case UInt8(ascii: "c"), UInt8(ascii: "r"), UInt8(ascii: "m"):
                try reader.skip(4, what: what)
                arguments.append(.other(Character(Unicode.Scalar(tag))))
            case UInt8(ascii: "T"), UInt8(ascii: "F"), UInt8(ascii: "N"), UInt8(ascii: "I"):
                arguments.append(.other(Character(Unicode.Scalar(tag))))
            default:
                throw OSCDecodeError("\(what): an unknown type tag, so the rest cannot be read")
            }
        }
        guard reader.offset == bytes.count else {
            throw OSCDecodeError("\(address): \(bytes.count - reader.offset) bytes after the last argument")
        }
        return OSCMessage(address, arguments)
    }

    private static func appendString(_ s: String, to bytes: inout [UInt8]) {
        bytes += s.utf8
        // At least one NUL, then up to a multiple of 4.
        bytes.append(0)
        while bytes.count % 4 != 0 { bytes.append(0) }
    }

    private static func appendWord(_ word: UInt32, to bytes: inout [UInt8]) {
        bytes += [UInt8(word >> 24), UInt8(word >> 16 & 0xFF), UInt8(word >> 8 & 0xFF), UInt8(word & 0xFF)]
    }

    /// Bounds-checked reads of a packet.
    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        mutating func string(what: String) throws(OSCDecodeError) -> String {
            guard let end = bytes[offset...].firstIndex(of: 0) else { throw OSCDecodeError("\(what): the string has no terminating NUL before the packet ends") }
            let text = String(decoding: bytes[offset..<end], as: UTF8.self)
            let next = (end + 4) & ~3
            guard next <= bytes.count else { throw OSCDecodeError("\(what): the string's padding runs past the packet's end") }
            offset = next
            return text
        }

        mutating func word(what: String) throws(OSCDecodeError) -> UInt32 {
            guard offset + 4 <= bytes.count else { throw OSCDecodeError("\(what): the packet ends before its 4 bytes") }
            let b = bytes[offset..<offset + 4].map(UInt32.init)
            offset += 4
            return b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3]
        }

        mutating func skip(_ count: Int, what: String) throws(OSCDecodeError) {
            guard count <= bytes.count - offset else { throw OSCDecodeError("\(what): the packet ends before its \(count) bytes") }
            offset += count
        }
    }
}

/// One argument of an `OSCMessage`.
public enum OSCArgument: Equatable, Sendable {
    case string(String)
    case int32(Int32)
    case float32(Float)
    /// A blob, skipped: its size in bytes.
    case blob(Int)
    /// A standard argument Tactus does not use (its tag), skipped.
    case other(Character)

    public var tag: Character {
        switch self {
        case .string: "s"
        case .int32: "i"
        case .float32: "f"
        case .blob: "b"
        case .other(let tag): tag
        }
    }
}

/// Why a packet is not an OSC message Tactus can read: `the string has no terminating NUL`.
public struct OSCDecodeError: Error, Equatable, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
