import CLV2
import CLilv
import CTestHost
import Glibc
import LV2Atoms
import LV2HostKit

/// Any LV2 instrument, hosted through lilv with the project's host kit
/// (docs/bounce.md, B8): a MIDI atom input, one or two audio outputs (a mono
/// output is copied to both channels), the synchronous worker, `log:log`,
/// options (sample rate, block lengths) and bounded block lengths.
///
/// Events go into the MIDI input at frame 0 of the run that starts at their
/// frame (the renderer splits blocks there), so the instrument plays each at
/// its exact frame whether or not it honours frame offsets. `--set
/// SYMBOL=VALUE` sets a control input; `--set URI=PATH` (a key with a colon)
/// sends a `patch:Set` of a file parameter, such as a-fluidsynth's
/// `urn:ardour:a-fluidsynth:sf2file`, before the first frame, and the worker
/// runs until the plugin has loaded it.
///
/// One thread (the one rendering). Memory O(block length).
public final class LV2Instrument: BounceInstrument {
    public let sampleRate: Int
    public let maximumBlockLength: Int
    public let uri: String
    private let world: OpaquePointer
    private let instance: UnsafeMutablePointer<LilvInstance>
    private let map = URIDMap()
    private let uris: URIDTable
    private let worker = SynchronousWorker(capacity: 1 << 20)
    private let workerInterface: UnsafePointer<LV2_Worker_Interface>?
    private let features: HostFeatures
    private let log = UnsafeMutablePointer<LV2_Log_Log>.allocate(capacity: 1)
    private let midiInput: ControlSequence
    private var otherInputs: [ControlSequence] = []
    private var outputs: [OutputSequence] = []
    private var audioOutputs: [UnsafeMutablePointer<Float>] = []
    private var zeroBuffers: [UnsafeMutablePointer<Float>] = []
    private let controls: UnsafeMutablePointer<Float>
    private var pending: [BounceEvent] = []
    private let midiEventType: LV2_URID

    /// Features this host gives (anything else a plugin requires refuses it).
    static let providedFeatures: Set<String> = [
        "http://lv2plug.in/ns/ext/urid#map", "http://lv2plug.in/ns/ext/urid#unmap", "http://lv2plug.in/ns/ext/log#log",
        "http://lv2plug.in/ns/ext/worker#schedule", "http://lv2plug.in/ns/ext/options#options",
        "http://lv2plug.in/ns/ext/buf-size#boundedBlockLength", "http://lv2plug.in/ns/lv2core#isLive",
        "http://lv2plug.in/ns/lv2core#inPlaceBroken", "http://lv2plug.in/ns/lv2core#hardRTCapable",
    ]

    /// A saved state or preset to restore before the first frame (`--state`, `--preset`).
    public enum StateSource: Sendable {
        /// A state file (`state.ttl`), or a folder holding one (a state lilv or a host saved).
        case file(String)
        /// A preset URI known to the LV2 world (`lv2ls`/`lv2info` list them).
        case preset(String)
    }

