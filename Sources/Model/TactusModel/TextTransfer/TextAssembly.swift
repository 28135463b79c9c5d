import TactusEngine
/// A text being received in pieces: its identity (length and `TextHash`,
/// which every piece carries) and the bytes from its start received so far.
///
/// A piece is taken only when it continues what was received (its offset is
/// `received`, it stays inside the text): a duplicate, a piece out of order
/// or one after a lost piece is passed over, and the sender is asked again
/// from `received`. `text` is given only once every byte is there and the
/// whole hashes to the identity the pieces named: a text is never made of
/// the pieces of two. Off the audio thread (the editor's UI thread); O(piece).
public struct TextAssembly: Sendable {
    public let length: Int
    public let hash: UInt64
    public private(set) var bytes: [UInt8] = []

    /// An empty assembly of the text with this identity (`length` >= 0).
    public init(length: Int, hash: UInt64) {
        self.length = max(length, 0)
        self.hash = hash
        bytes.reserveCapacity(self.length)
    }

    /// Bytes received from the start.
    public var received: Int { bytes.count }

    public var isComplete: Bool { bytes.count == length }

    /// Whether a piece of the text with this identity belongs here.
    public func isSame(length: Int, hash: UInt64) -> Bool { length == self.length && hash == self.hash }

    /// Takes the piece at `offset` when it continues what was received; false
    /// (nothing taken) otherwise.
    @discardableResult
    public mutating func add(offset: Int, _ piece: UnsafeRawBufferPointer) -> Bool {
        guard offset == bytes.count, piece.count <= length - bytes.count, !piece.isEmpty else { return false }
        bytes.append(contentsOf: piece)
        return true
    }

    /// The whole text, once every byte is there and it is the text named;
    /// nil before, or when the bytes do not hash to the identity (the caller
    /// then starts again).
    public var text: [UInt8]? {
        guard isComplete, TextHash.of(bytes) == hash else { return nil }
        return bytes
    }
}
