import CLV2

/// Writes an object body (`LV2_Atom_Object_Body`: id 0, `otype`, then each
/// property padded to 8 bytes) into memory, as `lv2_atom_forge` writes one;
/// native-endian, as LV2 atoms are.
///
/// It never writes past `capacity`: a property that does not fit sets
/// `overflowed` and nothing more is written. With no memory (`measuring`) it
/// writes nothing and counts the bytes an object would take, so that a
/// caller can allocate exactly that much and write it again.
/// Realtime-safe: no allocation; any thread.
public struct AtomObjectWriter {
    @usableFromInline let base: UnsafeMutableRawPointer?
    @usableFromInline let capacity: Int
    /// Bytes of the object body written (or counted) so far.
    public private(set) var byteCount: Int
    /// Whether a property did not fit (the body is then incomplete).
    public private(set) var overflowed = false

    /// An object of class `otype` at `base`, in at most `capacity` bytes.
    @_noLocks
    public init(at base: UnsafeMutableRawPointer, capacity: Int, otype: LV2_URID) {
        self.base = base
        self.capacity = capacity
        byteCount = AtomLayout.objectHeaderBytes
        guard capacity >= AtomLayout.objectHeaderBytes else {
            overflowed = true
            return
        }
        base.storeBytes(of: UInt32(0), as: UInt32.self)  // id
        base.storeBytes(of: otype, toByteOffset: 4, as: UInt32.self)
    }

    /// A writer that only counts: `byteCount` is then the size of the object body.
    public init(measuring: Void = ()) {
        base = nil
        capacity = Int.max
        byteCount = AtomLayout.objectHeaderBytes
    }

    /// Adds a property whose value is `size` bytes of type `type`, its header
    /// declaring `declaredSize` (the real size when nil: only a test lies);
    /// the padding is zeroed. Returns where the value goes, or nil when
    /// measuring or out of room.
    @_noLocks
    public mutating func addProperty(key: LV2_URID, type: LV2_URID, size: Int, declaredSize: UInt32? = nil) -> UnsafeMutableRawPointer? {
        let bytes = AtomLayout.propertyBytes(valueSize: size)
        guard !overflowed, bytes <= capacity &- byteCount else {
            overflowed = true
            return nil
        }
        defer { byteCount &+= bytes }
        guard let base else { return nil }
        let p = base + byteCount
        p.storeBytes(of: key, as: UInt32.self)
        p.storeBytes(of: UInt32(0), toByteOffset: 4, as: UInt32.self)  // context
        p.storeBytes(of: declaredSize ?? UInt32(truncatingIfNeeded: size), toByteOffset: 8, as: UInt32.self)
        p.storeBytes(of: type, toByteOffset: 12, as: UInt32.self)
        let value = p + AtomLayout.propertyHeaderBytes
        (value + size).initializeMemory(as: UInt8.self, repeating: 0, count: bytes &- AtomLayout.propertyHeaderBytes &- size)
        return value
    }

    /// A value of `type` holding `value`'s bytes (a number, a URID). A generic:
    /// `@_noLocks` is checked where it is specialized, in its callers.
    @inlinable @inline(__always)
    public mutating func add<T: BitwiseCopyable>(_ key: LV2_URID, type: LV2_URID, value: T) {
        addProperty(key: key, type: type, size: MemoryLayout<T>.size)?.storeBytes(of: value, as: T.self)
    }

    /// An `atom:URID` value.
    @_noLocks
    public mutating func add(_ key: LV2_URID, urid value: LV2_URID, uris: URIDTable) { add(key, type: uris.atomURID, value: value) }

    /// An `atom:Int` value.
    @_noLocks
    public mutating func add(_ key: LV2_URID, int value: Int32, uris: URIDTable) { add(key, type: uris.atomInt, value: value) }

    /// An `atom:Long` value.
    @_noLocks
    public mutating func add(_ key: LV2_URID, long value: Int64, uris: URIDTable) { add(key, type: uris.atomLong, value: value) }

    /// An `atom:Float` value.
    @_noLocks
    public mutating func add(_ key: LV2_URID, float value: Float, uris: URIDTable) { add(key, type: uris.atomFloat, value: value) }

    /// An `atom:Double` value.
    @_noLocks
    public mutating func add(_ key: LV2_URID, double value: Double, uris: URIDTable) { add(key, type: uris.atomDouble, value: value) }

    /// A value of `type` holding `bytes` as they are (an `atom:Chunk`: no terminating NUL).
    @_noLocks
    public mutating func add(_ key: LV2_URID, type: LV2_URID, bytes: UnsafeRawBufferPointer, declaredSize: UInt32? = nil) {
        guard let value = addProperty(key: key, type: type, size: bytes.count, declaredSize: declaredSize) else { return }
        if let source = bytes.baseAddress, bytes.count > 0 { value.copyMemory(from: source, byteCount: bytes.count) }
    }

    /// A string-like value of `type` (`atom:String`, `atom:Path`): `bytes` and a terminating NUL.
    @_noLocks
    public mutating func add(_ key: LV2_URID, type: LV2_URID, text bytes: UnsafeRawBufferPointer) {
        guard let value = addProperty(key: key, type: type, size: bytes.count &+ 1) else { return }
        if let source = bytes.baseAddress, bytes.count > 0 { value.copyMemory(from: source, byteCount: bytes.count) }
        value.storeBytes(of: UInt8(0), toByteOffset: bytes.count, as: UInt8.self)
    }
}

extension AtomObjectWriter {
    /// An object body of class `otype` as bytes (off the audio thread: it
    /// allocates): `write` adds the properties; it is called twice, once to
    /// measure and once to write, so it must add the same properties both times.
    public static func bytes(otype: LV2_URID, _ write: (inout AtomObjectWriter) -> Void) -> [UInt8] {
        var measure = AtomObjectWriter(measuring: ())
        write(&measure)
        let count = measure.byteCount
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            var writer = AtomObjectWriter(at: UnsafeMutableRawPointer(buffer.baseAddress!), capacity: count, otype: otype)
            write(&writer)
            initialized = writer.byteCount
        }
    }

    /// A whole atom of type `objectType` (`atom:Object`): its header and an object
    /// body, as a UI sends one through `write_function` with `atom:eventTransfer`.
    /// Allocates.
    public static func atom(objectType: LV2_URID, otype: LV2_URID, _ write: (inout AtomObjectWriter) -> Void) -> [UInt8] {
        let body = bytes(otype: otype, write)
        var atom = [UInt8](repeating: 0, count: AtomLayout.atomHeaderBytes)
        atom.withUnsafeMutableBytes {
            $0.storeBytes(of: UInt32(truncatingIfNeeded: body.count), as: UInt32.self)
            $0.storeBytes(of: objectType, toByteOffset: 4, as: UInt32.self)
        }
        return atom + body
    }
}
