import Foundation
import Testing
import TactusEngine
import TactusModel
import TactusJack
import TactusJackSequencer
import TactusOffline
import TactusTestSupport

/// The JACK client and the plugin run one engine: for the same random JACK
/// transport (starts, stops, relocates, tempo changes, with and without a
/// timebase master's BBT), all-notes-offs and pattern edits, `tactus jack`'s
/// process callback (run without a server by `JackCyclePlayer`) and the
/// plugin (loaded through lilv, fed the positions the JACK client applied,
/// from its journal) play the same events at the same frames.
@Suite("JACK client and plugin: one engine")
struct JackAndPluginTests {
    @Test("random JACK sessions: tactus jack and the plugin give the same log")
    func sameLogForTheSameSession() throws {
        var compared = 0
        for seed in UInt64(1)...16 {
            var gen = RandomSession(seed: 91_000 + seed)
            let period = UInt32(gen.pick([64, 256, 1024]))
            let rate = Double(gen.pick([44100, 48000, 96000]))
            let cycles = JackAndPluginTests.transport(&gen, period: period, rate: rate, count: gen.int(300...1200))
            var controls: [JackCyclePlayer.ControlMessage] = []
            for _ in 0..<gen.int(0...4) {
                controls.append(.init(frame: Int64(gen.int(0...cycles.count * Int(period) - 1)), status: 0xB0 | UInt8(gen.int(0...15)), data1: gen.pick([120, 123])))
            }
            controls.sort { $0.frame < $1.frame }
            var edits: [Int: [UInt8]] = [:]
            for _ in 0..<gen.int(0...3) { edits[gen.int(1...cycles.count - 1)] = Array(gen.pattern(maxNotes: 12).utf8) }
            let pattern = gen.pattern()

            switch try JackAndPluginTests.compare(pattern: pattern, rate: rate, period: period, cycles: cycles, controls: controls, edits: edits) {
            case .success(let events): compared += events
            case .failure(let failure):
                Issue.record("seed \(seed), \(period)-frame cycles at \(rate) Hz: \(failure)")
                return
            }
        }
        #expect(compared > 500)
    }

    @Test("version-2 JACK sessions with key-follow input: tactus jack's journal, replayed through the plugin, gives its log")
    func laneSessionsThroughTheJournal() throws {
        var compared = 0
        for seed in UInt64(1)...10 {
            var gen = RandomSession(seed: 93_000 + seed)
            let period = UInt32(gen.pick([64, 256, 1024]))
            let rate = Double(gen.pick([44100, 48000]))
            let cycles = JackAndPluginTests.transport(&gen, period: period, rate: rate, count: gen.int(300...1200))
            var controls: [JackCyclePlayer.ControlMessage] = []
            for _ in 0..<gen.int(2...10) {
                // Note-ons, note-offs and CC 121 on channels 1-2 (timing contract §7.5).
                let channel = UInt8(gen.int(0...1))
                let message: (UInt8, UInt8, UInt8) = gen.pick([(0x90, UInt8(gen.int(30...90)), 100), (0x80, 60, 0), (0xB0, 121, 0)])
                controls.append(.init(frame: Int64(gen.int(0...cycles.count * Int(period) - 1)), status: message.0 | channel, data1: message.1, data2: message.2))
            }
            controls.sort { $0.frame < $1.frame }
            let pattern = gen.lanePattern()
            switch try JackAndPluginTests.compare(pattern: pattern, rate: rate, period: period, cycles: cycles, controls: controls, edits: [:]) {
            case .success(let events): compared += events
            case .failure(let failure):
                Issue.record("seed \(seed), \(period)-frame cycles at \(rate) Hz: \(failure)\n--- pattern\n\(pattern)")
                return
            }
        }
        #expect(compared > 200)
    }

    /// Plays the session through `tactus jack`'s cycle (no server), replays its
    /// journal through the plugin in lilv, block by block, and compares the two
    /// logs: the events compared, or the first difference.
    static func compare(
        pattern: String, rate: Double, period: UInt32, cycles: [JackTransportSnapshot],
        controls: [JackCyclePlayer.ControlMessage], edits: [Int: [UInt8]]
    ) throws -> Result<Int, PluginProcess.Failure> {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tactus-jack-plugin-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let jack = try JackCyclePlayer.play(
            patternText: Array(pattern.utf8), sampleRate: rate, cycles: cycles, controls: controls, edits: edits, journal: dir.path)
        // The journal: its positions, control input and edits, for the plugin.
        try FileManager.default.moveItem(at: dir.appendingPathComponent("session.transport"), to: dir.appendingPathComponent("script.transport"))
        try pattern.write(to: dir.appendingPathComponent("pattern.pattern"), atomically: true, encoding: .utf8)
        let plugin = try PluginProcess.run(in: dir, blocks: String(period))
        guard plugin.status == 0 else { return .failure(PluginProcess.Failure(description: "the plugin host failed: \(plugin.stderr)")) }
        let fromJack = jack.map { LoggedEvent(frame: $0.frame, bytes: $0.bytes) }
        if let d = difference(fromJack, plugin.midi, ("tactus jack", "plugin")) { return .failure(PluginProcess.Failure(description: d)) }
        return .success(fromJack.count)
    }

    /// JACK transport as a client queries it, cycle by cycle: a timebase
    /// master's BBT at its tempo (or none), rolling and stopped spans, relocates.
    static func transport(_ gen: inout RandomSession, period: UInt32, rate: Double, count: Int) -> [JackTransportSnapshot] {
        let hasBBT = gen.chance(0.7)
        var bpm = Double(gen.int(60...180)) + (gen.chance(0.5) ? 0.7 : 0)
        let beatsPerBar = Float(gen.pick([3, 4, 7]))
        var rolling = gen.chance(0.8)
        var frame: UInt32 = 0
        var cycles: [JackTransportSnapshot] = []
        for i in 0..<count {
            if gen.chance(0.01) { rolling.toggle() }
            if gen.chance(0.008) { frame = UInt32(gen.int(0...Int(rate) * 60)) }
            if hasBBT && gen.chance(0.005) { bpm = Double(gen.int(60...180)) + gen.unit() }
            var bar: Int32 = 0, beat: Int32 = 0, tick: Int32 = 0
            var tickDouble: Double? = nil
            if hasBBT {
                // As `tactus jack --master` publishes it: bar and beat from 1, the fractional tick.
                let beats = Double(frame) * bpm / (60 * rate)
                let whole = beats.rounded(.down)
                let barIndex = (whole / Double(beatsPerBar)).rounded(.down)
                bar = Int32(barIndex) + 1
                beat = Int32(whole - barIndex * Double(beatsPerBar)) + 1
                tickDouble = (beats - whole) * 1920
                tick = Int32(tickDouble!.rounded(.down))
            }
            cycles.append(JackTransportSnapshot(
                cycleStart: Int64(i) * Int64(period), frameCount: period, rolling: rolling, frame: frame, hasBBT: hasBBT,
                bar: bar, beat: beat, tick: tick, tickDouble: tickDouble, ticksPerBeat: hasBBT ? 1920 : 0,
                beatsPerBar: hasBBT ? beatsPerBar : 0, beatType: hasBBT ? 4 : 0, beatsPerMinute: hasBBT ? bpm : 0))
            if rolling { frame &+= period }
        }
        return cycles
    }
}
