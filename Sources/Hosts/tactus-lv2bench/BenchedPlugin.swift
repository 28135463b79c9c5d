import CBenchClock
import CLilv
import LV2HostKit
import TactusOffline
import Glibc

/// One plugin instance under the bench host, with a buffer on every port.
///
/// Ports are given what a host gives them: control inputs their default (or
/// the value the spec sets), designated control inputs (`time:…`) the
/// transport's value each block, audio and CV ports zeroed buffers of the
/// block length, atom inputs a sequence (the position goes to the one that
/// supports `time:Position`), atom outputs free space. Only the plugin's own
/// `run()` is inside the timed region; preparing the inputs, reading the
/// MIDI it wrote and running its worker happen around it.
final class BenchedPlugin {
    let spec: PluginSpec
    private let host: BenchHost
    private let features: HostFeatures
    private let instance: UnsafeMutablePointer<LilvInstance>
    private let runFunction: @convention(c) (LV2_Handle?, UInt32) -> Void
    private let handle: LV2_Handle
    private let worker = SynchronousWorker()
    private let workerInterface: UnsafePointer<LV2_Worker_Interface>?

    private let controls: UnsafeMutablePointer<Float>
    private var floatBuffers: [UnsafeMutablePointer<Float>] = []
    private var inputs: [ControlSequence] = []
    private var outputs: [OutputSequence] = []
    /// The atom input that carries the transport, if the plugin has one.
    private var positionInput: ControlSequence?
    /// The atom output that carries MIDI, if the plugin has one.
    private var midiOutput: OutputSequence?
    /// Control inputs designated `time:…`, refreshed every block.
    private var timePorts: [(index: Int, key: PositionKey)] = []
    private var pendingPathProperties: [(property: String, path: String)]

    /// Note-ons and note-offs in the blocks counted so far.
    private(set) var noteOns = 0
    private(set) var noteOffs = 0

    struct SetupError: Error, CustomStringConvertible { var description: String }

    init(_ spec: PluginSpec, world: OpaquePointer, host: BenchHost, sampleRate: Double, blockLength: Int, atomCapacity: Int) throws {
        self.spec = spec
        self.host = host
        features = host.features(worker: worker)
        pendingPathProperties = spec.pathProperties
        let uriNode = lilv_new_uri(world, spec.uri)
        defer { lilv_node_free(uriNode) }
        guard let plugin = lilv_plugins_get_by_uri(lilv_world_get_all_plugins(world), uriNode) else {
            throw SetupError(description: "\(spec.label): \(spec.uri) is not installed (LV2_PATH, --bundle)")
        }
        guard let instance = lilv_plugin_instantiate(plugin, sampleRate, features.list) else {
            throw SetupError(description: "\(spec.label): \(spec.uri) refused to instantiate")
        }
        self.instance = instance
        handle = instance.pointee.lv2_handle
        guard let run = instance.pointee.lv2_descriptor.pointee.run else { throw SetupError(description: "\(spec.label): no run()") }
        runFunction = run
        workerInterface = lilv_instance_get_extension_data(instance, "http://lv2plug.in/ns/ext/worker#interface")?
            .assumingMemoryBound(to: LV2_Worker_Interface.self)

        // Port classes and the values hosts start control ports at.
        let portCount = Int(lilv_plugin_get_num_ports(plugin))
        controls = .allocate(capacity: max(portCount, 1))
        let defaults = UnsafeMutablePointer<Float>.allocate(capacity: max(portCount, 1))
        let minimums = UnsafeMutablePointer<Float>.allocate(capacity: max(portCount, 1))
        defer { defaults.deallocate(); minimums.deallocate() }
        lilv_plugin_get_port_ranges_float(plugin, minimums, nil, defaults)
        func node(_ uri: String) -> OpaquePointer { lilv_new_uri(world, uri) }
        let lv2 = "http://lv2plug.in/ns/lv2core#"
        let inputClass = node(lv2 + "InputPort"), controlClass = node(lv2 + "ControlPort")
        let audioClass = node(lv2 + "AudioPort"), cvClass = node(lv2 + "CVPort")
        let atomClass = node("http://lv2plug.in/ns/ext/atom#AtomPort")
        let positionType = node("http://lv2plug.in/ns/ext/time#Position")
        let midiType = node("http://lv2plug.in/ns/ext/midi#MidiEvent")
        let designation = node(lv2 + "designation")
        defer { for n in [inputClass, controlClass, audioClass, cvClass, atomClass, positionType, midiType, designation] { lilv_node_free(n) } }

        var symbols: [String: Int] = [:]
        for index in 0..<portCount {
            let port = lilv_plugin_get_port_by_index(plugin, UInt32(index))!
            symbols[String(cString: lilv_node_as_string(lilv_port_get_symbol(plugin, port)))] = index
            let isInput = lilv_port_is_a(plugin, port, inputClass)
            var buffer: UnsafeMutableRawPointer
            if lilv_port_is_a(plugin, port, controlClass) {
                let d = defaults[index], m = minimums[index]
                controls[index] = d.isNaN ? (m.isNaN ? 0 : m) : d
                buffer = UnsafeMutableRawPointer(controls + index)
                if isInput, let designated = lilv_port_get(plugin, port, designation) {
                    let uri = String(cString: lilv_node_as_uri(designated))
                    let designatedKey = host.map.id(uri)
                    if let key = PositionKey.allCases.first(where: { host.uris.time($0.rawValue) == designatedKey }) { timePorts.append((index, key)) }
                    lilv_node_free(designated)
                }
            } else if lilv_port_is_a(plugin, port, atomClass) {
                if isInput {
                    let sequence = ControlSequence(capacity: atomCapacity, sequenceType: host.uris.atomSequence)
                    buffer = sequence.buffer
                    inputs.append(sequence)
                    if positionInput == nil && lilv_port_supports_event(plugin, port, positionType) { positionInput = sequence }
                } else {
                    let sequence = OutputSequence(capacity: atomCapacity)
                    buffer = sequence.buffer
                    outputs.append(sequence)
                    if midiOutput == nil && lilv_port_supports_event(plugin, port, midiType) { midiOutput = sequence }
                }
            } else {
                // Audio, CV, or a kind this host does not know: zeroed samples for a whole block.
                let samples = UnsafeMutablePointer<Float>.allocate(capacity: blockLength)
                samples.initialize(repeating: 0, count: blockLength)
                floatBuffers.append(samples)
                buffer = UnsafeMutableRawPointer(samples)
            }
            lilv_instance_connect_port(instance, UInt32(index), buffer)
        }
        for (symbol, value) in spec.controls {
            guard let index = symbols[symbol] else { throw SetupError(description: "\(spec.label): no port '\(symbol)'") }
            controls[index] = value
        }
        lilv_instance_activate(instance)
    }

