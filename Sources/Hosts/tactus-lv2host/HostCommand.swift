import ArgumentParser
import CRTCheckHooks
import CLilv
import LV2Atoms
import LV2HostKit
import CTestHost
import Foundation
import TactusEngine
import TactusModel
import TactusOffline

/// The project's own LV2 test host: loads Tactus through lilv, gives it the
/// features a real host gives (urid:map/unmap, a synchronous worker, options,
/// log, thread-safe restore), feeds it a transport script as `time:Position`
/// atoms in the blocks asked for, and prints the MIDI it emits as an event log.
@main
struct HostCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tactus-lv2host",
        abstract: "Run the Tactus LV2 plugin through lilv over a transport script and print its MIDI as an event log.")

    @Option(help: "Transport script (docs/transport-script.md).") var transport: String
    @Option(help: "Pattern text file, restored as state before the first block (default: the plugin's own).") var pattern: String?
    @Option(help: "Bundle folder (default: LV2_PATH).") var bundle: String?
    @Option(help: "Sample rate (default: the script's, else 48000).") var rate: Double?
    @Option(help: "Block sizes: N, a list, or random:MIN-MAX@SEED.") var blocks: String = "256"
    @Option(help: "MIDI output buffer, bytes.") var midiCapacity: Int = 1 << 20
    @Option(help: "Notify output buffer, bytes.") var notifyCapacity: Int = 1 << 17
    @Option(help: "The host's worker ring, bytes.") var workerRing: Int = 1 << 20
    @Flag(help: "Give the plugin no worker.") var noWorker = false
    @Option(help: "Ports left unconnected: a list of control, midi, notify.") var disconnect: String = ""
    @Option(help: "Write the notify port's messages here (default: standard error).") var notify: String?
    @Flag(help: "Count allocator and lock calls inside run() and work_response() (needs libTactusRTCheck.so in LD_PRELOAD).") var rtcheck = false
    @Option(help: "Deactivate and reactivate the plugin at the first block boundary at or after these frames (a list).") var deactivateAt: String = ""
    @Option(help: "Save the plugin's state (LV2 Turtle) into this folder at the end.") var saveState: String?
    @Option(help: "Restore the plugin's state from this folder (written by --save-state) before the first block.") var restoreState: String?
    @Option(help: "Write the pattern text the plugin saves at the end into this file, as it is.") var savePattern: String?
    @Option(help: "With --editor: write the pattern text the editor holds at the end into this file.") var editorText: String?
    @Flag(help: "Turn the plugin's 'clock' control input on: MIDI clock on its MIDI output (timing contract §12).") var clock = false
    @Option(help: "Flip the 'clock' control input at the first block boundary at or after these frames (a list).") var clockToggleAt: String = ""
    @Flag(help: "Print nothing but the report (for long runs).") var quiet = false
    @Flag(help: "Act as an open editor: urn:tactus:editorOpen at the first block and every second, an audition every half second (timing contract §8); follow the plugin's pattern text and send the script's 'edit' actions as the editor sends edits (docs/plugin.md, \"Messages\").") var editor = false

    func run() throws {
        let scriptText = try String(contentsOfFile: transport, encoding: .utf8)
        let script: TransportScript
        do { script = try TransportScript(parsing: scriptText) } catch { throw ValidationError("\(transport):\(error.line): \(error.reason)") }
        let sampleRate = rate ?? script.sampleRate ?? 48000
        let plan: BlockPlan
        do { plan = try BlockPlan(parsing: blocks) } catch { throw ValidationError(error.description) }
        if rtcheck && tactus_rtcheck_hooks_init() == 0 {
            throw ValidationError("--rtcheck needs the interposer: LD_PRELOAD=.../libTactusRTCheck.so")
        }
        let unconnected = Set(disconnect.split(separator: ",").map(String.init))
        let deactivations = deactivateAt.split(separator: ",").compactMap { Int64($0) }
        var pendingToggles = clockToggleAt.split(separator: ",").compactMap { Int64($0) }.sorted()[...]

        let host = try PluginHost(PluginHost.Setup(
            bundle: bundle, sampleRate: sampleRate, midiCapacity: midiCapacity, notifyCapacity: notifyCapacity,
            workerRing: workerRing, withWorker: !noWorker))
        host.connectAll(control: !unconnected.contains("control"), midi: !unconnected.contains("midi"), notify: !unconnected.contains("notify"))
        host.clockToggle.pointee = clock ? 1 : 0
        if let pattern {
            guard let data = FileManager.default.contents(atPath: pattern) else { throw ValidationError("cannot read \(pattern)") }
            try host.restorePattern([UInt8](data))
        }
        if let restoreState { try host.restoreState(from: restoreState) }

        let u = host.uris
        let sequenceType = u.atomSequence
        let chunkType = u.atomChunk
        let objectType = u.atomObject
        let blankType = u.atomBlank
        let midiType = u.midiEvent
        let notifyLog = NotifyLog(path: notify, uris: host.map)
        var out = LogWriter(quiet: quiet)

        lilv_instance_activate(host.instance)
        var sim = HostSimulator(script: script, sampleRate: sampleRate)
        var sizes = plan.makeIterator()
        var start: Int64 = 0
        var blocksRun = 0
        var pendingDeactivations = deactivations.sorted()[...]
        // --editor: what an open editor sends (docs/plugin.md, "The editor").
        let peer = editor ? EditorPeer(host: host, sampleRate: sampleRate) : nil
        while start < script.endFrame {
            if let d = pendingDeactivations.first, d <= start {
                lilv_instance_deactivate(host.instance)
                lilv_instance_activate(host.instance)
                pendingDeactivations = pendingDeactivations.drop { $0 <= start }
            }
            while let t = pendingToggles.first, t <= start {
                host.clockToggle.pointee = host.clockToggle.pointee >= 0.5 ? 0 : 1
                pendingToggles = pendingToggles.dropFirst()
            }
            let n = Int(min(Int64(sizes.next()), script.endFrame - start))
            host.control.clear()
            peer?.beginBlock(start: start, frames: n, control: host.control)
            for input in sim.inputs(blockStart: start, frameCount: n) {
                let frames = Int64(input.offset)
                switch input.input {
                case .position(let p):
                    host.control.append(frames: frames, type: p.asBlank ? blankType : objectType, body: AtomBody.position(p, uris: host.uris))
                case .midi(let bytes):
                    host.control.append(frames: frames, type: midiType, body: bytes)
                case .pattern(let path):
                    let file = resolve(path)
                    guard let data = FileManager.default.contents(atPath: file) else { throw ValidationError("cannot read \(file)") }
                    host.control.append(frames: frames, type: objectType, body: AtomBody.patchSet(
                        property: u.pattern, valueType: u.atomString, text: [UInt8](data), uris: u))
                case .patternFile(let path):
                    let file = URL(fileURLWithPath: resolve(path)).standardizedFileURL.path
                    host.control.append(frames: frames, type: objectType, body: AtomBody.patchSet(
                        property: u.patternFile, valueType: u.atomPath, text: Array(file.utf8), uris: u))
                case .thru(let on):
                    // The plugin reads its port at the block start: the block the action falls in.
                    host.thruToggle.pointee = on ? 1 : 0
                case .song(let on):
                    host.songToggle.pointee = on ? 1 : 0
                case .request(let name, let grid):
                    // As the editor asks (docs/plugin.md, "Messages"): by number, in the text the plugin holds.
                    let names = try host.patternNames()
                    guard let i = names.firstIndex(of: Array(name.utf8)) else {
                        FileHandle.standardError.write(Data("frame \(start + frames): request '\(name)': the plugin's text has no pattern of that name\n".utf8))
                        continue
                    }
                    host.control.append(frames: frames, type: objectType, body: AtomBody.request(pattern: Int32(i + 1), when: grid?.text, uris: u))
                case .laneMutes(let bits):
                    host.control.append(frames: frames, type: objectType, body: AtomBody.patchSetLong(
                        property: u.laneMutes, value: Int64(bitPattern: bits), uris: u))
                case .get(let property):
                    host.control.append(frames: frames, type: objectType, body: AtomBody.patchGet(property: property.map { host.map.id("urn:tactus:" + $0) }, uris: u))
                case .editorEdit(let path):
                    guard let peer else { throw ValidationError("'edit' needs --editor (an editor makes the edit)") }
                    let file = resolve(path)
                    guard let data = FileManager.default.contents(atPath: file) else { throw ValidationError("cannot read \(file)") }
                    peer.edit([UInt8](data), at: start + frames)
                }
            }
            host.midiOut.prepare(chunkType: chunkType)
            host.notify.prepare(chunkType: chunkType)

            if rtcheck { tactus_rtcheck_hooks_begin() }
            lilv_instance_run(host.instance, UInt32(n))
            if rtcheck { tactus_rtcheck_hooks_end() }

            if !unconnected.contains("midi") {
                for e in try host.midiOut.read(sequenceType: sequenceType) where e.type == midiType {
                    out.write(LoggedEvent(frame: start + e.frames, bytes: e.body))
                }
            }
            if !unconnected.contains("notify") {
                let events = try host.notify.read(sequenceType: sequenceType)
                for e in events { notifyLog.write(frame: start + e.frames, type: e.type, body: e.body) }
                peer?.notify(events, at: start + Int64(n))
            }
            if let worker = host.worker, let iface = host.workerInterface {
                worker.runRequests(iface, host.handle)
                worker.deliverResponses(iface, host.handle) { call in
                    if rtcheck { tactus_rtcheck_hooks_begin() }
                    call()
                    if rtcheck { tactus_rtcheck_hooks_end() }
                }
            }
            start += Int64(n)
            blocksRun += 1
        }
        lilv_instance_deactivate(host.instance)
        out.flush()
        if let peer, let known = peer.sync.known {
            // What the editor holds at the end, beside what the plugin saves (tests compare them).
            FileHandle.standardError.write(Data(("editor: \(peer.edits) edits, \(peer.received) texts received; holds \(known.count) bytes, hash "
                + String(TextHash.of(known), radix: 16) + (peer.sync.isEditable ? "" : " (not what plays)") + "\n").utf8))
        }
        if let saveState { try host.saveState(to: saveState) }
        if let savePattern { try Data(host.savedPattern()).write(to: URL(fileURLWithPath: savePattern)) }
        if let editorText, let peer { try Data(peer.sync.known ?? []).write(to: URL(fileURLWithPath: editorText)) }
        if rtcheck {
            let allocations = tactus_rtcheck_hooks_allocations()
            let locks = tactus_rtcheck_hooks_locks()
            let first = String(cString: tactus_rtcheck_hooks_first())
            let caller = String(cString: tactus_rtcheck_hooks_first_caller())
            FileHandle.standardError.write(Data((
                "rtcheck: \(blocksRun) blocks, \(allocations) allocator calls and \(locks) lock calls inside run() and work_response()"
                + (first.isEmpty ? "" : " (first: \(first), called from \(caller))") + "\n").utf8))
        }
    }

    func resolve(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        return ((transport as NSString).deletingLastPathComponent as NSString).appendingPathComponent(path)
    }
}

