import CLV2
import LV2Atoms
import TactusEngine
import TactusLV2

/// The plugin's fast path for a repeated position (`RepeatedPositionLayout`)
/// beside its plain path (`PositionReading`), as these tests drive them (their
/// `package` parts, so that no test hook ships in the plugin): an object's
/// properties in, both decodings out.
struct RepeatedPositionProbe: ~Copyable {
    private var layout = RepeatedPositionLayout()
    private let uris: UnsafeMutablePointer<URIDTable>

    init(uris table: URIDTable) {
        uris = .allocate(capacity: 1)
        uris.initialize(to: table)
    }

    deinit { uris.deallocate() }

    /// Decodes `properties` (an object's body after its id and otype) with the
    /// fast path and again with the plain one; `quick` says whether the fast
    /// path read them as the kept layout.
    mutating func decode(_ properties: [UInt8]) -> (decoded: PositionUpdate, inFull: PositionUpdate, quick: Bool) {
        properties.withUnsafeBytes { bytes in
            let base = bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 8)!
            let body = UnsafeRawBufferPointer(start: base, count: bytes.count)
            let quick = layout.isKept(body)
            let decoded = layout.decode(body, uris: uris)!
            var plain = AtomObjectReader(properties: base, byteCount: bytes.count, objectType: 0)
            return (decoded, PositionReading.update(&plain, uris: uris), quick)
        }
    }
}
