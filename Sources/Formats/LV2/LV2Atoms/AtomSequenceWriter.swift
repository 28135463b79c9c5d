import CLV2

/// Appends events to an output atom sequence in a host's port buffer, the way
/// `lv2_atom_forge` does for the official examples, without leaving the
/// buffer's capacity. Realtime-safe: no allocation; the audio thread.
///
/// The host announces the capacity in the sequence's `atom.size` before
/// `run()`; the writer replaces it with the size written so far after every
/// event, so the sequence is always well formed.
public struct AtomSequenceWriter {
    @usableFromInline let sequence: UnsafeMutableRawPointer?
    /// Bytes available after the atom header (the sequence body).
    @usableFromInline let capacity: Int
    /// Bytes of the sequence body used.
    @usableFromInline var used = AtomLayout.sequenceHeaderBytes

    @inlinable @_noLocks
    public init(_ port: UnsafeMutablePointer<LV2_Atom_Sequence>?, sequenceType: LV2_URID) {
        guard let port else {
            sequence = nil
            capacity = 0
            return
        }
        let available = Int(port.pointee.atom.size)
        sequence = UnsafeMutableRawPointer(port)
        capacity = available
        guard available >= AtomLayout.sequenceHeaderBytes else {
            // Not even room for an empty sequence: write nothing at all.
            port.pointee.atom.size = 0
            return
        }
        port.pointee.atom.type = sequenceType
        port.pointee.atom.size = UInt32(truncatingIfNeeded: used)
        port.pointee.body.unit = 0
        port.pointee.body.pad = 0
    }

    /// Whether there is a port with room for a sequence at all.
    public var isConnected: Bool {
        @inlinable @_noLocks get { sequence != nil && capacity >= AtomLayout.sequenceHeaderBytes }
    }

    /// The sequence body's capacity (what the host offered), in bytes.
    public var bodyCapacity: Int {
        @inlinable @_noLocks get { isConnected ? capacity : 0 }
    }

    /// Bytes of events written (after the sequence body's header).
    public var eventBytes: Int {
        @inlinable @_noLocks get { isConnected ? used &- AtomLayout.sequenceHeaderBytes : 0 }
    }

    /// Bytes still free.
    public var freeBytes: Int {
        @inlinable @_noLocks get { isConnected ? capacity &- used : 0 }
    }

    /// How many more events with bodies of `bodySize` bytes fit.
    @inlinable @_noLocks
    public func room(forBodiesOf bodySize: Int) -> Int {
        guard isConnected else { return 0 }
        return (capacity &- used) / AtomLayout.eventBytes(bodySize: bodySize)
    }

    /// Reserves an event; returns a pointer to its body (zeroed padding
    /// included), or nil when it does not fit. Its header declares
    /// `declaredSize` (the body's real size when nil: only a test host lies).
    @inlinable @_noLocks
    public mutating func appendEvent(frames: Int64, type: LV2_URID, bodySize: Int, declaredSize: UInt32? = nil) -> UnsafeMutableRawPointer? {
        guard let sequence, isConnected else { return nil }
        let bytes = AtomLayout.eventBytes(bodySize: bodySize)
        guard bytes <= capacity &- used else { return nil }
        let event = writeEventHeader(frames: frames, type: type, bodySize: bodySize, in: sequence)
        if let declaredSize { event.storeBytes(of: declaredSize, toByteOffset: 8, as: UInt32.self) }
        (event + AtomLayout.eventHeaderBytes).initializeMemory(
            as: UInt8.self, repeating: 0, count: bytes &- AtomLayout.eventHeaderBytes)
        commit(bytes, in: sequence)
        return event + AtomLayout.eventHeaderBytes
    }

    /// A MIDI message of type `type` (`midi:MidiEvent`): the first
    /// `byteCount` (1-3) of `status`, `data1`, `data2` (3 for notes; 1 for a
    /// Timing Clock, Start, Continue or Stop). Its event takes the same room
    /// whatever its length (bodies are padded to 8 bytes).
    @inlinable @_noLocks
    public mutating func appendMIDI(frames: Int64, type: LV2_URID, _ status: UInt8, _ data1: UInt8, _ data2: UInt8, byteCount: Int = 3) -> Bool {
        let count = byteCount < 1 ? 1 : (byteCount > 3 ? 3 : byteCount)
        guard let body = appendEvent(frames: frames, type: type, bodySize: count) else { return false }
        body.storeBytes(of: status, as: UInt8.self)
        if count > 1 { body.storeBytes(of: data1, toByteOffset: 1, as: UInt8.self) }
        if count > 2 { body.storeBytes(of: data2, toByteOffset: 2, as: UInt8.self) }
        return true
    }

    /// Starts an `atom:Object` event of class `otype` in the free space: add
    /// its properties to the writer returned, then `endObject` it. Nothing
    /// else may be appended in between. Nil when not even the headers fit.
    @_noLocks
    public func beginObject(otype: LV2_URID) -> AtomObjectWriter? {
        guard let sequence, isConnected else { return nil }
        let room = AtomLayout.paddedRoom(capacity &- used) &- AtomLayout.eventHeaderBytes
        guard room >= AtomLayout.objectHeaderBytes else { return nil }
        let body = sequence + AtomLayout.atomHeaderBytes + used + AtomLayout.eventHeaderBytes
        return AtomObjectWriter(at: body, capacity: room, otype: otype)
    }

    /// Appends the object `beginObject` started, at `frames`, as an atom of
    /// type `objectType` (`atom:Object`): false, and nothing appended, when it did not fit.
    @_noLocks
    public mutating func endObject(_ object: AtomObjectWriter, frames: Int64, objectType: LV2_URID) -> Bool {
        guard let sequence, !object.overflowed else { return false }
        writeEventHeader(frames: frames, type: objectType, bodySize: object.byteCount, in: sequence)
        commit(AtomLayout.eventBytes(bodySize: object.byteCount), in: sequence)
        return true
    }

    /// The header of the next event; returns the event.
    @inlinable @_noLocks @discardableResult
    func writeEventHeader(frames: Int64, type: LV2_URID, bodySize: Int, in sequence: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer {
        let event = sequence + AtomLayout.atomHeaderBytes + used
        event.storeBytes(of: frames, as: Int64.self)
        event.storeBytes(of: UInt32(truncatingIfNeeded: bodySize), toByteOffset: 8, as: UInt32.self)
        event.storeBytes(of: type, toByteOffset: 12, as: UInt32.self)
        return event
    }

    /// Counts `bytes` more as used and says so in the sequence's size.
    @inlinable @_noLocks
    mutating func commit(_ bytes: Int, in sequence: UnsafeMutableRawPointer) {
        used &+= bytes
        sequence.storeBytes(of: UInt32(truncatingIfNeeded: used), as: UInt32.self)
    }
}