/// The MIDI log on standard output, buffered.
struct LogWriter {
    let quiet: Bool
    private var buffer = ""

    init(quiet: Bool) { self.quiet = quiet }

    mutating func write(_ event: LoggedEvent) {
        guard !quiet else { return }
        buffer += EventLog.line(event)
        buffer += "\n"
        if buffer.utf8.count > 1 << 16 { flush() }
    }

    mutating func flush() {
        FileHandle.standardOutput.write(Data(buffer.utf8))
        buffer = ""
    }
}

/// The notify port's messages, one a line: `FRAME patch:Set PROPERTY TYPE VALUE` or `FRAME state:StateChanged`.
final class NotifyLog {
    let handle: FileHandle
    let uris: URIDMap

    init(path: String?, uris: URIDMap) {
        self.uris = uris
        if let path, FileManager.default.createFile(atPath: path, contents: nil), let h = FileHandle(forWritingAtPath: path) {
            handle = h
        } else {
            handle = FileHandle.standardError
        }
    }

    func write(frame: Int64, type: LV2_URID, body: [UInt8]) {
        handle.write(Data((describe(frame: frame, type: type, body: body) + "\n").utf8))
    }

    private func short(_ id: LV2_URID) -> String {
        let uri = uris.uri(id) ?? "\(id)"
        for (prefix, name) in [
            ("http://lv2plug.in/ns/ext/patch#", "patch:"), ("http://lv2plug.in/ns/ext/state#", "state:"),
            ("http://lv2plug.in/ns/ext/atom#", "atom:"),
        ] where uri.hasPrefix(prefix) { return name + uri.dropFirst(prefix.count) }
        return uri
    }