    public init(
        uri: String, sampleRate: Int, settings: [(key: String, value: String)] = [], state: StateSource? = nil, blockLength: Int = 1024
    ) throws(BounceError) {
        self.uri = uri
        self.sampleRate = sampleRate
        maximumBlockLength = blockLength
        LibraryLock.lilv.lock()
        defer { LibraryLock.lilv.unlock() }
        let world = lilv_world_new()!
        self.world = world
        // Freed last on a refusal: the nodes below (freed by their defers, which run
        // first) belong to it.
        var ready = false
        defer { if !ready { lilv_world_free(world) } }
        lilv_world_load_all(world)
        let uriNode = lilv_new_uri(world, uri)
        defer { lilv_node_free(uriNode) }
        guard let uriNode, let plugin = lilv_plugins_get_by_uri(lilv_world_get_all_plugins(world), uriNode) else {
            throw BounceError("no LV2 plugin '\(uri)' is installed (lv2ls lists those that are; LV2_PATH says where to look)")
        }
        func node(_ u: String) -> OpaquePointer { lilv_new_uri(world, u) }
        let lv2 = "http://lv2plug.in/ns/lv2core#"
        let inputClass = node(lv2 + "InputPort"), outputClass = node(lv2 + "OutputPort"), controlClass = node(lv2 + "ControlPort")
        let audioClass = node(lv2 + "AudioPort"), atomClass = node("http://lv2plug.in/ns/ext/atom#AtomPort")
        let midiType = node("http://lv2plug.in/ns/ext/midi#MidiEvent")
        defer { for n in [inputClass, outputClass, controlClass, audioClass, atomClass, midiType] { lilv_node_free(n) } }

        // Refuse early, with the reason: required features we lack, no MIDI input, no audio output.
        var missing: [String] = []
        if let required = lilv_plugin_get_required_features(plugin) {
            var i = lilv_nodes_begin(required)
            while !lilv_nodes_is_end(required, i) {
                let feature = String(cString: lilv_node_as_uri(lilv_nodes_get(required, i)))
                if !Self.providedFeatures.contains(feature) { missing.append(feature) }
                i = lilv_nodes_next(required, i)
            }
            lilv_nodes_free(required)
        }
        let portCount = Int(lilv_plugin_get_num_ports(plugin))
        var midiPort: Int?
        var audioPorts: [Int] = []
        var symbols: [String: Int] = [:]
        var controlInputs: [String] = []
        for index in 0..<portCount {
            let port = lilv_plugin_get_port_by_index(plugin, UInt32(index))!
            let symbol = String(cString: lilv_node_as_string(lilv_port_get_symbol(plugin, port)))
            symbols[symbol] = index
            if lilv_port_is_a(plugin, port, atomClass), lilv_port_is_a(plugin, port, inputClass), midiPort == nil,
                lilv_port_supports_event(plugin, port, midiType)
            {
                midiPort = index
            }
            if lilv_port_is_a(plugin, port, audioClass), lilv_port_is_a(plugin, port, outputClass) { audioPorts.append(index) }
            if lilv_port_is_a(plugin, port, controlClass), lilv_port_is_a(plugin, port, inputClass) { controlInputs.append(symbol) }
        }
        let name = lilv_plugin_get_name(plugin).map { n -> String in
            defer { lilv_node_free(n) }
            return String(cString: lilv_node_as_string(n))
        } ?? uri
        func refuse(_ why: String) -> BounceError {
            return BounceError("LV2 plugin '\(uri)' (\(name)) \(why)")
        }
        if !missing.isEmpty { throw refuse("requires \(missing.joined(separator: ", ")), which tactus bounce does not provide") }
        guard let midiPort else { throw refuse("has no MIDI input: it is not an instrument") }
        guard !audioPorts.isEmpty else { throw refuse("has no audio output") }

        // The settings, checked before anything is instantiated.
        var controlValues: [(Int, Float)] = []
        var fileProperties: [(String, String)] = []
        for (key, value) in settings {
            if key.contains(":") {
                fileProperties.append((key, value))
            } else if let index = symbols[key], controlInputs.contains(key) {
                guard let v = Float(value), v.isFinite else { throw refuse("port '\(key)': '\(value)' is not a number") }
                controlValues.append((index, v))
            } else {
                throw refuse("has no control input '\(key)' (it has: \(controlInputs.joined(separator: ", ")))")
            }
        }

        uris = URIDTable(map)
        midiEventType = uris.midiEvent
        log.initialize(to: LV2_Log_Log())
        tactus_host_log_init(log)
        features = HostFeatures(
            map: map, log: log, worker: worker,
            options: HostFeatures.Options(
                maxBlockLength: Int32(blockLength), minBlockLength: 1, nominalBlockLength: Int32(blockLength),
                sequenceSize: 1 << 16, sampleRate: Float(sampleRate)),
            threadSafeRestore: false, boundedBlockLength: true)
        guard let instance = lilv_plugin_instantiate(plugin, Double(sampleRate), features.list) else {
            throw refuse("refused to instantiate at \(sampleRate) Hz")
        }
        self.instance = instance
        workerInterface = lilv_instance_get_extension_data(instance, "http://lv2plug.in/ns/ext/worker#interface")?
            .assumingMemoryBound(to: LV2_Worker_Interface.self)

        controls = .allocate(capacity: max(portCount, 1))
        controls.initialize(repeating: 0, count: max(portCount, 1))
        let defaults = UnsafeMutablePointer<Float>.allocate(capacity: max(portCount, 1))
        let minimums = UnsafeMutablePointer<Float>.allocate(capacity: max(portCount, 1))
        defer { defaults.deallocate(); minimums.deallocate() }
        lilv_plugin_get_port_ranges_float(plugin, minimums, nil, defaults)
        midiInput = ControlSequence(capacity: 1 << 16, sequenceType: uris.atomSequence)
        for index in 0..<portCount {
            let port = lilv_plugin_get_port_by_index(plugin, UInt32(index))!
            let buffer: UnsafeMutableRawPointer
            if index == midiPort {
                buffer = midiInput.buffer
            } else if lilv_port_is_a(plugin, port, controlClass) {
                let d = defaults[index], m = minimums[index]
                controls[index] = d.isNaN ? (m.isNaN ? 0 : m) : d
                buffer = UnsafeMutableRawPointer(controls + index)
            } else if lilv_port_is_a(plugin, port, atomClass) {
                if lilv_port_is_a(plugin, port, inputClass) {
                    let s = ControlSequence(capacity: 1 << 12, sequenceType: uris.atomSequence)
                    otherInputs.append(s)
                    buffer = s.buffer
                } else {
                    let s = OutputSequence(capacity: 1 << 16)
                    outputs.append(s)
                    buffer = s.buffer
                }
            } else {
                // Audio and CV: a block of samples. Inputs stay silent; the first two audio outputs are the bounce.
                let samples = UnsafeMutablePointer<Float>.allocate(capacity: blockLength)
                samples.initialize(repeating: 0, count: blockLength)
                if audioPorts.prefix(2).contains(index) { audioOutputs.append(samples) } else { zeroBuffers.append(samples) }
                buffer = UnsafeMutableRawPointer(samples)
            }
            lilv_instance_connect_port(instance, UInt32(index), buffer)
        }
        if let state {
            let loaded: OpaquePointer?
            switch state {
            case .file(let path):
                var isFolder = false
                var info = stat()
                if stat(path, &info) == 0 { isFolder = (info.st_mode & S_IFMT) == S_IFDIR }
                loaded = lilv_state_new_from_file(world, map.map, nil, isFolder ? path + "/state.ttl" : path)
                guard loaded != nil else { throw refuse("cannot restore state '\(path)': no readable LV2 state there") }
            case .preset(let presetURI):
                let node = lilv_new_uri(world, presetURI)
                defer { lilv_node_free(node) }
                lilv_world_load_resource(world, node)
                loaded = lilv_state_new_from_world(world, map.map, node)
                guard loaded != nil else { throw refuse("has no preset '\(presetURI)' (lv2info \(uri) lists its presets)") }
            }
            // Port values through a context the C callback can reach; then the plugin's own state.
            let context = PortValues(symbols: symbols, controls: controls, uris: uris)
            let setValue: LilvSetPortValueFunc = { symbol, userData, value, size, type in
                guard let symbol, let userData, let value else { return }
                Unmanaged<PortValues>.fromOpaque(userData).takeUnretainedValue().set(String(cString: symbol), value, size, type)
            }
            lilv_state_restore(loaded, instance, setValue, Unmanaged.passUnretained(context).toOpaque(), 0, features.list)
            lilv_state_free(loaded)
        }
        for (index, value) in controlValues { controls[index] = value }
        lilv_instance_activate(instance)

        // File parameters: patch:Set, then blocks (discarded: they are before frame 0)
        // until the worker has loaded what was asked and answered.
        for (property, path) in fileProperties {
            let absolute = path.hasPrefix("/") ? path : Self.currentDirectory() + "/" + path
            midiInput.append(frames: 0, type: uris.atomObject, body: AtomBody.patchSet(
                property: map.id(property), valueType: uris.atomPath, text: Array(absolute.utf8), uris: uris))
        }
        let scratchLeft = UnsafeMutablePointer<Float>.allocate(capacity: blockLength)
        let scratchRight = UnsafeMutablePointer<Float>.allocate(capacity: blockLength)
        defer { scratchLeft.deallocate(); scratchRight.deallocate() }
        for _ in 0..<(fileProperties.isEmpty ? 1 : 8) {
            run(frameCount: min(256, blockLength), left: scratchLeft, right: scratchRight)
        }
        try reset()
        ready = true
    }

