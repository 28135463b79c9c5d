import CLV2
import CLilv
import CTestHost
import Glibc
import LV2Atoms
import LV2HostKit
import TactusOffline

/// `--chain` (docs/bounce.md, B10): the Tactus LV2 plugin itself, hosted
/// through lilv and the host kit, plays the pattern under the transport
/// script exactly as a host would run it (positions as `time:Position` atoms
/// from the simulated host, pattern edits as `patch:Set`, the worker run after
/// each block), and what it writes to its MIDI output, at block start +
/// offset, is the schedule the instrument plays.
///
/// The pattern file is handed over with a `patch:Set` of its "Pattern file"
/// in a zero-frame `run()` before frame 0, so the first block already plays
/// it. A script's `request NAME [WHEN]` reaches the plugin as the editor
/// sends a pattern button's click (docs/plugin.md, "Messages"): a
/// `tactus:request` of the pattern's number in the text the plugin holds (read
/// from its saved state, as a host saves a session), at the request's frame,
/// with its WHEN. One thread; O(frames / block + events).
public enum PluginChainSchedule {
    public static let tactusURI = "urn:tactus:sequencer"

    public static func make(
        patternPath: String, script: TransportScript, sampleRate: Int, blockLength: Int = 256,
        resolve: (String) -> String = { $0 }, bundle: String? = nil
    ) throws(BounceError) -> (schedule: BounceSchedule, warnings: [String]) {
        LibraryLock.lilv.lock()
        let world = lilv_world_new()!
        // A bundle named here is loaded first, so its Tactus is the one found
        // (tests use the checkout's build without touching LV2_PATH: setenv
        // while other threads read the environment corrupts the heap).
        if let bundle {
            let node = lilv_new_file_uri(world, nil, bundle.hasSuffix("/") ? bundle : bundle + "/")
            lilv_world_load_bundle(world, node)
            lilv_node_free(node)
        }
        lilv_world_load_all(world)
        let uriNode = lilv_new_uri(world, tactusURI)
        let plugin = lilv_plugins_get_by_uri(lilv_world_get_all_plugins(world), uriNode)
        lilv_node_free(uriNode)
        LibraryLock.lilv.unlock()
        defer {
            LibraryLock.lilv.lock()
            lilv_world_free(world)
            LibraryLock.lilv.unlock()
        }
        guard let plugin else {
            throw BounceError("--chain needs the Tactus plugin (\(tactusURI)): make install, or LV2_PATH=$PWD/.build/lv2 after make")
        }
        let map = URIDMap()
        let uris = URIDTable(map)
        let worker = SynchronousWorker(capacity: 1 << 20)
        let log = UnsafeMutablePointer<LV2_Log_Log>.allocate(capacity: 1)
        log.initialize(to: LV2_Log_Log())
        tactus_host_log_init(log)
        defer { log.deallocate() }
        let features = HostFeatures(
            map: map, log: log, worker: worker,
            options: HostFeatures.Options(maxBlockLength: Int32(blockLength), minBlockLength: 0, sequenceSize: 1 << 20, sampleRate: Float(sampleRate)))
        guard let instance = lilv_plugin_instantiate(plugin, Double(sampleRate), features.list) else {
            throw BounceError("the Tactus plugin refused to instantiate at \(sampleRate) Hz")
        }
        defer {
            lilv_instance_deactivate(instance)
            lilv_instance_free(instance)
        }
        let handle = lilv_instance_get_handle(instance)!
        let stateInterface = lilv_instance_get_extension_data(instance, "http://lv2plug.in/ns/ext/state#interface")?
            .assumingMemoryBound(to: LV2_State_Interface.self)
        let workerInterface = lilv_instance_get_extension_data(instance, "http://lv2plug.in/ns/ext/worker#interface")?
            .assumingMemoryBound(to: LV2_Worker_Interface.self)
        let control = ControlSequence(capacity: 1 << 17, sequenceType: uris.atomSequence)
        let midiOut = OutputSequence(capacity: 1 << 20)
        let notify = OutputSequence(capacity: 1 << 17)
        lilv_instance_connect_port(instance, TactusPort.control, control.buffer)
        lilv_instance_connect_port(instance, TactusPort.midiOut, midiOut.buffer)
        lilv_instance_connect_port(instance, TactusPort.notify, notify.buffer)
        // `midi_thru` (§7.5), set by the script's `thru`; read by the plugin at each block start.
        var thru: Float = 0
        lilv_instance_connect_port(instance, TactusPort.midiThru, &thru)
        // `song` (§9.5), set by the script's `song on|off`; on by default, as the port.
        var song: Float = 1
        lilv_instance_connect_port(instance, TactusPort.song, &song)
        lilv_instance_activate(instance)

        var events: [BounceEvent] = []
        var errors: [String] = []
        var warnings: [String] = []
        func run(_ n: Int, start: Int64) throws(BounceError) {
            midiOut.prepare(chunkType: uris.atomChunk)
            notify.prepare(chunkType: uris.atomChunk)
            lilv_instance_run(instance, UInt32(n))
            control.clear()
            do throws(OutputSequence.Malformed) {
                for e in try midiOut.read(sequenceType: uris.atomSequence) where e.type == uris.midiEvent && e.body.count >= 2 && e.body[0] >= 0x80 && e.body[0] < 0xF0 {
                    events.append(BounceEvent(frame: start + e.frames, status: e.body[0], data1: e.body[1], data2: e.body.count > 2 ? e.body[2] : 0))
                }
                for e in try notify.read(sequenceType: uris.atomSequence) {
                    if let set = PatchSetMessage(e, uris: uris), set.property == uris.error { errors.append(set.text) }
                }
            } catch {
                throw BounceError("the Tactus plugin wrote a malformed output: \(error.description)")
            }
            if let workerInterface { worker.finishBlock(workerInterface, handle) }
        }

        // The pattern, before frame 0.
        control.append(frames: 0, type: uris.atomObject, body: AtomBody.patchSet(
            property: uris.patternFile, valueType: uris.atomPath, text: Array(absolute(patternPath).utf8), uris: uris))
        try run(0, start: 0)
        if let error = errors.first { throw BounceError("the Tactus plugin refused '\(patternPath)': \(error)") }

        var host = HostSimulator(script: script, sampleRate: Double(sampleRate))
        var start: Int64 = 0
        while start < script.endFrame {
            let n = Int(min(Int64(blockLength), script.endFrame - start))
            for input in host.inputs(blockStart: start, frameCount: n) {
                let frames = Int64(input.offset)
                switch input.input {
                case .position(let p):
                    control.append(frames: frames, type: p.asBlank ? uris.atomBlank : uris.atomObject, body: AtomBody.position(p, uris: uris))
                case .midi(let bytes):
                    control.append(frames: frames, type: uris.midiEvent, body: bytes)
                case .pattern(let path), .patternFile(let path), .editorEdit(let path):
                    control.append(frames: frames, type: uris.atomObject, body: AtomBody.patchSet(
                        property: uris.patternFile, valueType: uris.atomPath, text: Array(absolute(resolve(path)).utf8), uris: uris))
                case .laneMutes(let bits):
                    control.append(frames: frames, type: uris.atomObject, body: AtomBody.patchSetLong(property: uris.laneMutes, value: Int64(bitPattern: bits), uris: uris))
                case .thru(let on):
                    thru = on ? 1 : 0
                case .song(let on):
                    song = on ? 1 : 0
                case .request(let name, let grid):
                    // By number, in the text the plugin holds now (an edit it refused leaves its text as it was).
                    let text = stateInterface.flatMap { SavedProperty.bytes(uris.pattern, interface: $0, handle: handle, features: features.list) }
                    let names = OfflineRender.patternNames(text: text)
                    guard let i = names.firstIndex(of: Array(name.utf8)) else {
                        warnings.append(OfflineRender.unknownRequest(name, frame: start + frames, names: names))
                        continue
                    }
                    control.append(frames: frames, type: uris.atomObject, body: AtomBody.request(pattern: Int32(i + 1), when: grid?.text, uris: uris))
                case .get:
                    break
                }
            }
            try run(n, start: start)
            start += Int64(n)
        }
        return (BounceSchedule(events: events, endFrame: script.endFrame, sampleRate: sampleRate), warnings)
    }

    private static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        guard let cwd = getcwd(nil, 0) else { return "./" + path }
        defer { free(cwd) }
        return String(cString: cwd) + "/" + path
    }
}
