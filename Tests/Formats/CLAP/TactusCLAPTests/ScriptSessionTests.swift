import CCLAP
import FileIO
import Glibc
import LV2Atoms
import TactusCLAP
import TactusEngine
import TactusModel
import TactusOffline
import TactusTestSupport
import Testing

/// Transport scripts (docs/transport-script.md) played through the CLAP
/// plugin's process() as a CLAP host plays them: the simulated host's state
/// as `process->transport` at every block start and as a
/// `CLAP_EVENT_TRANSPORT` where it changes inside a block (a tempo change,
/// a stop, a locate, a loop's wrap at its frame), MIDI as `CLAP_EVENT_MIDI`,
/// a script's `mute` lines as the eight mute parameters at their frames.
/// Against `tactus render` of the same script, with the host sending the
/// running beat every block (`keys beat`, `send every-block`): the same
/// events at the same frames, line for line. The reports carry the same
/// beat in both formats: the sessions run at 32,768 or 65,536 Hz, at tempi
/// whose beat a frame is a power-of-two fraction, with locates and loops on
/// such beats, so every beat the host reports is CLAP's fixed point exactly
/// (§11.3) and nothing but the format differs. With the `clock` parameter
/// on (§11.4, §12), the MIDI clock too, against `tactus render --clock`; and
/// the parameter toggled inside blocks acts at its event's frame. And the
/// same blocks written as a plan for the project's C host (tactus-claphost
/// --plan, with tactus.clap itself) log what `tactus-lv2host` logs for the
/// same script with the LV2 plugin.
@Suite("CLAP process() on transport scripts, against tactus render")
struct ScriptSessionTests {
    /// The pattern of a session: the demo, and three lanes of version 2.
    static let patterns: [String] = [
        "tactus-pattern 1\nlength 4\nnote 0 1/2 48 100\nnote 1/3 1/4 64 90\nnote 1 1/2 55 100\nnote 5/2 1/7 67 80 2\nnote 10/3 1/3 57 70\n",
        "tactus-pattern 2\nlane drums length 2 channel 10\nnote 0 1/2 36 120\nnote 1 1/2 38 40\nlane bass length 4\nnote 0 1 40 90\nnote 2 1/2 43 60\n"
            + "lane keys length 3\nnote 1/2 1 64 100\nnote 3/2 1/2 67 30\n",
    ]

    /// A random session: plays, stops, tempo and meter changes, locates, a loop, all notes off, mutes.
    static func randomScript(seed: UInt64) -> (text: String, rate: Double) {
        var rng = SplitMix64(seed: seed)
        func pick<T>(_ items: [T]) -> T { items[Int(rng.next() % UInt64(items.count))] }
        let rate = pick([32768.0, 65536])
        var lines = ["tactus-transport 1", "rate \(Int(rate))", "keys beat", "send every-block"]
        var frame: Int64 = 0
        lines.append("0 tempo \(pick(["120", "90", "60", "240", "135"]))")
        lines.append("0 play")
        for _ in 0..<(4 + Int(rng.next() % 12)) {
            frame += Int64(1 + rng.next() % UInt64(rate * 2))
            switch rng.next() % 10 {
            case 0: lines.append("\(frame) tempo \(pick(["120", "90", "60", "240", "135", "7.5"]))")
            case 1: lines.append("\(frame) meter \(pick([3, 4, 7]))")
            case 2: lines.append("\(frame) stop")
            case 3: lines.append("\(frame) play")
            case 4: lines.append("\(frame) locate \(rng.next() % 64)/8")
            case 5:
                let a = rng.next() % 16
                lines.append("\(frame) loop \(a)/2 \(a + 2 + rng.next() % 8)/2")
            case 6: lines.append("\(frame) loop off")
            case 7: lines.append("\(frame) all-notes-off")
            default:
                let lanes = (0..<3).filter { _ in rng.next() % 2 == 0 }.map(String.init)
                lines.append("\(frame) mute \(lanes.joined(separator: " "))")
            }
        }
        lines.append("\(frame + Int64(rate)) end")
        return (lines.joined(separator: "\n") + "\n", rate)
    }

