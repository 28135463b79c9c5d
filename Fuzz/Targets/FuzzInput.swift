/// The bytes of one fuzz input, read front to back as a program of choices.
///
/// Reading past the end yields zeros, so every input, however short, is a
/// complete program; `isExhausted` tells the generator when to stop. The
/// same bytes always give the same program (a crash replays exactly).
public struct FuzzInput {
    private let bytes: UnsafeRawBufferPointer
    private var position = 0

    public init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    public var isExhausted: Bool { position >= bytes.count }

    public mutating func byte() -> UInt8 {
        guard position < bytes.count else { return 0 }
        defer { position += 1 }
        return bytes[position]
    }

    public mutating func u16() -> UInt16 { UInt16(byte()) | UInt16(byte()) << 8 }
    public mutating func u32() -> UInt32 { UInt32(u16()) | UInt32(u16()) << 16 }
    public mutating func u64() -> UInt64 { UInt64(u32()) | UInt64(u32()) << 32 }

    /// A value in `0..<count` (`count` > 0).
    public mutating func below(_ count: Int) -> Int {
        count <= 256 ? Int(byte()) % count : Int(u32() % UInt32(count))
    }

    /// True with probability about `1/n`.
    public mutating func oneIn(_ n: Int) -> Bool { below(n) == 0 }

    /// One of `items`.
    public mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }

    /// Up to `limit` raw bytes (a length byte, then the bytes that remain).
    public mutating func bytes(upTo limit: Int) -> [UInt8] {
        let wanted = min(limit, Int(byte()) | (oneIn(8) ? Int(byte()) << 8 : 0))
        var out: [UInt8] = []
        out.reserveCapacity(wanted)
        while out.count < wanted, !isExhausted { out.append(byte()) }
        return out
    }

    /// The rest of the input.
    public mutating func rest() -> [UInt8] {
        defer { position = bytes.count }
        return position < bytes.count ? Array(bytes[position...]) : []
    }
}

/// Shuffles and other random choices read from the input too.
extension FuzzInput: RandomNumberGenerator {
    public mutating func next() -> UInt64 { u64() }
}

/// What a fuzz target found wrong with the plugin (or the parser) on one input.
public struct Violations: CustomStringConvertible {
    public private(set) var messages: [String] = []

    public init() {}

    public mutating func add(_ message: String) {
        if messages.count < 20 { messages.append(message.count > 2000 ? String(message.prefix(2000)) + "..." : message) }
    }

    public var isEmpty: Bool { messages.isEmpty }
    public var description: String { messages.joined(separator: "\n") }

    /// For the libFuzzer entry points: a violation is a crash (libFuzzer keeps the input).
    public func trapIfAny(_ target: StaticString) {
        guard !messages.isEmpty else { return }
        fatalError("\(target): \(description)")
    }
}
