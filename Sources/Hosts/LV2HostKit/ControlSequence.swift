import CLV2
import LV2Atoms

/// The atom sequence a host writes into a plugin's input port before `run()`.
///
/// The buffer is allocated once; `clear()` starts a new block's sequence and
/// `append` adds events in the order given, with whatever frames, types and
/// bodies the caller wants, well formed or not: the declared sizes can be set
/// to lie (`setDeclaredSize`), which is how fuzzers and tests send truncated
/// bodies. Nothing is ever written outside the buffer, so whatever the
/// sequence claims, the memory the plugin may read is the buffer's. The
/// events are laid out by the codec (`AtomSequenceWriter`).
public final class ControlSequence: @unchecked Sendable {
    /// The port buffer (`LV2_Atom_Sequence`), 8-byte aligned.
    public let buffer: UnsafeMutableRawPointer
    /// Bytes in the buffer, header included.
    public let capacity: Int
    private let sequenceType: LV2_URID
    private var writer: AtomSequenceWriter
    private var sequence: UnsafeMutablePointer<LV2_Atom_Sequence> { buffer.assumingMemoryBound(to: LV2_Atom_Sequence.self) }

    public init(capacity: Int, sequenceType: LV2_URID) {
        self.capacity = max(capacity, 16)
        self.sequenceType = sequenceType
        buffer = .allocate(byteCount: self.capacity, alignment: 8)
        buffer.initializeMemory(as: UInt8.self, repeating: 0, count: self.capacity)
        writer = AtomSequenceWriter(nil, sequenceType: sequenceType)
        clear()
    }

    deinit { buffer.deallocate() }

    /// An empty sequence.
    public func clear() {
        sequence.pointee.atom.size = UInt32(capacity - AtomLayout.atomHeaderBytes)  // what the writer may fill
        writer = AtomSequenceWriter(sequence, sequenceType: sequenceType)
    }

    /// Bytes of events written after the sequence's headers.
    public var eventBytes: Int { writer.eventBytes }

    /// Room left for event bytes.
    public var room: Int { writer.freeBytes }

    /// Appends an event whose atom declares `declaredSize` (the body's real size
    /// when nil); the body is copied as given and padded to 8 bytes. False, and
    /// nothing written, when it does not fit the buffer.
    @discardableResult
    public func append(frames: Int64, type: LV2_URID, body: [UInt8], declaredSize: UInt32? = nil) -> Bool {
        guard let event = writer.appendEvent(frames: frames, type: type, bodySize: body.count, declaredSize: declaredSize) else { return false }
        body.withUnsafeBytes { if let b = $0.baseAddress, body.count > 0 { event.copyMemory(from: b, byteCount: body.count) } }
        return true
    }

    /// Sets the sequence's `atom.size` (the body: 8 bytes of header, then
    /// events), clamped to what the buffer holds.
    public func setDeclaredSize(_ size: UInt32) {
        sequence.pointee.atom.size = min(size, UInt32(capacity - AtomLayout.atomHeaderBytes))
    }

    /// Sets the sequence's `atom.type` (a host that sends something else).
    public func setType(_ type: LV2_URID) {
        sequence.pointee.atom.type = type
    }
}