    deinit {
        lilv_instance_deactivate(instance)
        lilv_instance_free(instance)
        controls.deallocate()
        for b in floatBuffers { b.deallocate() }
    }

    /// Fills the inputs of the block starting at `frame`: the position when
    /// `sendPosition`, designated time ports always, pending pattern edits.
    func prepareBlock(frame: Int64, sendPosition: Bool, transport: RollingTransport) {
        let uris = host.uris
        for input in inputs { input.clear() }
        if sendPosition, let positionInput {
            positionInput.append(frames: 0, type: uris.atomObject, body: transport.positionBody(atFrame: frame, uris: uris))
        }
        if let control = positionInput ?? inputs.first {
            for (property, path) in pendingPathProperties {
                control.append(frames: 0, type: uris.atomObject, body: AtomBody.patchSet(
                    property: host.map.id(property), valueType: uris.atomPath, text: Array(path.utf8), uris: uris))
            }
        }
        pendingPathProperties = []
        for (index, key) in timePorts { controls[index] = Float(transport.value(of: key, atFrame: frame)) }
        for output in outputs { output.prepare(chunkType: uris.atomChunk) }
    }

    /// Runs one block and returns the clock ticks `run()` took.
    @inline(__always)
    func runTimed(frameCount: UInt32) -> UInt64 {
        let start = tactus_bench_ticks_begin()
        profiledPluginRun(runFunction, handle, frameCount)
        return tactus_bench_ticks_end() &- start
    }

    /// After `run()`: counts the MIDI notes written (when `counting`) and runs the worker.
    func finishBlock(counting: Bool) {
        let uris = host.uris
        if counting, let midiOutput, let events = try? midiOutput.read(sequenceType: uris.atomSequence) {
            for e in events where e.type == uris.midiEvent && e.body.count >= 3 {
                let kind = e.body[0] & 0xF0
                if kind == 0x90 && e.body[2] > 0 { noteOns += 1 } else if kind == 0x80 || kind == 0x90 { noteOffs += 1 }
            }
        }
        if let workerInterface { worker.finishBlock(workerInterface, handle) }
    }
}

/// Calls a plugin's `run()`. A function of its own, never inlined, so that
/// callgrind can count the instructions executed inside `run()` and nothing
/// else (`valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*profiledPluginRun*'`).
@inline(never)
func profiledPluginRun(_ run: @convention(c) (LV2_Handle?, UInt32) -> Void, _ handle: LV2_Handle?, _ frameCount: UInt32) {
    run(handle, frameCount)
}
