/// The body of an `atom:Object` event, built the way a host's forge builds it:
/// id 0, the object type, then each property (key, context 0, value atom),
/// padded to 8 bytes.
struct AtomObjectBody {
    private(set) var bytes: [UInt8] = []

    init(objectType: UInt32) {
        append(UInt32(0))
        append(objectType)
    }

    /// Adds a property whose value is an atom of `type` holding `value`'s bytes.
    mutating func add(key: UInt32, type: UInt32, value: [UInt8]) {
        append(key)
        append(UInt32(0))
        append(UInt32(value.count))
        append(type)
        bytes += value
        while bytes.count % 8 != 0 { bytes.append(0) }
    }

    mutating func add(key: UInt32, int32Type: UInt32, _ v: Int32) { add(key: key, type: int32Type, value: Self.le(UInt32(bitPattern: v))) }
    mutating func add(key: UInt32, int64Type: UInt32, _ v: Int64) { add(key: key, type: int64Type, value: Self.le(UInt64(bitPattern: v))) }
    mutating func add(key: UInt32, floatType: UInt32, _ v: Float) { add(key: key, type: floatType, value: Self.le(v.bitPattern)) }
    mutating func add(key: UInt32, uridType: UInt32, _ v: UInt32) { add(key: key, type: uridType, value: Self.le(v)) }

    private mutating func append(_ v: UInt32) { bytes += Self.le(v) }

    static func le(_ v: UInt32) -> [UInt8] { withUnsafeBytes(of: v.littleEndian) { Array($0) } }
    static func le(_ v: UInt64) -> [UInt8] { withUnsafeBytes(of: v.littleEndian) { Array($0) } }
}