    /// A random session of issues 29 and 30: a version-3 text with controllers and several patterns
    /// (`RandomSession.controllerText`), played over `randomScript`'s transport with requests on the
    /// text's `switch` grid (the `pattern` parameter's) at random frames; with `song`, three times in
    /// ten a song, turned off at frame 0 (after the transport there, as a parameter event at time 0 comes
    /// after `process->transport`) and on and off again at random frames (the `song` parameter).
    static func controllerSession(seed: UInt64, song: Bool = true) -> (text: String, rate: Double, pattern: [UInt8]) {
        let (script, rate) = randomScript(seed: seed)
        var gen = RandomSession(seed: 31_000 + seed)
        let (pattern, names) = gen.controllerText(song: gen.chance(0.3) && song)
        let end = Int64(script.split(separator: "\n").last!.split(separator: " ")[0])!
        var songAt: [Int64] = []
        if pattern.contains("\nsong ") {
            songAt = [0] + (0..<gen.int(0...3)).map { _ in Int64(gen.int(1...Int(end - 1))) }
        }
        return (gen.withRequests(script, names: names, frames: end, grids: false, songAt: songAt), rate, Array(pattern.utf8))
    }

    /// The CLAP transport of a report of the simulated host (`keys beat`): its beat exactly, or nil when it is not CLAP's fixed point.
    static func transport(_ u: PositionUpdate, time: Int) -> clap_event_transport_t? {
        var t = clap_event_transport_t()
        t.header = clap_event_header_t(
            size: UInt32(MemoryLayout<clap_event_transport_t>.size), time: UInt32(time), space_id: CLAP_CORE_EVENT_SPACE_ID,
            type: UInt16(CLAP_EVENT_TRANSPORT), flags: 0)
        if let speed = u.speed {
            guard speed == 0 || speed == 1 else { return nil }
            if speed == 1 { t.flags |= CLAP_TRANSPORT_IS_PLAYING.rawValue }
        }
        if let bpm = u.beatsPerMinute {
            t.flags |= CLAP_TRANSPORT_HAS_TEMPO.rawValue
            t.tempo = bpm
        }
        if let beat = u.beat {
            guard let fixed = Int64(exactly: beat * 0x1p31) else { return nil }
            t.flags |= CLAP_TRANSPORT_HAS_BEATS_TIMELINE.rawValue
            t.song_pos_beats = fixed
        }
        if let n = u.beatsPerBar {
            t.flags |= CLAP_TRANSPORT_HAS_TIME_SIGNATURE.rawValue
            t.tsig_num = UInt16(n)
            t.tsig_denom = 4
        }
        return t
    }

    /// The blocks as a plan for tactus-claphost --plan (Sources/Hosts/tactus-claphost/plan.c):
    /// each block's start, length, `process->transport` and input events, as text.
    final class HostPlan {
        var text = ""

        func add(start: Int64, count: Int, transport: clap_event_transport_t, events: [UnsafeMutableRawPointer]) {
            func fields(_ t: clap_event_transport_t) -> String { "\(t.flags) \(t.song_pos_beats) \(t.tempo) \(t.tsig_num) \(t.tsig_denom)" }
            text += "block \(start) \(count)\nstart \(fields(transport))\n"
            for e in events {
                let header = e.load(as: clap_event_header_t.self)
                switch Int(header.type) {
                case CLAP_EVENT_TRANSPORT:
                    text += "transport \(header.time) \(fields(e.load(as: clap_event_transport_t.self)))\n"
                case CLAP_EVENT_MIDI:
                    let m = e.load(as: clap_event_midi_t.self)
                    text += "midi \(header.time) \(m.data.0) \(m.data.1) \(m.data.2)\n"
                default:
                    let p = e.load(as: clap_event_param_value_t.self)
                    text += "param \(header.time) \(p.param_id) \(p.value)\n"
                }
            }
        }
    }

    /// The host's event lists: the block's input events (transports, MIDI, parameter values) and the MIDI out.
    final class Lists {
        var input: [UnsafeMutableRawPointer] = []
        var output: [LoggedEvent] = []
        var blockStart: Int64 = 0

        func add<T>(_ event: T) {
            let p = UnsafeMutableRawPointer.allocate(byteCount: MemoryLayout<T>.size, alignment: 8)
            p.storeBytes(of: event, as: T.self)
            input.append(p)
        }

