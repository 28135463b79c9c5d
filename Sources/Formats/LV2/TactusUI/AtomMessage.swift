import CLV2

/// An `atom:Object` being written into a byte array, as `lv2_atom_forge`
/// writes one: a header, then properties each padded to 8 bytes. LV2 atoms
/// are native-endian; the stores below are too.
///
/// UI thread; allocates.
struct AtomObjectBuilder {
    private(set) var bytes: [UInt8] = []

    /// An object of class `otype` (`atom:Object`, id 0).
    init(objectType: LV2_URID, otype: LV2_URID) {
        word(0)  // size, set by `finished`
        word(objectType)
        word(0)  // id
        word(otype)
    }

    private mutating func word(_ value: UInt32) {
        withUnsafeBytes(of: value) { bytes.append(contentsOf: $0) }
    }

    private mutating func pad() {
        while bytes.count % 8 != 0 { bytes.append(0) }
    }

    private mutating func header(key: LV2_URID, size: Int, type: LV2_URID) {
        word(key)
        word(0)  // context
        word(UInt32(size))
        word(type)
    }

    mutating func add(key: LV2_URID, urid value: LV2_URID, type: LV2_URID) {
        header(key: key, size: 4, type: type)
        word(value)
        pad()
    }

    mutating func add(key: LV2_URID, int value: Int32, type: LV2_URID) {
        header(key: key, size: 4, type: type)
        word(UInt32(bitPattern: value))
        pad()
    }

    mutating func add(key: LV2_URID, long value: Int64, type: LV2_URID) {
        header(key: key, size: 8, type: type)
        withUnsafeBytes(of: value) { bytes.append(contentsOf: $0) }
    }

    /// Raw bytes (`atom:Chunk`): no terminating NUL.
    mutating func add(key: LV2_URID, chunk value: [UInt8], type: LV2_URID) {
        header(key: key, size: value.count, type: type)
        bytes.append(contentsOf: value)
        pad()
    }

    /// A string-like value: the bytes and a terminating NUL.
    mutating func add(key: LV2_URID, text: [UInt8], type: LV2_URID) {
        header(key: key, size: text.count + 1, type: type)
        bytes.append(contentsOf: text)
        bytes.append(0)
        pad()
    }

    /// The object, its size filled in.
    func finished() -> [UInt8] {
        var result = bytes
        let size = UInt32(result.count - 8)
        withUnsafeBytes(of: size) { for i in 0..<4 { result[i] = $0[i] } }
        return result
    }
}

/// An `atom:Object` (or `atom:Blank`) the plugin sent: its class and its
/// properties, read without leaving the buffer the host passed.
///
/// Valid while that buffer is (the duration of a `port_event` call).
struct ReceivedObject {
    let otype: LV2_URID
    private let body: UnsafeRawPointer
    private let size: Int

    /// Nil unless `atom` (of `size` bytes in all) is an object or a blank.
    init?(_ atom: UnsafeRawPointer, size total: Int, uris: EditorURIDs) {
        guard total >= 16 else { return nil }
        let bodySize = Int(atom.loadUnaligned(as: UInt32.self))
        let type = atom.loadUnaligned(fromByteOffset: 4, as: UInt32.self)
        guard type == uris.atomObject || type == uris.atomBlank, bodySize >= 8, bodySize <= total - 8 else { return nil }
        otype = atom.loadUnaligned(fromByteOffset: 12, as: UInt32.self)
        body = atom + 16
        size = bodySize - 8
    }

    /// One property: its key, value type, value size and value bytes.
    struct Property {
        let key: LV2_URID
        let type: LV2_URID
        let size: Int
        let value: UnsafeRawPointer

        /// A string-like value without its terminating NUL.
        var text: [UInt8] {
            var n = size
            while n > 0, value.load(fromByteOffset: n - 1, as: UInt8.self) == 0 { n -= 1 }
            return Array(UnsafeRawBufferPointer(start: value, count: n))
        }
    }

    /// Calls `visit` for each property in order; stops at a malformed one.
    func forEachProperty(_ visit: (Property) -> Void) {
        var offset = 0
        while offset + 16 <= size {
            let key = body.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
            let valueSize = Int(body.loadUnaligned(fromByteOffset: offset + 8, as: UInt32.self))
            let type = body.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self)
            guard valueSize <= size - offset - 16 else { return }
            visit(Property(key: key, type: type, size: valueSize, value: body + offset + 16))
            offset += 16 + ((valueSize + 7) & ~7)
        }
    }
}