    private func describe(frame: Int64, type: LV2_URID, body: [UInt8]) -> String {
        guard body.count >= AtomLayout.objectHeaderBytes else { return "\(frame) \(short(type)) (\(body.count) bytes)" }
        return body.withUnsafeBytes { b in
            // Any type: the log shows what the plugin wrote, object or not.
            var object = AtomObjectReader(
                properties: b.baseAddress! + AtomLayout.objectHeaderBytes, byteCount: b.count - AtomLayout.objectHeaderBytes,
                objectType: b.loadUnaligned(fromByteOffset: 4, as: UInt32.self))
            var line = "\(frame) \(short(object.objectType))"
            while let (key, value) = object.next() {
                let text: String
                switch short(value.type) {
                case "atom:URID": text = short(value.body.loadUnaligned(as: UInt32.self))
                case "atom:Long": text = "\(value.body.loadUnaligned(as: Int64.self))"
                case "atom:Int" where value.size >= 4: text = "\(value.body.loadUnaligned(as: Int32.self))"
                case "atom:Double" where value.size >= 8: text = "\(value.body.loadUnaligned(as: Double.self))"
                default:
                    text = String(decoding: value.bytes.prefix { $0 != 0 }, as: UTF8.self)
                        .replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\n", with: "\\n")
                }
                line += " \(short(key))=\(text)"
            }
            return line
        }
    }
}
