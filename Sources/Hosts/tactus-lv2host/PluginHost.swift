import CLilv
import CLV2
import LV2Atoms
import LV2HostKit
import CTestHost
import Foundation
import TactusOffline

/// One Tactus instance in lilv, with the features a real host gives it.
final class PluginHost {
    let world: OpaquePointer
    let plugin: OpaquePointer
    let instance: UnsafeMutablePointer<LilvInstance>
    let map: URIDMap
    let uris: URIDTable
    let worker: SynchronousWorker?
    let control: ControlSequence
    let midiOut: OutputSequence
    let notify: OutputSequence
    /// The `clock` control input (§12): 0 (off) unless set.
    let clockToggle: UnsafeMutablePointer<Float>
    /// The `midi_thru` control input (§7.5): 0 (off) until a script's `thru on`.
    let thruToggle: UnsafeMutablePointer<Float>
    /// The `song` control input (§9.5): 1 (on, the port's default) until a script's `song off`.
    let songToggle: UnsafeMutablePointer<Float>
    /// The `playing` and `queued` control outputs (§9.9), as a host connects them.
    let sceneOutputs: UnsafeMutablePointer<Float>
    private let log: UnsafeMutablePointer<LV2_Log_Log>
    let features: HostFeatures
    var workerInterface: UnsafePointer<LV2_Worker_Interface>?
    var stateInterface: UnsafePointer<LV2_State_Interface>?

    struct Setup {
        var bundle: String?
        var sampleRate: Double
        var controlCapacity = 1 << 17
        var midiCapacity = 1 << 20
        var notifyCapacity = 1 << 17
        var workerRing = 1 << 20
        var withWorker = true
        var maxBlockLength: Int32 = 8192
    }

    struct HostError: Error, CustomStringConvertible { var description: String }

    init(_ setup: Setup) throws {
        let world = lilv_world_new()!
        self.world = world
        if let bundle = setup.bundle {
            let path = bundle.hasSuffix("/") ? bundle : bundle + "/"
            let uri = lilv_new_file_uri(world, nil, path)
            lilv_world_load_bundle(world, uri)
            lilv_node_free(uri)
        } else {
            lilv_world_load_all(world)
        }
        let pluginURI = lilv_new_uri(world, TACTUS_URI)
        defer { lilv_node_free(pluginURI) }
        guard let p = lilv_plugins_get_by_uri(lilv_world_get_all_plugins(world), pluginURI) else {
            lilv_world_free(world)
            throw HostError(description: "\(TACTUS_URI) not found (bundle: \(setup.bundle ?? "LV2_PATH"))")
        }
        plugin = p
        map = URIDMap()
        uris = URIDTable(map)
        let worker = setup.withWorker ? SynchronousWorker(capacity: setup.workerRing) : nil
        self.worker = worker
        control = ControlSequence(capacity: setup.controlCapacity, sequenceType: uris.atomSequence)
        midiOut = OutputSequence(capacity: setup.midiCapacity)
        notify = OutputSequence(capacity: setup.notifyCapacity)
        clockToggle = .allocate(capacity: 1)
        clockToggle.initialize(to: 0)
        thruToggle = .allocate(capacity: 1)
        thruToggle.initialize(to: 0)
        songToggle = .allocate(capacity: 1)
        songToggle.initialize(to: 1)
        sceneOutputs = .allocate(capacity: 2)
        sceneOutputs.initialize(repeating: 0, count: 2)

        let log = UnsafeMutablePointer<LV2_Log_Log>.allocate(capacity: 1)
        log.initialize(to: LV2_Log_Log())
        tactus_host_log_init(log)
        self.log = log
        features = HostFeatures(
            map: map, log: log, worker: worker,
            options: HostFeatures.Options(maxBlockLength: setup.maxBlockLength, minBlockLength: 0, sequenceSize: Int32(setup.midiCapacity)))

        guard let i = lilv_plugin_instantiate(plugin, setup.sampleRate, features.list) else {
            throw HostError(description: "the plugin refused to instantiate")
        }
        instance = i
        workerInterface = lilv_instance_get_extension_data(instance, "http://lv2plug.in/ns/ext/worker#interface")?
            .assumingMemoryBound(to: LV2_Worker_Interface.self)
        stateInterface = lilv_instance_get_extension_data(instance, "http://lv2plug.in/ns/ext/state#interface")?
            .assumingMemoryBound(to: LV2_State_Interface.self)
    }

    func connectAll(control: Bool = true, midi: Bool = true, notify: Bool = true) {
        lilv_instance_connect_port(instance, TactusPort.control, control ? self.control.buffer : nil)
        lilv_instance_connect_port(instance, TactusPort.midiOut, midi ? midiOut.buffer : nil)
        lilv_instance_connect_port(instance, TactusPort.notify, notify ? self.notify.buffer : nil)
        lilv_instance_connect_port(instance, TactusPort.clock, clockToggle)
        lilv_instance_connect_port(instance, TactusPort.midiThru, thruToggle)
        lilv_instance_connect_port(instance, TactusPort.song, songToggle)
        lilv_instance_connect_port(instance, TactusPort.playing, sceneOutputs)
        lilv_instance_connect_port(instance, TactusPort.queued, sceneOutputs + 1)
    }

    deinit {
        lilv_instance_free(instance)
        lilv_world_free(world)
        log.deallocate()
        clockToggle.deallocate()
        thruToggle.deallocate()
        songToggle.deallocate()
        sceneOutputs.deallocate()
    }

    var handle: LV2_Handle { lilv_instance_get_handle(instance) }
}