        /// A `CLAP_EVENT_PARAM_VALUE` of parameter `id` at `time`.
        func addParameter(_ id: UInt32, _ value: Double, time: Int) {
            add(clap_event_param_value_t(
                header: clap_event_header_t(
                    size: UInt32(MemoryLayout<clap_event_param_value_t>.size), time: UInt32(time), space_id: CLAP_CORE_EVENT_SPACE_ID,
                    type: UInt16(CLAP_EVENT_PARAM_VALUE), flags: 0),
                param_id: id, cookie: nil, note_id: -1, port_index: -1, channel: -1, key: -1, value: value))
        }

        func clear() {
            for p in input { p.deallocate() }
            input = []
        }
    }

    /// The script through process(): the log, or why the script cannot be played this way.
    /// `clock`: the `clock` parameter's events (§11.4, §12), as (frame, on), frames non-decreasing; each goes to the block
    /// that holds it, after the block's other input events at its frame.
    /// `state`: the state the fresh instance loads before its activation (default: one of just `pattern`).
    static func clapLog(
        script: TransportScript, rate: Double, blocks: BlockPlan, pattern: [UInt8], clock: [(frame: Int64, on: Bool)] = [],
        plan: HostPlan? = nil, state saved: [UInt8]? = nil
    ) throws -> [LoggedEvent] {
        let instance = try #require(clapNew(nil))
        defer { clapFree(instance) }
        let state = saved ?? Array("tactus-clap-state 1\npattern \(pattern.count)\n".utf8) + pattern + Array("\n".utf8)
        try #require(loadState(instance, state))
        try #require(clapActivate(instance, rate, 1, 8192))

        let lists = Lists()
        let context = Unmanaged.passUnretained(lists).toOpaque()
        var input = clap_input_events_t(
            ctx: context,
            size: { list in UInt32(Unmanaged<Lists>.fromOpaque(list!.pointee.ctx!).takeUnretainedValue().input.count) },
            get: { list, index in
                UnsafePointer(Unmanaged<Lists>.fromOpaque(list!.pointee.ctx!).takeUnretainedValue().input[Int(index)]
                    .assumingMemoryBound(to: clap_event_header_t.self))
            })
        var output = clap_output_events_t(
            ctx: context,
            try_push: { list, header in
                let lists = Unmanaged<Lists>.fromOpaque(list!.pointee.ctx!).takeUnretainedValue()
                let midi = UnsafeRawPointer(header!).load(as: clap_event_midi_t.self)
                var bytes = [midi.data.0, midi.data.1, midi.data.2]
                // §12: a 1-byte clock message with its data bytes 0, logged alone as tactus render logs it.
                if midi.data.0 >= 0xF8 {
                    #expect(midi.data.1 == 0 && midi.data.2 == 0, "\(midi.data)")
                    bytes = [midi.data.0]
                }
                // §10: a program change or channel pressure in its 2 bytes, its unused data[2] 0.
                if (0xC0..<0xE0).contains(midi.data.0) {
                    #expect(midi.data.2 == 0, "\(midi.data)")
                    bytes = [midi.data.0, midi.data.1]
                }
                lists.output.append(LoggedEvent(frame: lists.blockStart + Int64(header!.pointee.time), bytes: bytes))
                return true
            })

        struct Unplayable: Error, CustomStringConvertible { var description: String }
        var host = HostSimulator(script: script, sampleRate: rate)
        var sizes = blocks.makeIterator()
        var start: Int64 = 0
        var clockChanges = clock[...]
        // §9: the text's patterns by name, for the script's `request NAME`, and the `pattern` parameter's value.
        let names = OfflineRender.patternNames(text: pattern)
        var patternParameter = 0
        while start < script.endFrame {
            let size = Int(min(Int64(sizes.next()), script.endFrame - start))
            lists.clear()
            lists.blockStart = start
            // Every block begins with the host's state there, as a CLAP host gives it.
            guard var atStart = transport(host.positionUpdate(at: start), time: 0) else {
                throw Unplayable(description: "frame \(start): a beat off CLAP's fixed point")
            }
            if host.quietBlock(blockStart: start, frameCount: size) == nil {
                for timed in host.inputs(blockStart: start, frameCount: size) {
                    switch timed.input {
                    case .position(let p):
                        guard let t = transport(p.update, time: timed.offset) else {
                            throw Unplayable(description: "frame \(start + Int64(timed.offset)): a beat off CLAP's fixed point")
                        }
                        if timed.offset == 0 { atStart = t } else { lists.add(t) }
                    case .midi(let bytes):
                        guard bytes.count == 3 else { throw Unplayable(description: "MIDI of \(bytes.count) bytes") }
                        lists.add(clap_event_midi_t(
                            header: clap_event_header_t(
                                size: UInt32(MemoryLayout<clap_event_midi_t>.size), time: UInt32(timed.offset), space_id: CLAP_CORE_EVENT_SPACE_ID,
                                type: UInt16(CLAP_EVENT_MIDI), flags: 0),
                            port_index: 0, data: (bytes[0], bytes[1], bytes[2])))
                    case .thru(let on):
                        lists.addParameter(CLAPParameter.midiThru, on ? 1 : 0, time: timed.offset)
                    case .laneMutes(let bits):
                        for lane in 0..<8 { lists.addParameter(3 + UInt32(lane), bits & (1 << UInt64(lane)) != 0 ? 1 : 0, time: timed.offset) }
                    case .pattern, .patternFile, .editorEdit, .get:
                        throw Unplayable(description: "a pattern edit or question (not a CLAP host's)")
                    case .song(let on):
                        // §9.5 by §11.4: the `song` parameter at this frame.
                        lists.addParameter(CLAPParameter.song, on ? 1 : 0, time: timed.offset)
                    case .request(let name, let grid):
                        // §9.6 by §11.4: the `pattern` parameter asks by number, at its event's frame, on the
                        // text's `switch` grid; a change to k >= 1 is a request, so a request for the number the
                        // parameter holds goes through 0 at the same frame. A WHEN of its own is not a host's.
                        guard grid == nil else { throw Unplayable(description: "a request at a WHEN of its own (the pattern parameter asks on the text's grid)") }
                        guard let i = names.firstIndex(of: Array(name.utf8)) else { throw Unplayable(description: "a request for '\(name)', not in the text") }
                        if patternParameter == i + 1 { lists.addParameter(CLAPParameter.pattern, 0, time: timed.offset) }
                        lists.addParameter(CLAPParameter.pattern, Double(i + 1), time: timed.offset)
                        patternParameter = i + 1
                    }
                }
            }
            // The clock's events, after the others at their frames (the list stays in time order, as CLAP asks).
            while let change = clockChanges.first, change.frame < start + Int64(size) {
                clockChanges = clockChanges.dropFirst()
                let time = UInt32(max(0, change.frame - start))
                let at = lists.input.firstIndex { $0.load(as: clap_event_header_t.self).time > time } ?? lists.input.count
                let p = UnsafeMutableRawPointer.allocate(byteCount: MemoryLayout<clap_event_param_value_t>.size, alignment: 8)
                p.storeBytes(
                    of: clap_event_param_value_t(
                        header: clap_event_header_t(
                            size: UInt32(MemoryLayout<clap_event_param_value_t>.size), time: time, space_id: CLAP_CORE_EVENT_SPACE_ID,
                            type: UInt16(CLAP_EVENT_PARAM_VALUE), flags: 0),
                        param_id: CLAPParameter.clock, cookie: nil, note_id: -1, port_index: -1, channel: -1, key: -1, value: change.on ? 1 : 0),
                    as: clap_event_param_value_t.self)
                lists.input.insert(p, at: at)
            }
            plan?.add(start: start, count: size, transport: atStart, events: lists.input)
            callProcess(instance, frames: UInt32(size), steadyTime: start, transport: atStart, input: &input, output: &output)
            start += Int64(size)
        }
        lists.clear()
        return lists.output
    }

