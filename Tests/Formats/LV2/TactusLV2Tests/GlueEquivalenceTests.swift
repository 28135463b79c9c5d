import Foundation
import Testing
import TactusEngine
import TactusModel
import TactusOffline
import TactusTestSupport

/// The plugin, loaded through lilv, emits exactly what the core emits for the
/// same transport script and blocks: the LV2 glue adds no error. Positions
/// come on change (jalv, Ardour: mid-block at tempo points and loop wraps),
/// every block as `atom:Blank` with float `barBeat` (Carla), with every numeric
/// atom type, with bad values, and with pattern edits by text and by file.
@Suite("LV2 glue equivalence")
struct GlueEquivalenceTests {
    @Test("random sessions: the plugin's log equals tactus render's, event for event")
    func randomSessionsMatchTheCore() throws {
        var checked = 0
        for seed in UInt64(1)...40 {
            var gen = RandomSession(seed: 70_000 + seed)
            let pattern = gen.pattern()
            let edits = ["a": gen.pattern(), "b": gen.pattern(maxNotes: 3)]
            let grid = onsetGrid(pattern)
            var script = gen.script(
                frames: Int64(gen.int(20_000...400_000)), edits: edits.keys.sorted(), onsets: grid.starts, loopLength: grid.length)
            if script.contains("send every-block") {
                // Carla: a position every block, as the deprecated atom:Blank.
                script = script.replacingOccurrences(of: "send every-block\n", with: "send every-block\natom blank\n")
            }
            let blocks = gen.pick(["random:1-4096@\(seed)", "random:0-300@\(seed)", "64", "1024,1,333"])
            var files = edits
            files["pattern.pattern"] = pattern
            files["script.transport"] = script
            let dir = try PluginProcess.folder(files)
            defer { try? FileManager.default.removeItem(at: dir) }
            let plugin = try PluginProcess.run(in: dir, blocks: blocks)
            #expect(plugin.status == 0, "\(plugin.stderr)")
            let core = try PluginProcess.expected(in: dir, blocks: blocks)
            if let d = difference(plugin.midi, core, ("plugin", "core")) {
                Issue.record("seed \(seed), blocks \(blocks): \(d)\n--- pattern\n\(pattern)--- script\n\(script)")
                return
            }
            checked += core.count
        }
        #expect(checked > 1000)
    }

    /// Timing contract §12: with its `clock` control input on, the plugin puts
    /// the core's MIDI clock on its MIDI output among the notes, message for
    /// message and frame for frame, through starts, stops, locates, loops,
    /// tempo and speed changes and every host's way of reporting.
    @Test("with the clock toggle on: the plugin's notes and MIDI clock equal tactus render --clock's, event for event (§12)")
    func clockMatchesTheCore() throws {
        var clocks = 0, positions = 0
        for seed in UInt64(1)...30 {
            var gen = RandomSession(seed: 90_000 + seed)
            let pattern = gen.pattern()
            let grid = onsetGrid(pattern)
            var script = gen.script(frames: Int64(gen.int(20_000...400_000)), onsets: grid.starts, loopLength: grid.length)
            if script.contains("send every-block") {
                script = script.replacingOccurrences(of: "send every-block\n", with: "send every-block\natom blank\n")
            }
            let blocks = gen.pick(["random:1-4096@\(seed)", "random:0-300@\(seed)", "64", "1024,1,333"])
            let dir = try PluginProcess.folder(["pattern.pattern": pattern, "script.transport": script])
            defer { try? FileManager.default.removeItem(at: dir) }
            let plugin = try PluginProcess.run(in: dir, blocks: blocks, arguments: ["--clock"])
            #expect(plugin.status == 0, "\(plugin.stderr)")
            let core = try PluginProcess.expected(in: dir, blocks: blocks, midiClock: true)
            if let d = difference(plugin.midi, core, ("plugin", "core")) {
                Issue.record("seed \(seed), blocks \(blocks): \(d)\n--- pattern\n\(pattern)--- script\n\(script)")
                return
            }
            clocks += core.filter { $0.bytes == [0xF8] }.count
            positions += core.filter { $0.bytes.first == 0xF2 }.count
        }
        #expect(clocks > 3000 && positions > 30, "\(clocks) timing clocks, \(positions) song positions")
    }

