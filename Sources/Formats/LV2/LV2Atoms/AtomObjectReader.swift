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
    @usableFromInline var walk: AtomWalk

    /// Why the walk ended early; nil while it goes on or after a clean end.
    public var malformation: AtomMalformation? {
        @inlinable @_noLocks get { walk.malformation }
    }

    /// The object `atom` is; nil when it is neither an `atom:Object` nor an
    /// `atom:Blank`, or too short for an object body's header.
    @inlinable @_noLocks
    public init?(_ atom: AtomView, uris: borrowing URIDTable) {
        let object = uris.atomObject, blank = uris.atomBlank
        guard atom.type == object || atom.type == blank, atom.size >= AtomLayout.objectHeaderBytes else { return nil }
        objectType = atom.body.loadUnaligned(fromByteOffset: 4, as: UInt32.self)
        walk = AtomWalk(start: atom.body + AtomLayout.objectHeaderBytes, end: atom.size &- AtomLayout.objectHeaderBytes)
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
        walk = AtomWalk(start: properties, end: byteCount)
    }

    /// The properties not yet read, as bytes (up to the end of the object).
    public var unreadBytes: UnsafeRawBufferPointer {
        @inlinable @_noLocks get { UnsafeRawBufferPointer(start: walk.start! + walk.offset, count: walk.end &- walk.offset) }
    }

    /// The next property, or nil at the end (or at a malformed property).
    @inlinable @inline(__always) @_noLocks
    public mutating func next() -> (key: LV2_URID, value: AtomView)? {
        guard let (property, size, type) = walk.next() else { return nil }
        return (property.loadUnaligned(as: UInt32.self), AtomView(type: type, size: size, body: property + AtomLayout.propertyHeaderBytes))
    }
}