    /// `tactus render` of the script (the engine as the LV2 plugin runs it), in-process.
    /// With `clock`, `tactus render --clock`.
    static func renderLog(script: TransportScript, rate: Double, blocks: BlockPlan, pattern: [UInt8], clock: Bool = false) throws -> [LoggedEvent] {
        let parsed = try PatternParser.parse(bytes: pattern)
        var log: [LoggedEvent] = []
        var render = OfflineRender(script: script, sampleRate: rate, blocks: blocks)
        render.midiClock = clock
        _ = render.run(
            pattern: parsed, patternText: pattern, loadPattern: { _ in .failure(PatternLoadError("no edits here")) },
            onBlock: { events, _ in log += events })
        return log
    }

    /// With `clock`, §12 through the clock parameter: on from frame 0 (an event in the first block), against `tactus render --clock`.
    @Test(
        "60 random sessions (tempo and meter changes, stops, locates, loops, all notes off, mutes), random blocks: tactus render's log",
        arguments: [false, true])
    func randomSessions(clock: Bool) throws {
        var events = 0
        var clocks = 0
        for seed in UInt64(1)...60 {
            let (text, rate) = Self.randomScript(seed: seed)
            let script = try TransportScript(parsing: text)
            let blocks = try BlockPlan(parsing: "random:1-\(seed % 3 == 0 ? 64 : 4096)@\(seed)")
            let pattern = Array(Self.patterns[Int(seed % 2)].utf8)
            let clap = try Self.clapLog(script: script, rate: rate, blocks: blocks, pattern: pattern, clock: clock ? [(0, true)] : [])
            let render = try Self.renderLog(script: script, rate: rate, blocks: blocks, pattern: pattern, clock: clock)
            #expect(clap == render, "seed \(seed), clock \(clock): \(clap.count) events against \(render.count)\n\(text)")
            events += render.count
            clocks += render.count { $0.bytes == [0xF8] }
        }
        #expect(events > 1000)
        #expect(clock ? clocks > 10000 : clocks == 0)
    }

