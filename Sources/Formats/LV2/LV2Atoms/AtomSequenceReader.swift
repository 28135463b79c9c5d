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
    @usableFromInline var walk: AtomWalk

    /// Why the walk ended early; nil while it goes on or after a clean end.
    public var malformation: AtomMalformation? {
        @inlinable @_noLocks get { walk.malformation }
    }

    /// The events of `sequence`; none when it is nil, not of `sequenceType`
    /// or too short for a sequence body's header.
    @inlinable @_noLocks
    public init(_ sequence: UnsafePointer<LV2_Atom_Sequence>?, sequenceType: LV2_URID) {
        guard let sequence, sequence.pointee.atom.type == sequenceType,
            Int(sequence.pointee.atom.size) >= AtomLayout.sequenceHeaderBytes
        else {
            walk = AtomWalk(start: nil, end: 0)
            return
        }
        walk = AtomWalk(
            start: UnsafeRawPointer(sequence) + MemoryLayout<LV2_Atom_Sequence>.size,
            end: Int(sequence.pointee.atom.size) &- AtomLayout.sequenceHeaderBytes)
    }

    /// The events that follow a sequence body's header at `events`, `byteCount` bytes of them.
    @inlinable @_noLocks
    public init(events: UnsafeRawPointer, byteCount: Int) {
        walk = AtomWalk(start: events, end: byteCount)
    }

    /// The next event, or nil at the end (or at a malformed event).
    @inlinable @inline(__always) @_noLocks
    public mutating func next() -> AtomEvent? {
        guard let (event, size, type) = walk.next() else { return nil }
        return AtomEvent(
            frames: event.loadUnaligned(as: Int64.self),
            atom: AtomView(type: type, size: size, body: event + AtomLayout.eventHeaderBytes))
    }

    /// Whether no further event can follow (well formed or not) after the ones read.
    public var isAtEnd: Bool {
        @inlinable @_noLocks get { walk.isAtEnd }
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
