import CLV2
import TactusEngine
import TactusModel

/// One event of an input atom sequence: its frame offset and its atom.
struct AtomEvent {
    let frames: Int64
    let atom: AtomView
}

/// An atom in a host's buffer: type, body size and body, checked to lie
/// inside the buffer it came from.
struct AtomView {
    let type: LV2_URID
    let size: Int
    let body: UnsafeRawPointer

    /// The body as a URID (for `patch:property`).
    @_noLocks
    func urid(_ uris: UnsafePointer<URIDTable>) -> LV2_URID? {
        guard type == uris.pointee.atomURID, size >= 4 else { return nil }
        return body.loadUnaligned(as: UInt32.self)
    }

    /// The bytes of a string-like body, without its terminating NUL.
    @_noLocks
    func textBytes() -> UnsafeRawBufferPointer {
        var n = size
        while n > 0, body.load(fromByteOffset: n - 1, as: UInt8.self) == 0 { n -= 1 }
        return UnsafeRawBufferPointer(start: body, count: n)
    }
}

/// Walks the events of an atom sequence in order, never reading outside it.
///
/// A malformed event (a header or body running past the sequence) ends the
/// walk: nothing after it can be located reliably. Realtime-safe.
struct AtomSequenceReader {
    private let events: UnsafeRawPointer?
    private let end: Int
    private var offset = 0

    @_noLocks
    init(_ sequence: UnsafePointer<LV2_Atom_Sequence>?, sequenceType: LV2_URID) {
        guard let sequence, sequence.pointee.atom.type == sequenceType,
            Int(sequence.pointee.atom.size) >= MemoryLayout<LV2_Atom_Sequence_Body>.size
        else {
            events = nil
            end = 0
            return
        }
        events = UnsafeRawPointer(sequence) + MemoryLayout<LV2_Atom_Sequence>.size
        end = Int(sequence.pointee.atom.size) - MemoryLayout<LV2_Atom_Sequence_Body>.size
    }

    @_noLocks
    mutating func next() -> AtomEvent? {
        guard let events else { return nil }
        // Offsets stay below end + 8 and sizes below 2^32: the arithmetic
        // cannot overflow, so it wraps instead of checking (a hot path).
        let header = 16  // LV2_Atom_Event: time (8) + atom (8)
        guard end &- offset >= header else { return nil }
        let event = events + offset
        let frames = event.loadUnaligned(as: Int64.self)
        let size = Int(event.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
        let type = event.loadUnaligned(fromByteOffset: 12, as: UInt32.self)
        guard size <= end &- offset &- header else {
            offset = end
            return nil
        }
        offset &+= (header &+ size &+ 7) & ~7
        return AtomEvent(frames: frames, atom: AtomView(type: type, size: size, body: event + header))
    }
}

/// The properties of an `atom:Object` (or `atom:Blank`) body, checked against its size.
package struct AtomObjectReader {
    /// `otype` of the object.
    let objectType: LV2_URID
    private let properties: UnsafeRawPointer
    private let end: Int
    private var offset = 0

    /// nil when `atom` is not an object, or too short to be one.
    @_noLocks
    init?(_ atom: AtomView, uris: UnsafePointer<URIDTable>) {
        guard atom.type == uris.pointee.atomObject || atom.type == uris.pointee.atomBlank, atom.size >= 8 else { return nil }
        objectType = atom.body.loadUnaligned(fromByteOffset: 4, as: UInt32.self)
        properties = atom.body + 8
        end = atom.size - 8
    }

    /// The `byteCount` bytes of properties at `properties`, of an object of type `objectType`.
    package init(properties: UnsafeRawPointer, byteCount: Int, objectType: LV2_URID) {
        self.objectType = objectType
        self.properties = properties
        end = byteCount
    }

    /// The properties not yet read, as bytes (up to the end of the object).
    package var unreadBytes: UnsafeRawBufferPointer {
        @_noLocks get { UnsafeRawBufferPointer(start: properties + offset, count: end - offset) }
    }

    /// The next property, or nil at the end (or at a malformed property).
    @_noLocks
    mutating func next() -> (key: LV2_URID, value: AtomView)? {
        let header = 16  // key (4) + context (4) + value atom header (8)
        guard end &- offset >= header else { return nil }
        let p = properties + offset
        let key = p.loadUnaligned(as: UInt32.self)
        let size = Int(p.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
        let type = p.loadUnaligned(fromByteOffset: 12, as: UInt32.self)
        guard size <= end &- offset &- header else {
            offset = end
            return nil
        }
        offset &+= (header &+ size &+ 7) & ~7  // below end + 8: no overflow
        return (key, AtomView(type: type, size: size, body: p + header))
    }
}
