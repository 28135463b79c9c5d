import CLV2

/// Walks the properties of an `atom:Object` (or `atom:Blank`) in order,
/// never reading outside the object's body.
///
/// A malformed property (a header or a value running past the object) ends
/// the walk; `malformation` says what was found where. Realtime-safe: O(1)
/// per property, no allocation.
public struct AtomObjectReader {
    /// `otype` of the object.
    public let objectType: LV2_URID
    @usableFromInline let properties: UnsafeRawPointer
    @usableFromInline let end: Int
    @usableFromInline var offset = 0
    /// Why the walk ended early; nil while it goes on or after a clean end.
    public private(set) var malformation: AtomMalformation? = nil

    /// The object `atom` is; nil when it is neither an `atom:Object` nor an
    /// `atom:Blank`, or too short for an object body's header.
    @inlinable @_noLocks
    public init?(_ atom: AtomView, uris: borrowing URIDTable) {
        let object = uris.atomObject, blank = uris.atomBlank
        guard atom.type == object || atom.type == blank, atom.size >= AtomLayout.objectHeaderBytes else { return nil }
        objectType = atom.body.loadUnaligned(fromByteOffset: 4, as: UInt32.self)
        properties = atom.body + AtomLayout.objectHeaderBytes
        end = atom.size &- AtomLayout.objectHeaderBytes
    }

    /// The object in the first `byteCount` bytes at `atom`, an atom header and
    /// its body (a `port_event` buffer); nil unless an object lies wholly there.
    @inlinable
    public init?(atom: UnsafeRawPointer, byteCount: Int, uris: borrowing URIDTable) {
        guard byteCount >= AtomLayout.atomHeaderBytes else { return nil }
        let size = Int(atom.loadUnaligned(as: UInt32.self))
        guard size <= byteCount &- AtomLayout.atomHeaderBytes else { return nil }
        let view = AtomView(
            type: atom.loadUnaligned(fromByteOffset: 4, as: UInt32.self), size: size, body: atom + AtomLayout.atomHeaderBytes)
        self.init(view, uris: uris)
    }

    /// The `byteCount` bytes of properties at `properties`, of an object of type `objectType`.
    @inlinable @_noLocks
    public init(properties: UnsafeRawPointer, byteCount: Int, objectType: LV2_URID) {
        self.objectType = objectType
        self.properties = properties
        end = byteCount
    }

    /// The properties not yet read, as bytes (up to the end of the object).
    public var unreadBytes: UnsafeRawBufferPointer {
        @inlinable @_noLocks get { UnsafeRawBufferPointer(start: properties + offset, count: end &- offset) }
    }

    /// The next property, or nil at the end (or at a malformed property).
    @inlinable @inline(__always) @_noLocks
    public mutating func next() -> (key: LV2_URID, value: AtomView)? {
        let header = AtomLayout.propertyHeaderBytes
        guard end &- offset >= header else {
            if offset < end { stop(.truncatedHeader(offset: offset)) }
            return nil
        }
        let p = properties + offset
        let key = p.loadUnaligned(as: UInt32.self)
        let size = Int(p.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
        let type = p.loadUnaligned(fromByteOffset: 12, as: UInt32.self)
        guard size <= end &- offset &- header else {
            stop(.bodyPastEnd(offset: offset, size: size))
            return nil
        }
        offset &+= AtomLayout.propertyBytes(valueSize: size)  // below end + 8: no overflow
        return (key, AtomView(type: type, size: size, body: p + header))
    }

    @usableFromInline @_noLocks @inline(never)
    mutating func stop(_ found: AtomMalformation) {
        malformation = found
        offset = end
    }
}