    deinit {
        LibraryLock.lilv.lock()
        defer { LibraryLock.lilv.unlock() }
        lilv_instance_deactivate(instance)
        lilv_instance_free(instance)
        lilv_world_free(world)
        controls.deallocate()
        for b in audioOutputs + zeroBuffers { b.deallocate() }
        log.deallocate()
    }

    /// Where a restored state's port values go: control inputs by symbol.
    private final class PortValues {
        let symbols: [String: Int]
        let controls: UnsafeMutablePointer<Float>
        let uris: URIDTable
        init(symbols: [String: Int], controls: UnsafeMutablePointer<Float>, uris: URIDTable) {
            self.symbols = symbols
            self.controls = controls
            self.uris = uris
        }
        func set(_ symbol: String, _ value: UnsafeRawPointer, _ size: UInt32, _ type: UInt32) {
            guard let index = symbols[symbol] else { return }
            if type == uris.atomFloat, size == 4 { controls[index] = value.loadUnaligned(as: Float.self) }
            else if type == uris.atomDouble, size == 8 { controls[index] = Float(value.loadUnaligned(as: Double.self)) }
            else if type == uris.atomInt, size == 4 { controls[index] = Float(value.loadUnaligned(as: Int32.self)) }
            else if type == uris.atomLong, size == 8 { controls[index] = Float(value.loadUnaligned(as: Int64.self)) }
            else if type == uris.atomBool, size == 4 { controls[index] = value.loadUnaligned(as: Int32.self) != 0 ? 1 : 0 }
        }
    }

