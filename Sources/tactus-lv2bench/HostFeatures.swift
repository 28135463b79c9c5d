import CLilv
import LV2HostKit
import CTestHost
import Glibc

/// What the bench host gives every plugin at instantiation, as a real host
/// does: `urid:map`/`unmap`, `options` (block lengths, sequence size, sample
/// rate), `log:log`, `buf-size:boundedBlockLength`, and a worker
/// (`work:schedule`, one per instance, added by `BenchedPlugin`).
final class HostFeatures {
    let map = URIDMap()
    let uris: HostURIDs
    private let log = UnsafeMutablePointer<LV2_Log_Log>.allocate(capacity: 1)
    private let options: UnsafeMutablePointer<LV2_Options_Option>
    private let optionValues = UnsafeMutableRawPointer.allocate(byteCount: 64, alignment: 8)
    private var storage: [UnsafeMutablePointer<LV2_Feature>] = []

    init(sampleRate: Double, blockLength: Int, sequenceSize: Int) {
        uris = HostURIDs(map)
        log.initialize(to: LV2_Log_Log())
        tactus_host_log_init(log)
        let bufSize = "http://lv2plug.in/ns/ext/buf-size#"
        let intType = map.id("http://lv2plug.in/ns/ext/atom#Int")
        let floatType = map.id("http://lv2plug.in/ns/ext/atom#Float")
        optionValues.storeBytes(of: Int32(blockLength), toByteOffset: 0, as: Int32.self)   // max
        optionValues.storeBytes(of: Int32(blockLength), toByteOffset: 4, as: Int32.self)   // min
        optionValues.storeBytes(of: Int32(blockLength), toByteOffset: 8, as: Int32.self)   // nominal
        optionValues.storeBytes(of: Int32(sequenceSize), toByteOffset: 12, as: Int32.self)
        optionValues.storeBytes(of: Float(sampleRate), toByteOffset: 16, as: Float.self)
        let list: [(String, UInt32, Int)] = [
            (bufSize + "maxBlockLength", intType, 0), (bufSize + "minBlockLength", intType, 4),
            (bufSize + "nominalBlockLength", intType, 8), (bufSize + "sequenceSize", intType, 12),
            ("http://lv2plug.in/ns/ext/parameters#sampleRate", floatType, 16),
        ]
        options = .allocate(capacity: list.count + 1)
        for (i, (key, type, offset)) in list.enumerated() {
            options[i] = LV2_Options_Option(
                context: LV2_OPTIONS_INSTANCE, subject: 0, key: map.id(key), size: 4, type: type,
                value: UnsafeRawPointer(optionValues + offset))
        }
        options[list.count] = LV2_Options_Option(context: LV2_OPTIONS_INSTANCE, subject: 0, key: 0, size: 0, type: 0, value: nil)

        add("http://lv2plug.in/ns/ext/urid#map", UnsafeMutableRawPointer(map.map))
        add("http://lv2plug.in/ns/ext/urid#unmap", UnsafeMutableRawPointer(map.unmap))
        add("http://lv2plug.in/ns/ext/options#options", UnsafeMutableRawPointer(options))
        add("http://lv2plug.in/ns/ext/log#log", UnsafeMutableRawPointer(log))
        add("http://lv2plug.in/ns/ext/buf-size#boundedBlockLength", nil)
    }

    private func add(_ uri: String, _ data: UnsafeMutableRawPointer?) {
        let f = UnsafeMutablePointer<LV2_Feature>.allocate(capacity: 1)
        f.initialize(to: LV2_Feature(URI: strdup(uri), data: data))
        storage.append(f)
    }

    /// A NULL-terminated feature array: the shared features plus `extra`.
    /// The caller frees the array (not the features) with `deallocate()`.
    func featureArray(adding extra: [UnsafeMutablePointer<LV2_Feature>]) -> UnsafeMutablePointer<UnsafePointer<LV2_Feature>?> {
        let all = storage + extra
        let array = UnsafeMutablePointer<UnsafePointer<LV2_Feature>?>.allocate(capacity: all.count + 1)
        for (i, f) in all.enumerated() { array[i] = UnsafePointer(f) }
        array[all.count] = nil
        return array
    }

    deinit {
        for f in storage {
            free(UnsafeMutableRawPointer(mutating: f.pointee.URI))
            f.deallocate()
        }
        options.deallocate()
        optionValues.deallocate()
        log.deallocate()
    }
}
