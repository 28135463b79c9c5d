import CLV2

/// An atom in a buffer: its type, its body's size and its body, checked by
/// whoever made it to lie inside the buffer it came from. Valid while that
/// buffer is. Realtime-safe; any thread.
public struct AtomView {
    public let type: LV2_URID
    public let size: Int
    public let body: UnsafeRawPointer

    @inlinable @_noLocks
    public init(type: LV2_URID, size: Int, body: UnsafeRawPointer) {
        self.type = type
        self.size = size
        self.body = body
    }

    /// The body as a `T` when the atom is of type `type` and long enough for one,
    /// else nil. A generic: `@_noLocks` is checked where it is specialized.
    @inlinable @inline(__always)
    public func value<T: BitwiseCopyable>(ofType type: LV2_URID, as _: T.Type) -> T? {
        guard self.type == type, size >= MemoryLayout<T>.size else { return nil }
        return body.loadUnaligned(as: T.self)
    }

    /// The body as an `atom:URID` (for `patch:property`), nil for another type or a short body.
    @inlinable @_noLocks
    public func urid(_ uris: borrowing URIDTable) -> LV2_URID? { value(ofType: uris.atomURID, as: UInt32.self) }

    /// The body as an `atom:Int`, nil for another type or a short body.
    @inlinable @_noLocks
    public func int(_ uris: borrowing URIDTable) -> Int32? { value(ofType: uris.atomInt, as: Int32.self) }

    /// The body as an `atom:Long`, nil for another type or a short body.
    @inlinable @_noLocks
    public func long(_ uris: borrowing URIDTable) -> Int64? { value(ofType: uris.atomLong, as: Int64.self) }

    /// The body as an `atom:Double`, nil for another type or a short body.
    @inlinable @_noLocks
    public func double(_ uris: borrowing URIDTable) -> Double? { value(ofType: uris.atomDouble, as: Double.self) }

    /// The body as a number: an `atom:Float`, `atom:Double`, `atom:Long` or
    /// `atom:Int` long enough for its type, as a Double; nil for anything else.
    @inlinable @_noLocks
    public func number(_ uris: borrowing URIDTable) -> Double? {
        let float = uris.atomFloat, double = uris.atomDouble, long = uris.atomLong, int = uris.atomInt
        if type == float, size >= 4 { return Double(body.loadUnaligned(as: Float.self)) }
        if type == double, size >= 8 { return body.loadUnaligned(as: Double.self) }
        if type == long, size >= 8 { return Double(body.loadUnaligned(as: Int64.self)) }
        if type == int, size >= 4 { return Double(body.loadUnaligned(as: Int32.self)) }
        return nil
    }

    /// The body's bytes.
    public var bytes: UnsafeRawBufferPointer {
        @inlinable @_noLocks get { UnsafeRawBufferPointer(start: body, count: size) }
    }

    /// The bytes of a string-like body (`atom:String`, `atom:Path`), without its terminating NULs.
    @inlinable @_noLocks
    public func textBytes() -> UnsafeRawBufferPointer {
        var n = size
        while n > 0, body.load(fromByteOffset: n &- 1, as: UInt8.self) == 0 { n &-= 1 }
        return UnsafeRawBufferPointer(start: body, count: n)
    }
}
