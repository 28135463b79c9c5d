import CLilv

/// The buffer of one atom port: an LV2 atom sequence, 8-byte aligned,
/// allocated once and reused for every block.
///
/// Before `run()` the host writes an input port's events into it, or marks an
/// output port as free space (`atom:Chunk`, as the atom spec asks); after
/// `run()` it reads back what the plugin wrote. Thread: the host's; never
/// touched while the plugin's `run()` is using it. Appending is O(body size)
/// and does not allocate.
public final class AtomSequenceBuffer {
    public let capacity: Int
    public let base: UnsafeMutableRawPointer

    public init(capacity: Int) {
        self.capacity = capacity
        base = .allocate(byteCount: capacity, alignment: 8)
        base.initializeMemory(as: UInt8.self, repeating: 0, count: capacity)
    }

    deinit { base.deallocate() }

    private var atom: UnsafeMutablePointer<LV2_Atom> { base.assumingMemoryBound(to: LV2_Atom.self) }

    /// An output port before `run()`: all of the buffer is free space.
    public func prepareOutput(chunkType: LV2_URID) {
        atom.pointee.type = chunkType
        atom.pointee.size = UInt32(capacity - MemoryLayout<LV2_Atom>.size)
    }

    /// An input port before `run()`: an empty sequence, timed in frames.
    public func clearInput(sequenceType: LV2_URID) {
        atom.pointee.type = sequenceType
        atom.pointee.size = UInt32(MemoryLayout<LV2_Atom_Sequence_Body>.size)
        base.storeBytes(of: UInt64(0), toByteOffset: 8, as: UInt64.self)  // unit 0 (frames), pad
    }

    /// Appends an event to an input sequence; false when it does not fit.
    @discardableResult
    public func append(frames: Int64, type: LV2_URID, body: UnsafeRawBufferPointer) -> Bool {
        let used = MemoryLayout<LV2_Atom>.size + Int(atom.pointee.size)
        let bytes = (16 + body.count + 7) & ~7
        guard used + bytes <= capacity else { return false }
        let event = base + used
        event.storeBytes(of: frames, as: Int64.self)
        event.storeBytes(of: UInt32(body.count), toByteOffset: 8, as: UInt32.self)
        event.storeBytes(of: type, toByteOffset: 12, as: UInt32.self)
        (event + 16).initializeMemory(as: UInt8.self, repeating: 0, count: bytes - 16)
        if let source = body.baseAddress { (event + 16).copyMemory(from: source, byteCount: body.count) }
        atom.pointee.size += UInt32(bytes)
        return true
    }

    /// Appends an event to an input sequence; false when it does not fit.
    @discardableResult
    public func append(frames: Int64, type: LV2_URID, body: [UInt8]) -> Bool {
        body.withUnsafeBytes { append(frames: frames, type: type, body: $0) }
    }

    /// Calls `visit` with each event of a sequence the plugin wrote: its frame
    /// offset, type and body. A sequence of another type, or one claiming more
    /// than the buffer holds, has no events; a truncated last event is skipped.
    public func forEachEvent(sequenceType: LV2_URID, _ visit: (Int64, LV2_URID, UnsafeRawBufferPointer) -> Void) {
        guard atom.pointee.type == sequenceType else { return }
        let size = Int(atom.pointee.size)
        guard size >= 8, 8 + size <= capacity else { return }
        let end = 8 + size
        var offset = 16  // the atom header and the sequence body header
        while offset + 16 <= end {
            let event = base + offset
            let frames = event.load(as: Int64.self)
            let bodySize = Int(event.load(fromByteOffset: 8, as: UInt32.self))
            let type = event.load(fromByteOffset: 12, as: UInt32.self)
            guard offset + 16 + bodySize <= end else { break }
            visit(frames, type, UnsafeRawBufferPointer(start: event + 16, count: bodySize))
            offset += (16 + bodySize + 7) & ~7
        }
    }

    /// The events of a sequence the plugin wrote, copied out.
    public func events(sequenceType: LV2_URID) -> [(frames: Int64, type: LV2_URID, body: [UInt8])] {
        var result: [(frames: Int64, type: LV2_URID, body: [UInt8])] = []
        forEachEvent(sequenceType: sequenceType) { result.append(($0, $1, Array($2))) }
        return result
    }
}
