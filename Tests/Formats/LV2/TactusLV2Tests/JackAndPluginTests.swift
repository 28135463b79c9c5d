import CJack
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
            let (period, rate, cycles) = JackAndPluginTests.session(&gen, rates: [44100, 48000, 96000])
            var controls: [JackCyclePlayer.ControlMessage] = []
            for _ in 0..<gen.int(0...4) {
                controls.append(.init(frame: Int64(gen.int(0...cycles.count * Int(period) - 1)), status: 0xB0 | UInt8(gen.int(0...15)), data1: gen.pick([120, 123])))
            }
            controls.sort { $0.frame < $1.frame }
            var edits: [Int: [UInt8]] = [:]
            for _ in 0..<gen.int(0...3) { edits[gen.int(1...cycles.count - 1)] = Array(gen.pattern(maxNotes: 12).utf8) }
            let pattern = gen.pattern()

            switch try JackAndPluginTests.compare(pattern: pattern, rate: rate, period: period, cycles: cycles, controls: controls, edits: edits) {
            case .success(let (events, _)): compared += events
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
            let (period, rate, cycles) = JackAndPluginTests.session(&gen, rates: [44100, 48000])
            let controls = JackAndPluginTests.input(&gen, count: gen.int(2...10), frames: cycles.count * Int(period)) { gen in
                // Note-ons, note-offs and CC 121 on channels 1-2 (timing contract §7.5).
                let channel = UInt8(gen.int(0...1))
                let message: (UInt8, UInt8, UInt8) = gen.pick([(0x90, UInt8(gen.int(30...90)), 100), (0x80, 60, 0), (0xB0, 121, 0)])
                return (message.0 | channel, message.1, message.2)
            }
            let pattern = gen.lanePattern()
            switch try JackAndPluginTests.compare(pattern: pattern, rate: rate, period: period, cycles: cycles, controls: controls, edits: [:]) {
            case .success(let (events, _)): compared += events
            case .failure(let failure):
                Issue.record("seed \(seed), \(period)-frame cycles at \(rate) Hz: \(failure)\n--- pattern\n\(pattern)")
                return
            }
        }
        #expect(compared > 200)
    }

    @Test("JACK sessions with the prompt's mute, unmute and thru: tactus jack's journal, replayed through the plugin, gives its log")
    func liveControlsThroughTheJournal() throws {
        var compared = 0, passed = 0
        for seed in UInt64(1)...10 {
            var gen = RandomSession(seed: 95_000 + seed)
            let (period, rate, cycles) = JackAndPluginTests.session(&gen, rates: [44100, 48000])
            let controls = JackAndPluginTests.input(&gen, count: gen.int(10...40), frames: cycles.count * Int(period)) { gen in
                // Notes played on the control input (channel 3: apart from the pattern's), some that follow keys.
                gen.pick([(0x92, UInt8(gen.int(30...90)), 100), (0x82, 60, 0), (0x90, UInt8(gen.int(40...70)), 90)])
            }
            // The prompt's settings at random cycles: lanes muted and unmuted, thru on and off.
            var live: [Int: LiveControls] = [:]
            var settings = LiveControls()
            for _ in 0..<gen.int(2...8) {
                settings.laneMutes = UInt64(gen.int(0...7))
                settings.thru = gen.chance(0.6)
                live[gen.int(0...cycles.count - 1)] = settings
            }
            let pattern = gen.lanePattern()
            let played = try JackCyclePlayer.play(
                patternText: Array(pattern.utf8), sampleRate: rate, cycles: cycles, controls: controls, live: live)
            passed += played.filter { $0.bytes[0] & 0x0F == 2 }.count
            switch try JackAndPluginTests.compare(pattern: pattern, rate: rate, period: period, cycles: cycles, controls: controls, edits: [:], live: live) {
            case .success(let (events, _)): compared += events
            case .failure(let failure):
                Issue.record("seed \(seed), \(period)-frame cycles at \(rate) Hz: \(failure)\n--- pattern\n\(pattern)")
                return
            }
        }
        #expect(compared > 200 && passed > 20, "\(compared) events, \(passed) passed through")
    }

    /// Issues 29 and 30 at `tactus jack`: version-3 texts with controllers, of one to three patterns,
    /// the prompt's `play NAME [WHEN]` on every grid and `song on|off` at random cycles.
    @Test("version-3 JACK sessions (controllers, ramps across the loop end, swing, locks on overlapping notes, play NAME [WHEN], song on and off): tactus jack's journal, replayed through the plugin, gives its log")
    func controllerSessionsThroughTheJournal() throws {
        var compared = 0, controllers = 0, switched = 0
        let grids: [(grid: SwitchSettings.Grid?, words: String)] = [(nil, ""), (.now, " now"), (.beat, " beat"), (.bar, " bar"), (.bars(2), " bars 2"), (.end, " end")]
        for seed in UInt64(1)...16 {
            var gen = RandomSession(seed: 97_000 + seed)
            let (period, rate, cycles) = JackAndPluginTests.session(&gen, rates: [44100, 48000])
            let (pattern, names) = gen.controllerText(song: gen.chance(0.3))
            var requests: [Int: (request: PatternRequest, words: String)] = [:]
            for i in 0..<gen.int(2...12) {
                let number = gen.int(1...names.count)
                let when = gen.pick(grids)
                requests[gen.int(1...cycles.count - 1)] = (PatternRequest(sequence: UInt32(i + 1), number: number, grid: when.grid), names[number - 1] + when.words)
            }
            var song: [Int: Bool] = [:]
            if pattern.contains("\nsong ") {
                song[0] = false
                for _ in 0..<gen.int(0...3) { song[gen.int(1...cycles.count - 1)] = gen.chance(0.5) }
            }
            switch try JackAndPluginTests.compare(
                pattern: pattern, rate: rate, period: period, cycles: cycles, controls: [], edits: [:], requests: requests, song: song)
            {
            case .success(let (events, log)):
                compared += events
                controllers += log.filter { [0xB0, 0xC0, 0xD0, 0xE0].contains($0.bytes[0] & 0xF0) }.count
                switched += patternsHeard(pattern, log) > 1 ? 1 : 0
            case .failure(let failure):
                Issue.record("seed \(seed), \(period)-frame cycles at \(rate) Hz: \(failure)\n--- pattern\n\(pattern)")
                return
            }
        }
        #expect(compared > 1000 && controllers > 300 && switched > 3, "\(compared) events, \(controllers) controller and program messages, \(switched) sessions switched")
    }

    /// A random period (64, 256 or 1024 frames) and rate of `rates`, and 300 to 1200 cycles of transport.
    static func session(_ gen: inout RandomSession, rates: [Int]) -> (period: UInt32, rate: Double, cycles: [JackTransportSnapshot]) {
        let period = UInt32(gen.pick([64, 256, 1024]))
        let rate = Double(gen.pick(rates))
        return (period, rate, JackAndPluginTests.transport(&gen, period: period, rate: rate, count: gen.int(300...1200)))
    }

    /// `count` messages `message` draws, each at a random frame below `frames`, in frame order.
    static func input(
        _ gen: inout RandomSession, count: Int, frames: Int, _ message: (inout RandomSession) -> (UInt8, UInt8, UInt8)
    ) -> [JackCyclePlayer.ControlMessage] {
        var controls: [JackCyclePlayer.ControlMessage] = []
        for _ in 0..<count {
            let m = message(&gen)
            controls.append(.init(frame: Int64(gen.int(0...frames - 1)), status: m.0, data1: m.1, data2: m.2))
        }
        return controls.sorted { $0.frame < $1.frame }
    }

    /// Plays the session through `tactus jack`'s cycle (no server), replays its
    /// journal through the plugin in lilv, block by block, and with `tactus
    /// render`, and compares the logs: the events compared and the log, or the
    /// first difference.
    static func compare(
        pattern: String, rate: Double, period: UInt32, cycles: [JackTransportSnapshot],
        controls: [JackCyclePlayer.ControlMessage], edits: [Int: [UInt8]], live: [Int: LiveControls] = [:],
        requests: [Int: (request: PatternRequest, words: String)] = [:], song: [Int: Bool] = [:]
    ) throws -> Result<(count: Int, log: [LoggedEvent]), PluginProcess.Failure> {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tactus-jack-plugin-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let jack = try JackCyclePlayer.play(
            patternText: Array(pattern.utf8), sampleRate: rate, cycles: cycles, controls: controls, edits: edits, live: live,
            requests: requests, song: song, journal: dir.path)
        // The journal: its positions, control input and edits, for the plugin.
        try FileManager.default.moveItem(at: dir.appendingPathComponent("session.transport"), to: dir.appendingPathComponent("script.transport"))
        try pattern.write(to: dir.appendingPathComponent("pattern.pattern"), atomically: true, encoding: .utf8)
        let plugin = try PluginProcess.run(in: dir, blocks: String(period))
        guard plugin.status == 0 else { return .failure(PluginProcess.Failure(description: "the plugin host failed: \(plugin.stderr)")) }
        let fromJack = jack.map { LoggedEvent(frame: $0.frame, bytes: $0.bytes) }
        if let d = difference(fromJack, plugin.midi, ("tactus jack", "plugin")) { return .failure(PluginProcess.Failure(description: d)) }
        // And `tactus render` of the journal (its replay line), in the client's cycles.
        let core = try PluginProcess.expected(in: dir, blocks: String(period))
        if let d = difference(fromJack, core, ("tactus jack", "tactus render")) { return .failure(PluginProcess.Failure(description: d)) }
        return .success((fromJack.count, fromJack))
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

/// The one bar/beat/tick fill of the project's JACK timebase masters
/// (`tactus jack --master`, `TimebaseMaster`): its edges.
@Suite("JACK BBT fill")
struct JackBBTFillTests {
    /// bar, beat, tick, tick_double, bar_start_tick of `beats`.
    static func bbt(_ beats: Double, beatsPerBar: Double = 4, ticksPerBeat: Double = 1920) -> (Int32, Int32, Int32, Double, Double) {
        var pos = jack_position_t()
        pos.setBBT(beats: beats, beatsPerBar: beatsPerBar, ticksPerBeat: ticksPerBeat, beatsPerMinute: 137)
        #expect(pos.valid.rawValue == JackPositionBBT.rawValue | JackTickDouble.rawValue)
        #expect(pos.beats_per_bar == Float(beatsPerBar) && pos.beat_type == 4 && pos.ticks_per_beat == ticksPerBeat && pos.beats_per_minute == 137)
        return (pos.bar, pos.beat, pos.tick, pos.tick_double, pos.bar_start_tick)
    }

    @Test func beatZeroIsBarOneBeatOne() {
        #expect(Self.bbt(0) == (1, 1, 0, 0, 0))
    }

    @Test("before beat 0, or not a number: beat 0")
    func negativePositions() {
        #expect(Self.bbt(-0.001) == (1, 1, 0, 0, 0))
        #expect(Self.bbt(-1e300) == (1, 1, 0, 0, 0))
        #expect(Self.bbt(-.infinity) == (1, 1, 0, 0, 0))
        #expect(Self.bbt(.nan) == (1, 1, 0, 0, 0))
    }

    @Test func barBoundaries() {
        #expect(Self.bbt(3.5) == (1, 4, 960, 960, 0))
        #expect(Self.bbt(4) == (2, 1, 0, 0, 7680))
        #expect(Self.bbt(8.25) == (3, 1, 480, 480, 15360))
        #expect(Self.bbt(6, beatsPerBar: 3) == (3, 1, 0, 0, 11520))
        #expect(Self.bbt(2.5, beatsPerBar: 7.0 / 8) == (3, 1, 1440, 1440, 2 * 7.0 / 8 * 1920))
        // 7.7 / 1.1 is 7.0, but 7.7 lies 9e-16 before 7 × 1.1: on bar 8's line, not at beat 0 of bar 8.
        #expect(Self.bbt(7.7, beatsPerBar: 1.1) == (8, 1, 0, 0, 7 * 1.1 * 1920))
    }

    @Test("tick: the floor of tick_double, never ticks_per_beat")
    func tickRounding() {
        #expect(Self.bbt(1.0 / 3) == (1, 1, 640, 1.0 / 3 * 1920, 0))
        let justBelow = Self.bbt(1 - 1e-12)
        #expect(justBelow.0 == 1 && justBelow.1 == 1 && justBelow.2 == 1919)
        // With 1 tick a beat, a rounding up to the next beat's tick stays on this beat's last tick.
        let (_, beat, tick, tickDouble, _) = Self.bbt(0.9999999999999999, ticksPerBeat: 3)
        #expect(beat == 1 && tick == 2 && tickDouble <= 3)
        #expect(Self.bbt(2.75, ticksPerBeat: 4) == (1, 3, 3, 3, 0))
    }

    @Test("past what Int32 bars count: the last bar's first beat, no trap")
    func hugePositions() {
        let last = Double(Int32.max - 1)
        #expect(Self.bbt(4 * last + 1) == (Int32.max, 1, 0, 0, last * 4 * 1920))
        #expect(Self.bbt(1e300) == (Int32.max, 1, 0, 0, last * 4 * 1920))
        #expect(Self.bbt(.infinity) == (Int32.max, 1, 0, 0, last * 4 * 1920))
        // The largest frame a JACK transport reaches, at a fast tempo: within range, exact bars.
        let beats = Double(UInt32.max) * 1000 / (60 * 8000)
        let (bar, beat, _, _, _) = Self.bbt(beats)
        #expect(bar == Int32(beats / 4) + 1 && beat == Int32(beats.truncatingRemainder(dividingBy: 4)) + 1)
    }
}

/// `tactus jack`'s transport follower passes the timebase master's
/// `beat_type` on as the beat unit the MIDI clock counts in (§12.1).
@Suite("JACK follower: beat_type")
struct JackFollowerBeatTypeTests {
    static func cycle(frame: UInt32, beatType: Float, bbt: Bool = true) -> JackTransportSnapshot {
        JackTransportSnapshot(
            cycleStart: Int64(frame), frameCount: 256, rolling: true, frame: frame, hasBBT: bbt, bar: 1, beat: 1, tick: 0,
            ticksPerBeat: bbt ? 1920 : 0, beatsPerBar: bbt ? 6 : 0, beatType: bbt ? beatType : 0, beatsPerMinute: bbt ? 120 : 0)
    }

    @Test("beat_type as beatUnit; a change of it alone is reported; none without BBT")
    func beatType() {
        var follower = JackTransportFollower()
        #expect(follower.update(for: Self.cycle(frame: 0, beatType: 8))?.beatUnit == 8)
        #expect(follower.update(for: Self.cycle(frame: 256, beatType: 8)) == nil)  // rolling on, nothing new
        let changed = follower.update(for: Self.cycle(frame: 512, beatType: 4))
        #expect(changed?.beatUnit == 4 && changed?.speed == 1)
        var plain = JackTransportFollower()
        #expect(plain.update(for: Self.cycle(frame: 0, beatType: 0, bbt: false))?.beatUnit == nil)
    }
}
