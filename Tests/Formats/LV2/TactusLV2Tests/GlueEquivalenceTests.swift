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

    @Test("version-2 sessions (lanes, swing, prob=, key-follow input): the plugin's log equals tactus render's")
    func laneSessionsMatchTheCore() throws {
        var checked = 0
        for seed in UInt64(1)...20 {
            var gen = RandomSession(seed: 80_000 + seed)
            let pattern = gen.lanePattern()
            let frames = Int64(gen.int(20_000...400_000))
            let script = gen.withFollowInput(gen.script(frames: frames), frames: frames)
            let blocks = gen.pick(["random:1-4096@\(seed)", "random:0-300@\(seed)", "64"])
            let dir = try PluginProcess.folder(["pattern.pattern": pattern, "script.transport": script])
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
        #expect(checked > 500)
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
