import CLV2

/// The features (and `opts:options`) a host gives a plugin at instantiation:
/// `urid:map`/`unmap`, `log:log`, `work:schedule`, `state:threadSafeRestore`,
/// `buf-size:boundedBlockLength` and the options, each included when asked
/// for. Everything lives at stable addresses until the list is released.
///
/// Thread: built and released on the host's main thread; plugins read it
/// during `instantiate` only (the data it points to, such as the map, stays).
public final class HostFeatures: @unchecked Sendable {
    /// The `opts:options` a host passes (buf-size block lengths and sequence
    /// size, the sample rate); nil values are left out.
    public struct Options: Sendable {
        public var maxBlockLength: Int32
        public var minBlockLength: Int32
        public var nominalBlockLength: Int32?
        public var sequenceSize: Int32
        public var sampleRate: Float?

        public init(maxBlockLength: Int32, minBlockLength: Int32, nominalBlockLength: Int32? = nil, sequenceSize: Int32, sampleRate: Float? = nil) {
            self.maxBlockLength = maxBlockLength
            self.minBlockLength = minBlockLength
            self.nominalBlockLength = nominalBlockLength
            self.sequenceSize = sequenceSize
            self.sampleRate = sampleRate
        }
    }

    /// The NULL-terminated feature array for `instantiate`.
    public let list: UnsafeMutablePointer<UnsafePointer<LV2_Feature>?>
    private let features: [UnsafeMutablePointer<LV2_Feature>]
    private let strings: [UnsafeMutablePointer<CChar>]
    private let options: UnsafeMutablePointer<LV2_Options_Option>?
    private let optionValues: UnsafeMutableRawPointer?

    public init(
        map: URIDMap, log: UnsafeMutablePointer<LV2_Log_Log>?, worker: SynchronousWorker?, options: Options? = nil,
        threadSafeRestore: Bool = true, boundedBlockLength: Bool = false
    ) {
        var entries: [(String, UnsafeMutableRawPointer?)] = [
            ("http://lv2plug.in/ns/ext/urid#map", UnsafeMutableRawPointer(map.map)),
            ("http://lv2plug.in/ns/ext/urid#unmap", UnsafeMutableRawPointer(map.unmap)),
        ]
        if let log { entries.append(("http://lv2plug.in/ns/ext/log#log", UnsafeMutableRawPointer(log))) }
        if let options {
            let list = HostFeatures.optionList(options, map: map)
            let values = UnsafeMutableRawPointer.allocate(byteCount: 8 * max(list.count, 1), alignment: 8)
            let array = UnsafeMutablePointer<LV2_Options_Option>.allocate(capacity: list.count + 1)
            for (i, option) in list.enumerated() {
                let value = values + 8 * i
                switch option.value {
                case .int(let v): value.storeBytes(of: v, as: Int32.self)
                case .float(let v): value.storeBytes(of: v, as: Float.self)
                }
                array[i] = LV2_Options_Option(
                    context: LV2_OPTIONS_INSTANCE, subject: 0, key: map.id(option.key), size: 4, type: option.type, value: UnsafeRawPointer(value))
            }
            array[list.count] = LV2_Options_Option(context: LV2_OPTIONS_INSTANCE, subject: 0, key: 0, size: 0, type: 0, value: nil)
            self.options = array
            optionValues = values
            entries.append(("http://lv2plug.in/ns/ext/options#options", UnsafeMutableRawPointer(array)))
        } else {
            self.options = nil
            optionValues = nil
        }
        if threadSafeRestore { entries.append(("http://lv2plug.in/ns/ext/state#threadSafeRestore", nil)) }
        if boundedBlockLength { entries.append(("http://lv2plug.in/ns/ext/buf-size#boundedBlockLength", nil)) }
        if let worker { entries.append(("http://lv2plug.in/ns/ext/worker#schedule", UnsafeMutableRawPointer(worker.schedule))) }
        var features: [UnsafeMutablePointer<LV2_Feature>] = []
        var strings: [UnsafeMutablePointer<CChar>] = []
        for (uri, data) in entries {
            let bytes = Array(uri.utf8CString)
            let name = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count)
            name.initialize(from: bytes, count: bytes.count)
            strings.append(name)
            let f = UnsafeMutablePointer<LV2_Feature>.allocate(capacity: 1)
            f.initialize(to: LV2_Feature(URI: UnsafePointer(name), data: data))
            features.append(f)
        }
        self.features = features
        self.strings = strings
        list = .allocate(capacity: features.count + 1)
        for (i, f) in features.enumerated() { list[i] = UnsafePointer(f) }
        list[features.count] = nil
    }

    deinit {
        for f in features { f.deallocate() }
        for s in strings { s.deallocate() }
        list.deallocate()
        options?.deallocate()
        optionValues?.deallocate()
    }

    private enum OptionValue { case int(Int32), float(Float) }

    private static func optionList(_ o: Options, map: URIDMap) -> [(key: String, type: LV2_URID, value: OptionValue)] {
        let bufSize = "http://lv2plug.in/ns/ext/buf-size#"
        let int = map.id(String(cString: tactus_uri_atom_Int))
        let float = map.id(String(cString: tactus_uri_atom_Float))
        var list: [(key: String, type: LV2_URID, value: OptionValue)] = [
            (bufSize + "maxBlockLength", int, .int(o.maxBlockLength)),
            (bufSize + "minBlockLength", int, .int(o.minBlockLength)),
        ]
        if let n = o.nominalBlockLength { list.append((bufSize + "nominalBlockLength", int, .int(n))) }
        list.append((bufSize + "sequenceSize", int, .int(o.sequenceSize)))
        if let r = o.sampleRate { list.append(("http://lv2plug.in/ns/ext/parameters#sampleRate", float, .float(r))) }
        return list
    }
}
