import CLV2

/// The atom sequence a host writes into a plugin's input port before `run()`.
///
/// The buffer is allocated once; `clear()` starts a new block's sequence and
/// `append` adds events in the order given, with whatever frames, types and
/// bodies the caller wants, well formed or not: the declared sizes can be set
/// to lie (`setDeclaredSize`), which is how fuzzers and tests send truncated
/// bodies. Nothing is ever written outside the buffer, so whatever the
/// sequence claims, the memory the plugin may read is the buffer's.
public final class ControlSequence: @unchecked Sendable {
    /// The port buffer (`LV2_Atom_Sequence`), 8-byte aligned.
    public let buffer: UnsafeMutableRawPointer
    /// Bytes in the buffer, header included.
    public let capacity: Int
    private let sequenceType: LV2_URID
    /// Bytes of events written after the 16-byte header.
    public private(set) var eventBytes = 0

    public init(capacity: Int, sequenceType: LV2_URID) {
        self.capacity = max(capacity, 16)
        self.sequenceType = sequenceType
        buffer = .allocate(byteCount: self.capacity, alignment: 8)
        buffer.initializeMemory(as: UInt8.self, repeating: 0, count: self.capacity)
        clear()
    }

    deinit { buffer.deallocate() }

    /// An empty sequence.
    public func clear() {
        eventBytes = 0
        buffer.storeBytes(of: UInt32(8), as: UInt32.self)  // atom.size: the sequence body header
        buffer.storeBytes(of: sequenceType, toByteOffset: 4, as: UInt32.self)
        buffer.storeBytes(of: UInt32(0), toByteOffset: 8, as: UInt32.self)  // unit
        buffer.storeBytes(of: UInt32(0), toByteOffset: 12, as: UInt32.self)  // pad
    }

    /// Room left for event bytes.
    public var room: Int { capacity - 16 - eventBytes }

    /// Appends an event whose atom declares `declaredSize` (the body's real size
    /// when nil); the body is copied as given and padded to 8 bytes. False, and
    /// nothing written, when it does not fit the buffer.
    @discardableResult
    public func append(frames: Int64, type: LV2_URID, body: [UInt8], declaredSize: UInt32? = nil) -> Bool {
        let bytes = (16 + body.count + 7) & ~7
        guard bytes <= room else { return false }
        let event = buffer + 16 + eventBytes
        event.storeBytes(of: frames, as: Int64.self)
        event.storeBytes(of: declaredSize ?? UInt32(body.count), toByteOffset: 8, as: UInt32.self)
        event.storeBytes(of: type, toByteOffset: 12, as: UInt32.self)
        (event + 16).initializeMemory(as: UInt8.self, repeating: 0, count: bytes - 16)
        body.withUnsafeBytes { if let b = $0.baseAddress, body.count > 0 { (event + 16).copyMemory(from: b, byteCount: body.count) } }
        eventBytes += bytes
        setDeclaredSize(UInt32(8 + eventBytes))
        return true
    }

    /// Sets the sequence's `atom.size` (the body: 8 bytes of header, then
    /// events), clamped to what the buffer holds.
    public func setDeclaredSize(_ size: UInt32) {
        buffer.storeBytes(of: min(size, UInt32(capacity - 8)), as: UInt32.self)
    }

    /// Sets the sequence's `atom.type` (a host that sends something else).
    public func setType(_ type: LV2_URID) {
        buffer.storeBytes(of: type, toByteOffset: 4, as: UInt32.self)
    }
}