    private static func currentDirectory() -> String {
        guard let cwd = getcwd(nil, 0) else { return "." }
        defer { free(cwd) }
        return String(cString: cwd)
    }

    public func send(_ event: BounceEvent) { pending.append(event) }

    public func render(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frameCount: Int) throws(BounceError) {
        var done = 0
        while done < frameCount {
            let n = min(frameCount - done, maximumBlockLength)
            run(frameCount: n, left: left + done, right: right + done)
            done += n
        }
    }

    /// One `run()`: the pending events at frame 0, the outputs copied, the worker's round.
    private func run(frameCount n: Int, left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>) {
        if let workerInterface, worker.hasResponses { worker.deliverResponses(workerInterface, instance.pointee.lv2_handle) }
        for e in pending {
            midiInput.append(frames: 0, type: midiEventType, body: e.bytes)
        }
        pending.removeAll(keepingCapacity: true)
        for o in outputs { o.prepare(chunkType: uris.atomChunk) }
        lilv_instance_run(instance, UInt32(n))
        midiInput.clear()
        for s in otherInputs { s.clear() }
        left.update(from: audioOutputs[0], count: n)
        right.update(from: audioOutputs[audioOutputs.count > 1 ? 1 : 0], count: n)
        if let workerInterface { worker.runRequests(workerInterface, instance.pointee.lv2_handle) }
    }

    /// All sound off, controllers reset and program 0 on every channel (a GM
    /// reset by messages), then 8192 frames rendered and discarded before
    /// frame 0: the first frame carries the bounce's own events only, and a
    /// synth that ramps up after activation or a reset (Reasonable Synth
    /// does, for about 0.1 s) has done so before the first note.
    public func reset() throws(BounceError) {
        for channel in UInt8(0)..<16 {
            pending.append(BounceEvent(frame: 0, status: 0xB0 | channel, data1: 120, data2: 0))
            pending.append(BounceEvent(frame: 0, status: 0xB0 | channel, data1: 121, data2: 0))
            pending.append(BounceEvent(frame: 0, status: 0xC0 | channel, data1: 0))
        }
        let n = min(256, maximumBlockLength)
        let left = UnsafeMutablePointer<Float>.allocate(capacity: n)
        let right = UnsafeMutablePointer<Float>.allocate(capacity: n)
        defer { left.deallocate(); right.deallocate() }
        for _ in 0..<32 { run(frameCount: n, left: left, right: right) }
    }
}