    @Test(
        "60 random version-3 sessions (controllers, ramps across the loop end, swing, locks on overlapping notes, pattern and song parameters, jumps, tempo changes), random blocks: tactus render's log"
    )
    func controllerSessions() throws {
        var events = 0, controllers = 0, programs = 0, switched = 0
        for seed in UInt64(1)...60 {
            let (text, rate, pattern) = Self.controllerSession(seed: seed)
            let script = try TransportScript(parsing: text)
            let blocks = try BlockPlan(parsing: "random:1-\(seed % 3 == 0 ? 64 : 4096)@\(seed)")
            let clap = try Self.clapLog(script: script, rate: rate, blocks: blocks, pattern: pattern)
            let render = try Self.renderLog(script: script, rate: rate, blocks: blocks, pattern: pattern)
            if clap != render {
                let i = zip(clap, render).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(clap.count, render.count)
                Issue.record("seed \(seed): event \(i): CLAP \(clap.dropFirst(i).prefix(3).map(EventLog.line)), render \(render.dropFirst(i).prefix(3).map(EventLog.line))\n\(String(decoding: pattern, as: UTF8.self))\n\(text)")
                return
            }
            events += render.count
            controllers += render.count { [0xB0, 0xD0, 0xE0].contains($0.bytes[0] & 0xF0) }
            programs += render.count { $0.bytes[0] & 0xF0 == 0xC0 }
            switched += patternsHeard(String(decoding: pattern, as: UTF8.self), render) > 1 ? 1 : 0
        }
        #expect(events > 5000 && controllers > 1000 && programs > 20, "\(events) events, \(controllers) controller messages, \(programs) program changes")
        #expect(switched > 10, "\(switched) sessions played more than one pattern")
    }

    @Test("lanes 10 and 12 muted in the editor are saved (lanes=2560), and a fresh instance loading the state plays them muted, as tactus render (issue 29)")
    func laneMutesSaved() throws {
        // Thirteen lanes, lane n playing key 59 + n on each beat: which lanes sound is which keys do.
        let pattern = Array(("tactus-pattern 2\n" + (1...13).map { "lane l\($0) length 1\nnote 0 1/4 \(59 + $0) 100\n" }.joined()).utf8)
        var saved: [UInt8] = []
        EditorMessageTests.withEditorLink { instance, uris in
            EditorMessageTests.write(instance, EditorMessageTests.patternSet(pattern, sequence: 1, uris: uris), uris: uris)
            _ = EditorMessageTests.block(instance, frames: 256, transport: EditorMessageTests.transport(rolling: false))
            // The editor's M on lanes 10 and 12: bits 9 and 11 of urn:tactus:laneMutes.
            let mutes = AtomObjectWriter.atom(objectType: uris.atomObject, otype: uris.patchSet) {
                $0.addPatchSet(property: uris.laneMutes, long: 0b1010_0000_0000, uris: uris)
            }
            EditorMessageTests.write(instance, mutes, uris: uris)
            _ = EditorMessageTests.block(instance, frames: 256, transport: EditorMessageTests.transport(rolling: false))
            saved = EditorMessageTests.savedState(instance)
        }
        let decoded = CLAPState.decode(saved)
        #expect(decoded.problem == nil)
        #expect(decoded.text == pattern)
        #expect(decoded.lanes == 2560)
        #expect(String(decoding: saved, as: UTF8.self).hasSuffix("controls 11\nlanes=2560 \n"))

        let head = "tactus-transport 1\nrate 65536\nkeys beat\nsend every-block\n0 tempo 120\n0 play\n"
        let blocks = try BlockPlan(parsing: "random:1-4096@29")
        let clap = try Self.clapLog(
            script: try TransportScript(parsing: head + "400000 end\n"), rate: 65536, blocks: blocks, pattern: pattern, state: saved)
        let render = try Self.renderLog(
            script: try TransportScript(parsing: head + "0 mute 9 11\n400000 end\n"), rate: 65536, blocks: blocks, pattern: pattern)
        #expect(clap == render, "\(clap.count) events against \(render.count)")
        let keys: Set<UInt8> = Set(clap.filter { $0.bytes.count == 3 && $0.bytes[0] & 0xF0 == 0x90 }.map { $0.bytes[1] })
        let sounding: [UInt8] = [60, 61, 62, 63, 64, 65, 66, 67, 68, 70, 72]  // every lane's key but lane 10's (69) and lane 12's (71)
        #expect(keys == Set(sounding))
    }