    @Test("the clock toggle off (its default, or unconnected): no clock message on the MIDI output")
    func clockOffByDefault() throws {
        let dir = try PluginProcess.folder([
            "script.transport": "tactus-transport 1\nrate 48000\n0 tempo 120\n0 play\n24000 locate 8\n48000 stop\n72000 end\n",
        ])
        defer { try? FileManager.default.removeItem(at: dir) }
        let off = try PluginProcess.run(in: dir)
        #expect(off.status == 0, "\(off.stderr)")
        #expect(!off.midi.isEmpty && off.midi.allSatisfy { $0.bytes.first! < 0xF0 })
        let on = try PluginProcess.run(in: dir, arguments: ["--clock"])
        // 120 BPM at 48 kHz: F8 every 1000 frames; SPP 0 and Start at 0, Stop FC, SPP 32 and Continue at the locate, Stop at the stop.
        #expect(on.midi.filter { $0.bytes.first! < 0xF0 } == off.midi)
        GlueEquivalenceTests.expectClock(
            on.midi, messages: [[0, 0xF2, 0, 0], [0, 0xFA], [24000, 0xFC], [24000, 0xF2, 32, 0], [24000, 0xFB], [48000, 0xFC]],
            timingClocks: (0..<48).map { Int64($0) * 1000 })
    }

    @Test("§12.8: the toggle turned on while rolling starts the clock at that block (SPP, Continue); turned off, Stop there; on while stopped, it waits for the start")
    func clockToggledWhilePlaying() throws {
        // 120 bpm at 48 kHz: a clock every 1000 frames, a sixteenth every 6000.
        let dir = try PluginProcess.folder([
            "script.transport": "tactus-transport 1\nrate 48000\n0 tempo 120\n0 play\n60000 stop\n80000 play\n100000 end\n",
        ])
        defer { try? FileManager.default.removeItem(at: dir) }
        // On at the block of 20500 (blocks of 512: 20992), off at 40960, on at 65024 (stopped), kept to the end.
        let out = try PluginProcess.run(in: dir, blocks: "512", arguments: ["--clock-toggle-at", "20500,40960,65000"])
        #expect(out.status == 0, "\(out.stderr)")
        // 20992 is beat 0.8746...: sixteenth ceil(3.498...) = 4 (beat 1, frame 24000) -> SPP 4, Continue;
        // at 80000 the transport starts again from beat 2.5 (60000 frames rolled): SPP 10, Continue.
        GlueEquivalenceTests.expectClock(
            out.midi, messages: [[20992, 0xF2, 4, 0], [20992, 0xFB], [40960, 0xFC], [80000, 0xF2, 10, 0], [80000, 0xFB]],
            timingClocks: (24..<41).map { Int64($0) * 1000 } + (80..<100).map { Int64($0) * 1000 })
    }

    @Test("a host in 6/8 (meter 6 8: time:beatUnit 8): the clock counts quarter notes, 12 a beat (§12.1)")
    func clockInSixEight() throws {
        // 120 eighth notes a minute at 48 kHz: a beat is 24000 frames, a quarter note 48000, a clock 2000.
        let dir = try PluginProcess.folder([
            "script.transport": "tactus-transport 1\nrate 48000\n0 tempo 120\n0 meter 6 8\n0 locate 3\n0 play\n30000 stop\n40000 end\n",
        ])
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = try PluginProcess.run(in: dir, blocks: "100", arguments: ["--clock"])
        #expect(out.status == 0, "\(out.stderr)")
        // Beat 3 (eighths) is quarter note 1.5: sixteenth 6.
        GlueEquivalenceTests.expectClock(
            out.midi, messages: [[0, 0xF2, 6, 0], [0, 0xFB], [30000, 0xFC]], timingClocks: (0..<15).map { Int64($0) * 2000 })
        #expect(out.midi == (try PluginProcess.expected(in: dir, blocks: "100", midiClock: true)))
    }

    /// The clock messages of `log` but Timing Clocks are `messages` (each its
    /// frame, then its bytes); the Timing Clocks are at `timingClocks`.
    static func expectClock(
        _ log: [LoggedEvent], messages: [[Int64]], timingClocks: [Int64], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let system: [[Int64]] = log.filter { $0.bytes.first! >= 0xF0 && $0.bytes != [0xF8] }.map { [$0.frame] + $0.bytes.map(Int64.init) }
        #expect(system == messages, sourceLocation: sourceLocation)
        let clocks: [Int64] = log.filter { $0.bytes == [0xF8] }.map(\.frame)
        #expect(clocks == timingClocks, sourceLocation: sourceLocation)
    }

    @Test("version-2 sessions (lanes, swing, prob=, key-follow input): the plugin's log equals tactus render's")
    func laneSessionsMatchTheCore() throws {
        var checked = 0
        for seed in UInt64(1)...20 {
            var gen = RandomSession(seed: 80_000 + seed)
            let pattern = gen.lanePattern()
            let frames = Int64(gen.int(20_000...400_000))
            let script = gen.withFollowInput(gen.script(frames: frames), frames: frames)
            let blocks = gen.pick(["random:1-4096@\(seed)", "random:0-300@\(seed)", "64"])
            guard let core = try Self.pluginAgainstCore(pattern: pattern, script: script, blocks: blocks, seed: seed) else { return }
            checked += core.count
        }
        #expect(checked > 500)
    }

