/// One short MIDI message at a frame offset into the current block.
public struct MIDIEvent: Equatable, Sendable, BitwiseCopyable {
    /// Frames from the start of the block (64 bits: a block may be longer than 2^31 frames).
    public var offset: Int64
    public var status: UInt8
    public var data1: UInt8
    public var data2: UInt8

    @_noLocks
    public init(offset: Int64, status: UInt8, data1: UInt8, data2: UInt8) {
        self.offset = offset
        self.status = status
        self.data1 = data1
        self.data2 = data2
    }

    /// `8n kk 00`.
    @_noLocks @inline(__always)
    public static func noteOff(offset: Int64, slot: Int) -> MIDIEvent {
        MIDIEvent(offset: offset, status: 0x80 | UInt8(truncatingIfNeeded: slot >> 7), data1: UInt8(truncatingIfNeeded: slot & 127), data2: 0)
    }

    /// `9n kk vv`.
    @_noLocks @inline(__always)
    public static func noteOn(offset: Int64, slot: Int, velocity: UInt8) -> MIDIEvent {
        MIDIEvent(offset: offset, status: 0x90 | UInt8(truncatingIfNeeded: slot >> 7), data1: UInt8(truncatingIfNeeded: slot & 127), data2: velocity)
    }

    /// The message's bytes, `byteCount` of them (off the audio thread: allocates).
    public var bytes: [UInt8] { Array([status, data1, data2].prefix(byteCount)) }

    public var isNoteOn: Bool { @_noLocks get { status & 0xF0 == 0x90 && data2 != 0 } }
    public var isNoteOff: Bool { @_noLocks get { status & 0xF0 == 0x80 || (status & 0xF0 == 0x90 && data2 == 0) } }
}

/// A caller-owned, fixed-capacity list of the MIDI events of one block.
///
/// Storage is allocated once at `init` (off the audio thread). `capacity` can
/// be lowered per block to what the host's output port can hold; the renderer
/// never writes past it: when a block's events do not fit, note-offs are kept
/// and note-ons dropped and counted (timing contract §6). Owned by the audio thread.
public struct MIDIEventBuffer: ~Copyable {
    private let storage: UnsafeMutablePointer<MIDIEvent>
    /// The most events the storage can hold.
    public let storageCapacity: Int
    /// The most events the current block may hold (`<= storageCapacity`).
    public var capacity: Int { @_noLocks get { _capacity } }
    @usableFromInline var _capacity: Int
    /// Events written so far in this block.
    public var count: Int { @_noLocks get { _count } }
    @usableFromInline var _count = 0

    public init(storageCapacity: Int) {
        precondition(storageCapacity > 0)
        self.storageCapacity = storageCapacity
        _capacity = storageCapacity
        storage = .allocate(capacity: storageCapacity)
    }

    deinit { storage.deallocate() }

    /// Empties the buffer, keeping this block's capacity.
    @_transparent @_noLocks
    public mutating func removeAll() {
        _count = 0
    }

    /// Empties the buffer and sets this block's capacity (clamped to the storage).
    @_transparent @_noLocks
    public mutating func reset(capacity newCapacity: Int) {
        _count = 0
        _capacity = newCapacity < 0 ? 0 : (newCapacity > storageCapacity ? storageCapacity : newCapacity)
    }

    @_noLocks @inline(__always)
    public subscript(index: Int) -> MIDIEvent {
        get { storage[index] }
        set { storage[index] = newValue }
    }

    /// Appends if there is room; false when full.
    @_noLocks @inline(__always)
    public mutating func append(_ event: MIDIEvent) -> Bool {
        guard count < capacity else { return false }
        storage[_count] = event
        _count += 1
        return true
    }

    /// Removes the event at `index`, moving the later ones down. O(count), bounded by the capacity.
    @_noLocks
    public mutating func remove(at index: Int) {
        guard index >= 0, index < _count else { return }
        var i = index
        while i + 1 < _count {
            storage[i] = storage[i + 1]
            i += 1
        }
        _count -= 1
    }

    /// The events of this block, valid until the next `reset`.
    public var events: UnsafeBufferPointer<MIDIEvent> {
        @_noLocks get { UnsafeBufferPointer(start: storage, count: count) }
    }
}
