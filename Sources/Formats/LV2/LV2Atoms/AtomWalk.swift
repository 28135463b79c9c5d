import CLV2

/// A walk over consecutive records that each start with 16 bytes, the last 8
/// of them an atom header, followed by the atom's body padded to 8 bytes: the
/// events of a sequence (`LV2_Atom_Event`: frames, then the atom) and the
/// properties of an object (`LV2_Atom_Property_Body`: key, context, then the
/// value). The one place their bounds are checked: a record whose header or
/// body runs past the end ends the walk, and is named. Realtime-safe.
@usableFromInline
struct AtomWalk {
    @usableFromInline let start: UnsafeRawPointer?
    /// Bytes of records after `start`.
    @usableFromInline let end: Int
    @usableFromInline var offset = 0
    @usableFromInline var malformation: AtomMalformation? = nil

    @inlinable @_noLocks
    init(start: UnsafeRawPointer?, end: Int) {
        self.start = start
        self.end = end
    }

    /// The next record: where it starts, and its atom's body size and type.
    @inlinable @inline(__always) @_noLocks
    mutating func next() -> (record: UnsafeRawPointer, size: Int, type: LV2_URID)? {
        guard let start else { return nil }
        // Offsets stay below end + 8 and sizes below 2^32: the arithmetic
        // cannot overflow, so it wraps instead of checking (a hot path).
        let header = AtomLayout.eventHeaderBytes  // = propertyHeaderBytes
        guard end &- offset >= header else {
            if offset < end { stop(.truncatedHeader(offset: offset)) }
            return nil
        }
        let record = start + offset
        let size = Int(record.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
        let type = record.loadUnaligned(fromByteOffset: 12, as: UInt32.self)
        guard size <= end &- offset &- header else {
            stop(.bodyPastEnd(offset: offset, size: size))
            return nil
        }
        offset &+= header &+ AtomLayout.padded(size)
        return (record, size, type)
    }

    /// Whether no further record can follow (well formed or not).
    @usableFromInline var isAtEnd: Bool {
        @inlinable @_noLocks get { start == nil || end &- offset < AtomLayout.eventHeaderBytes }
    }

    @usableFromInline @_noLocks @inline(never)
    mutating func stop(_ found: AtomMalformation) {
        malformation = found
        offset = end
    }
}