    /// Issues 29 and 30: version-3 texts with controllers and several patterns, requested by the
    /// script's `request NAME [WHEN]` (the test host sends them as the editor does,
    /// `urn:tactus:request` at their frames), against `tactus render` of the same script.
    @Test("version-3 sessions (controllers, ramps across the loop end, swing, locks on overlapping notes, requests on every grid, the song, jumps, tempo changes): the plugin's log equals tactus render's")
    func controllerSessionsMatchTheCore() throws {
        var checked = 0, controllers = 0, programs = 0, switched = 0
        for seed in UInt64(1)...40 {
            var gen = RandomSession(seed: 30_000 + seed)
            let (pattern, names) = gen.controllerText(song: gen.chance(0.3))
            let frames = Int64(gen.int(100_000...500_000))
            let blocks = gen.pick(["random:1-4096@\(seed)", "random:0-300@\(seed)", "64", "1024"])
            // The plugin reads its song port at a block start (docs/transport-script.md), before the block's
            // events: toggles at block starts only, each before the other inputs at its frame.
            var songAt: [Int64] = []
            if pattern.contains("\nsong "), let size = Int64(blocks) {
                songAt = [0] + (0..<gen.int(0...3)).map { _ in Int64(gen.int(1...Int(frames / size))) * size }
            }
            let script = gen.withRequests(gen.script(frames: frames), names: names, frames: frames, songAt: songAt, songFirst: true)
            guard let core = try Self.pluginAgainstCore(pattern: pattern, script: script, blocks: blocks, seed: seed) else { return }
            checked += core.count
            controllers += core.filter { [0xB0, 0xD0, 0xE0].contains($0.bytes[0] & 0xF0) }.count
            programs += core.filter { $0.bytes[0] & 0xF0 == 0xC0 }.count
            switched += patternsHeard(pattern, core) > 1 ? 1 : 0
        }
        #expect(checked > 5000 && controllers > 1000 && programs > 20, "\(checked) events, \(controllers) controller messages, \(programs) program changes")
        #expect(switched > 10, "\(switched) sessions played more than one pattern")
    }

    /// The plugin (through tactus-lv2host) and `tactus render` on one session: the core's log, or nil,
    /// with an issue that gives the first difference and the session's texts, when the plugin's differs.
    static func pluginAgainstCore(
        pattern: String, script: String, blocks: String, seed: UInt64, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> [LoggedEvent]? {
        let dir = try PluginProcess.folder(["pattern.pattern": pattern, "script.transport": script])
        defer { try? FileManager.default.removeItem(at: dir) }
        let plugin = try PluginProcess.run(in: dir, blocks: blocks)
        #expect(plugin.status == 0, "\(plugin.stderr)", sourceLocation: sourceLocation)
        let core = try PluginProcess.expected(in: dir, blocks: blocks)
        if let d = difference(plugin.midi, core, ("plugin", "core")) {
            Issue.record("seed \(seed), blocks \(blocks): \(d)\n--- pattern\n\(pattern)--- script\n\(script)", sourceLocation: sourceLocation)
            return nil
        }
        return core
    }

    @Test("positions with every numeric atom type, Object and Blank, mid-block, give the core's log")
    func numericTypesAndBlanks() throws {
        let script = """
            tactus-transport 1
            rate 44100
            7 position frame=0:l speed=1:f bar=0:l barBeat=0.7:f beatsPerBar=4:f beatsPerMinute=120:f
            30001 position frame=30001:l speed=1:d bar=0:i barBeat=1.3:d beatsPerBar=4:d beatsPerMinute=97.5:d blank
            50000 position beat=2.25:d beatsPerMinute=133.7:f
            60123 position frame=100000:i speed=1:i blank
            70000 position barBeat=1:i bar=3:l beatsPerMinute=90:i
            80000 position barBeat=x:s
            80001 position speed=fast:s beatsPerMinute=100:f
            90000 position beatUnit=four:s barBeat=0:f
            120000 end
            """
        let pattern = "tactus-pattern 1\nlength 1\nnote 0 1/4 60 100\nnote 1/3 1/7 62 90 2\n"
        let dir = try PluginProcess.folder(["script.transport": script, "pattern.pattern": pattern])
        defer { try? FileManager.default.removeItem(at: dir) }
        for blocks in ["128", "random:1-700@5", "4096"] {
            let plugin = try PluginProcess.run(in: dir, blocks: blocks)
            let core = try PluginProcess.expected(in: dir, blocks: blocks)
            #expect(core.count > 20)
            #expect(difference(plugin.midi, core, ("plugin", "core")) == nil, "\(blocks)")
        }
    }
}