    /// The repository (this file's), and the folder of this build's products.
    static let repository: String = {
        // This file is Tests/Formats/CLAP/TactusCLAPTests/ScriptSessionTests.swift in it.
        var path = Substring(#filePath)
        for _ in 0..<5 { path = path[..<(path.lastIndex(of: "/") ?? path.startIndex)] }
        return String(path)
    }()
    static var products: String {
        var dir = CommandLine.arguments[0]
        while let slash = dir.lastIndex(of: "/") {
            dir = String(dir[..<slash])
            if access(dir + "/tactus-claphost", X_OK) == 0 { return dir }
        }
        return repository + "/.build/release"
    }

    @Test(
        "the C host (tactus-claphost --plan) and tactus-lv2host on the same 40 random sessions (20 of version 3 with controllers and requests): the same events at the same frames, as process() here and tactus render"
    )
    func cHostAgainstLV2Host() throws {
        let clap = Self.repository + "/.build/embedded/tactus.clap", bundle = Self.repository + "/plugin.lv2"
        try #require(access(clap, R_OK) == 0, "\(clap) is not built: run make clap (make test does)")
        try #require(access(bundle + "/tactus.so", R_OK) == 0, "plugin.lv2/tactus.so is not built: run make plugin (make test does)")
        let products = Self.products
        var template = Array("/tmp/tactus-clap-hosts.XXXXXX".utf8CString)
        let dir = try #require(template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }.map { String(cString: $0) })
        var events = 0
        for seed in UInt64(1)...40 {
            // Seeds 21 to 40: version-3 texts with controllers and requests, without a song (tactus-lv2host sets
            // the plugin's song port for a whole block, read before the block's events; the CLAP parameter acts at
            // its event, after the block's transport: the formats differ at a block's first frame).
            let (text, rate, pattern) = seed <= 20
                ? { let (t, r) = Self.randomScript(seed: seed); return (t, r, Array(Self.patterns[Int(seed % 2)].utf8)) }()
                : Self.controllerSession(seed: seed, song: false)
            let script = try TransportScript(parsing: text)
            let spec = "random:1-\(seed % 3 == 0 ? 64 : 4096)@\(seed)"
            let plan = HostPlan()
            let here = try Self.clapLog(script: script, rate: rate, blocks: try BlockPlan(parsing: spec), pattern: pattern, plan: plan)
            let state = Array("tactus-clap-state 1\npattern \(pattern.count)\n".utf8) + pattern + Array("\n".utf8)
            try AtomicFile.write(text, to: dir + "/script.transport")
            try AtomicFile.write(pattern, to: dir + "/pattern.pattern")
            try AtomicFile.write(plan.text, to: dir + "/blocks.plan")
            try AtomicFile.write(state, to: dir + "/clap.state")
            func log(_ program: String, _ arguments: [String]) throws -> [LoggedEvent] {
                let status = try ChildProcess.run(
                    products + "/" + program, arguments, environment: [:], stdout: dir + "/\(program).log", stderr: dir + "/\(program).err")
                let err = (try? FileInput.read(dir + "/\(program).err").get()).map { String(decoding: $0, as: UTF8.self) } ?? ""
                try #require(status == 0, "seed \(seed): \(program) exited with \(status): \(err)")
                return try EventLog.parse(String(decoding: try FileInput.read(dir + "/\(program).log").get(), as: UTF8.self))
            }
            let c = try log("tactus-claphost", [clap, "--plan", dir + "/blocks.plan", "--rate", "\(Int(rate))", "--state", dir + "/clap.state", "--load-when", "before"])
            let lv2 = try log("tactus-lv2host", ["--bundle", bundle, "--transport", dir + "/script.transport", "--blocks", spec, "--pattern", dir + "/pattern.pattern"])
            #expect(c == lv2, "seed \(seed): tactus-claphost \(c.count) events, tactus-lv2host \(lv2.count)\n\(text)")
            #expect(c == here, "seed \(seed): tactus-claphost \(c.count) events, process() here \(here.count)")
            let render = try Self.renderLog(script: script, rate: rate, blocks: try BlockPlan(parsing: spec), pattern: pattern)
            #expect(c == render, "seed \(seed): tactus-claphost \(c.count) events, tactus render \(render.count)")
            events += lv2.count
        }
        #expect(events > 2000)
        for name in ["script.transport", "pattern.pattern", "blocks.plan", "clap.state", "tactus-claphost.log", "tactus-claphost.err",
            "tactus-lv2host.log", "tactus-lv2host.err"] { unlink(dir + "/" + name) }
        rmdir(dir)
    }

    @Test("examples/demo.transport's shape (a tempo change, a loop across it) at 32,768 Hz in blocks of 1 to 8192: tactus render's log")
    func demoShape() throws {
        // examples/demo.transport at a rate where its beats are CLAP's fixed point: 120 bpm,
        // then 135 from beat 8; the loop of bar 2 (beats 4 to 8) three times, then on.
        let text = """
            tactus-transport 1
            rate 32768
            keys beat
            send every-block
            0 tempo 120
            0 loop 4 8
            0 play
            200000 loop off
            200000 tempo 135
            400000 end

            """
        let script = try TransportScript(parsing: text)
        for spec in ["1", "64", "1000", "8192", "random:1-8192@7"] {
            let blocks = try BlockPlan(parsing: spec)
            let pattern = Array(Self.patterns[0].utf8)
            let clap = try Self.clapLog(script: script, rate: 32768, blocks: blocks, pattern: pattern)
            let render = try Self.renderLog(script: script, rate: 32768, blocks: blocks, pattern: pattern)
            #expect(!render.isEmpty)
            #expect(clap == render, "blocks \(spec): \(clap.count) events against \(render.count)")
        }
    }

    @Test("§11.4: the clock parameter acts at its event's frame: toggled inside blocks of any size, the log of blocks cut at each toggle")
    func clockToggledInsideBlocks() throws {
        for seed in UInt64(201)...215 {
            let (text, rate) = Self.randomScript(seed: seed)
            let script = try TransportScript(parsing: text)
            var rng = SplitMix64(seed: seed)
            var frame: Int64 = 0
            var toggles: [(frame: Int64, on: Bool)] = []
            for i in 0..<6 {
                frame += Int64(1 + rng.next() % UInt64(rate))
                toggles.append((frame, i % 2 == 0))
            }
            let pattern = Array(Self.patterns[Int(seed % 2)].utf8)
            // The reference starts a block at every toggle, so that each acts at a block's first frame.
            // (Blocks of at most 8192 frames, the most the plugin is activated for.)
            var cuts: [Int] = []
            var cut: Int64 = 0
            for toggle in toggles {
                var gap = Int(toggle.frame - cut)
                while gap > 8192 { cuts.append(8192); gap -= 8192 }
                cuts.append(gap)
                cut = toggle.frame
            }
            let reference = try Self.clapLog(script: script, rate: rate, blocks: .cycle(cuts + [8192]), pattern: pattern, clock: toggles)
            #expect(reference.contains { $0.bytes == [0xF8] })
            for spec in ["4096", "random:1-4096@\(seed)", "random:1-64@\(seed)"] {
                let clap = try Self.clapLog(script: script, rate: rate, blocks: BlockPlan(parsing: spec), pattern: pattern, clock: toggles)
                #expect(clap == reference, "seed \(seed), blocks \(spec): \(clap.count) events against \(reference.count)\n\(text)")
            }
        }
    }
}
