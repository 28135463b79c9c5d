import CLilv
import LV2HostKit
import CTestHost
import Foundation
import TactusOffline

/// One Tactus instance in lilv, with the features a real host gives it.
final class PluginHost {
    let world: OpaquePointer
    let plugin: OpaquePointer
    let instance: UnsafeMutablePointer<LilvInstance>
    let uris: URIDMap
    let worker: SynchronousWorker?
    let control: AtomSequenceBuffer
    let midiOut: AtomSequenceBuffer
    let notify: AtomSequenceBuffer
    private let log: UnsafeMutablePointer<LV2_Log_Log>
    private let options: UnsafeMutablePointer<LV2_Options_Option>
    private let optionValues: UnsafeMutablePointer<Int32>
    private let featureStorage: [UnsafeMutablePointer<LV2_Feature>]
    let features: UnsafeMutablePointer<UnsafePointer<LV2_Feature>?>
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
        let pluginURI = lilv_new_uri(world, "urn:tactus:sequencer")
        defer { lilv_node_free(pluginURI) }
        guard let p = lilv_plugins_get_by_uri(lilv_world_get_all_plugins(world), pluginURI) else {
            lilv_world_free(world)
            throw HostError(description: "urn:tactus:sequencer not found (bundle: \(setup.bundle ?? "LV2_PATH"))")
        }
        plugin = p
        let uris = URIDMap()
        self.uris = uris
        let worker = setup.withWorker ? SynchronousWorker(ringCapacity: setup.workerRing) : nil
        self.worker = worker
        control = AtomSequenceBuffer(capacity: setup.controlCapacity)
        midiOut = AtomSequenceBuffer(capacity: setup.midiCapacity)
        notify = AtomSequenceBuffer(capacity: setup.notifyCapacity)

        let log = UnsafeMutablePointer<LV2_Log_Log>.allocate(capacity: 1)
        log.initialize(to: LV2_Log_Log())
        tactus_host_log_init(log)
        self.log = log

        let optionValues = UnsafeMutablePointer<Int32>.allocate(capacity: 3)
        optionValues[0] = setup.maxBlockLength
        optionValues[1] = 0
        optionValues[2] = Int32(setup.midiCapacity)
        self.optionValues = optionValues
        let intType = uris.id("http://lv2plug.in/ns/ext/atom#Int")
        let optionList = [
            LV2_Options_Option(context: LV2_OPTIONS_INSTANCE, subject: 0, key: uris.id("http://lv2plug.in/ns/ext/buf-size#maxBlockLength"), size: 4, type: intType, value: optionValues),
            LV2_Options_Option(context: LV2_OPTIONS_INSTANCE, subject: 0, key: uris.id("http://lv2plug.in/ns/ext/buf-size#minBlockLength"), size: 4, type: intType, value: optionValues + 1),
            LV2_Options_Option(context: LV2_OPTIONS_INSTANCE, subject: 0, key: uris.id("http://lv2plug.in/ns/ext/buf-size#sequenceSize"), size: 4, type: intType, value: optionValues + 2),
            LV2_Options_Option(context: LV2_OPTIONS_INSTANCE, subject: 0, key: 0, size: 0, type: 0, value: nil),
        ]
        let options = UnsafeMutablePointer<LV2_Options_Option>.allocate(capacity: optionList.count)
        options.initialize(from: optionList, count: optionList.count)
        self.options = options

        var storage: [UnsafeMutablePointer<LV2_Feature>] = []
        func add(_ uri: String, _ data: UnsafeMutableRawPointer?) {
            let f = UnsafeMutablePointer<LV2_Feature>.allocate(capacity: 1)
            f.initialize(to: LV2_Feature(URI: strdup(uri), data: data))
            storage.append(f)
        }
        add("http://lv2plug.in/ns/ext/urid#map", UnsafeMutableRawPointer(uris.map))
        add("http://lv2plug.in/ns/ext/urid#unmap", UnsafeMutableRawPointer(uris.unmap))
        add("http://lv2plug.in/ns/ext/log#log", UnsafeMutableRawPointer(log))
        add("http://lv2plug.in/ns/ext/options#options", UnsafeMutableRawPointer(options))
        add("http://lv2plug.in/ns/ext/state#threadSafeRestore", nil)
        if let worker { add("http://lv2plug.in/ns/ext/worker#schedule", UnsafeMutableRawPointer(worker.schedule)) }
        let features = UnsafeMutablePointer<UnsafePointer<LV2_Feature>?>.allocate(capacity: storage.count + 1)
        for (i, f) in storage.enumerated() { features[i] = UnsafePointer(f) }
        features[storage.count] = nil
        featureStorage = storage
        self.features = features

        guard let i = lilv_plugin_instantiate(plugin, setup.sampleRate, features) else {
            throw HostError(description: "the plugin refused to instantiate")
        }
        instance = i
        workerInterface = lilv_instance_get_extension_data(instance, "http://lv2plug.in/ns/ext/worker#interface")?
            .assumingMemoryBound(to: LV2_Worker_Interface.self)
        stateInterface = lilv_instance_get_extension_data(instance, "http://lv2plug.in/ns/ext/state#interface")?
            .assumingMemoryBound(to: LV2_State_Interface.self)
    }

    func connectAll(control: Bool = true, midi: Bool = true, notify: Bool = true) {
        lilv_instance_connect_port(instance, 0, control ? UnsafeMutableRawPointer(self.control.base) : nil)
        lilv_instance_connect_port(instance, 1, midi ? UnsafeMutableRawPointer(midiOut.base) : nil)
        lilv_instance_connect_port(instance, 2, notify ? UnsafeMutableRawPointer(self.notify.base) : nil)
    }

    deinit {
        lilv_instance_free(instance)
        lilv_world_free(world)
        for f in featureStorage {
            free(UnsafeMutableRawPointer(mutating: f.pointee.URI))
            f.deallocate()
        }
        features.deallocate()
        optionValues.deallocate()
        options.deallocate()
        log.deallocate()
    }

    var handle: LV2_Handle { lilv_instance_get_handle(instance) }
}
