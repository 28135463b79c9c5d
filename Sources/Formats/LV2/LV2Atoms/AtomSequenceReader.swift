import CLV2

/// One event of an atom sequence: its time stamp (frames, for the sequences
/// LV2 audio ports carry) and its atom.
public struct AtomEvent {
    public let frames: Int64
    public let atom: AtomView

    @inlinable @_noLocks
    public init(frames: Int64, atom: AtomView) {
        self.frames = frames
        self.atom = atom
    }
}

/// Walks the events of an atom sequence in order, never reading outside it.
///
/// A malformed event (a header or a body running past the sequence) ends the
/// walk, since nothing after it can be located reliably; `malformation` then
/// says what was found where, for a host that reports it. Realtime-safe:
/// O(1) per event, no allocation.
public struct AtomSequenceReader {
    @usableFromInline let events: UnsafeRawPointer?
    /// Bytes of events (the sequence body after its header).
    @usableFromInline let end: Int
    @usableFromInline var offset = 0
    /// Why the walk ended early; nil while it goes on or after a clean end.
    public private(set) var malformation: AtomMalformation? = nil

    /// The events of `sequence`; none when it is nil, not of `sequenceType`
    /// or too short for a sequence body's header.
    @inlinable @_noLocks
    public init(_ sequence: UnsafePointer<LV2_Atom_Sequence>?, sequenceType: LV2_URID) {
        guard let sequence, sequence.pointee.atom.type == sequenceType,
            Int(sequence.pointee.atom.size) >= AtomLayout.sequenceHeaderBytes
        else {
            events = nil
            end = 0
            return
        }
        events = UnsafeRawPointer(sequence) + MemoryLayout<LV2_Atom_Sequence>.size
        end = Int(sequence.pointee.atom.size) &- AtomLayout.sequenceHeaderBytes
    }

    /// The events that follow a sequence body's header at `events`, `byteCount` bytes of them.
    @inlinable @_noLocks
    public init(events: UnsafeRawPointer, byteCount: Int) {
        self.events = events
        end = byteCount
    }

    /// The next event, or nil at the end (or at a malformed event).
    @inlinable @inline(__always) @_noLocks
    public mutating func next() -> AtomEvent? {
        guard let events else { return nil }
        // Offsets stay below end + 8 and sizes below 2^32: the arithmetic
        // cannot overflow, so it wraps instead of checking (a hot path).
        let header = AtomLayout.eventHeaderBytes
        guard end &- offset >= header else {
            if offset < end { stop(.truncatedHeader(offset: offset)) }
            return nil
        }
        let event = events + offset
        let frames = event.loadUnaligned(as: Int64.self)
        let size = Int(event.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
        let type = event.loadUnaligned(fromByteOffset: 12, as: UInt32.self)
        guard size <= end &- offset &- header else {
            stop(.bodyPastEnd(offset: offset, size: size))
            return nil
        }
        offset &+= AtomLayout.eventBytes(bodySize: size)
        return AtomEvent(frames: frames, atom: AtomView(type: type, size: size, body: event + header))
    }

    /// Whether another event follows (well formed or not) after the ones read.
    public var isAtEnd: Bool {
        @inlinable @_noLocks get { events == nil || end &- offset < AtomLayout.eventHeaderBytes }
    }

    @usableFromInline @_noLocks @inline(never)
    mutating func stop(_ found: AtomMalformation) {
        malformation = found
        offset = end
    }
}

/// What ended a walk over atoms early, and where: the offset of the event
/// or property concerned from the first one.
public enum AtomMalformation: Equatable, Sendable {
    /// Fewer bytes than a header left before the end.
    case truncatedHeader(offset: Int)
    /// A body of `size` bytes that runs past the end.
    case bodyPastEnd(offset: Int, size: Int)
}
