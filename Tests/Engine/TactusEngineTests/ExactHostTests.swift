import Foundation
import Testing
import TactusEngine
import TactusModel
import TactusOffline
import TactusTestSupport

/// Timing contract §1, rule 1 and the hosts that follow the LV2 definitions:
/// a host that sends every key exactly (`beat`, a Double, the running beat,
/// beside `bar` and a Float `barBeat`, all consistent: Element, JUCE hosts)
/// is read by rule 2, exactly as if it sent no `beat`; MusE, whose beat lies
/// on one of its tick grids, is still read as a floor.
@Suite("§1: a host that sends every key exactly is read as without time:beat")
struct ExactHostTests {
    /// Events of `expected` that `got` lacks at the same frame (missing or moved), as a multiset.
    static func missingOrMoved(_ got: [LoggedEvent], _ expected: [LoggedEvent]) -> Int {
        var left: [String: Int] = [:]
        for e in got { left[EventLog.line(e), default: 0] += 1 }
        var missing = 0
        for e in expected {
            let line = EventLog.line(e)
            if let n = left[line], n > 0 { left[line] = n - 1 } else { missing += 1 }
        }
        return missing
    }

    @Test("random sessions of an all-keys host: the log of the same session without time:beat, byte for byte")
    func allKeysPlaysAsWithoutBeat() throws {
        var blocksRendered = 0, sessions = 0, events = 0, sessionsDiffering = 0, eventsDiffering = 0
        var everyBlock = 0, firstFailure: String?
        var seed: UInt64 = 26_000
        while blocksRendered < DifferentialTests.blockBudget || sessions < 60 {
            var gen = RandomSession(seed: seed)
            let pattern = gen.pattern()
            let grid = onsetGrid(pattern)
            // Element reports every block: half the sessions do, the rest on change.
            let script = gen.script(
                frames: Int64(gen.int(20_000...600_000)), onsets: grid.starts, loopLength: grid.length, keys: "all",
                everyBlock: seed % 2 == 0)
            let withoutBeat = script.replacingOccurrences(of: "keys all\n", with: "keys bbt\n")
            #expect(withoutBeat != script)
            let plan = BlockPlan.random(minimum: 1, maximum: gen.pick([64, 512, 4096, 8192]), seed: seed)
            let all = try SessionHarness.run(pattern: pattern, script: script, blocks: plan, withReference: false)
            let bbt = try SessionHarness.run(pattern: pattern, script: withoutBeat, blocks: plan, withReference: false)
            if all.core != bbt.core {
                sessionsDiffering += 1
                eventsDiffering += ExactHostTests.missingOrMoved(all.core, bbt.core)
                if firstFailure == nil, let difference = firstDifference(all.core, bbt.core, names: ("all keys", "without beat")) {
                    firstFailure = "seed \(seed), blocks \(plan): \(difference)\n--- pattern\n\(pattern)--- script\n\(script)"
                }
            }
            events += bbt.core.count
            if script.contains("send every-block") { everyBlock += 1 }
            blocksRendered += all.report.blocks
            sessions += 1
            seed += 1
        }
        print("exact host: \(sessions) sessions (\(everyBlock) reporting every block), \(blocksRendered) blocks, "
            + "\(events) events; \(sessionsDiffering) sessions and \(eventsDiffering) events differ from the sessions without time:beat")
        #expect(sessionsDiffering == 0 && eventsDiffering == 0, "\(eventsDiffering) of \(events) events missing or moved in \(sessionsDiffering) of \(sessions) sessions; first: \(firstFailure ?? "")")
        #expect(everyBlock > 0 && everyBlock < sessions)
    }

    /// An Element-shaped session: every block, 44.1 kHz, a tempo change, speed 1.5,
    /// a correction back and one forward (each under 1/16 beat), a locate to a
    /// whole beat and one to an arbitrary beat.
    static let elementActions = """
        0 tempo 97
        0 locate 0
        0 play
        70001 tempo 133.7
        150000 speed 1.5
        220000 speed 1
        300000 locate 18.96
        380000 locate 21.03
        460000 locate 8
        540000 locate 13.377
        620000 stop
        640000 end

        """

    @Test("an Element-shaped session (every block, tempo change, speed 1.5, corrections, locates) plays as without time:beat")
    func elementShapedSession() throws {
        let pattern = "length 2\nnote 0 1/4 60 100\nnote 1/3 1/8 62 90\nnote 1 1/2 64 80\nnote 3/2 1/16 67 70\n"
        let actions = ExactHostTests.elementActions
        for blocks in [BlockPlan.fixed(256), .fixed(1024), .random(minimum: 1, maximum: 8192, seed: 26)] {
            let all = try log(pattern, "rate 44100\nsend every-block\nkeys all\n" + actions, blocks: blocks)
            let bbt = try log(pattern, "rate 44100\nsend every-block\nkeys bbt\n" + actions, blocks: blocks)
            #expect(all.count > 100)
            #expect(all == bbt, "\(blocks)")
        }
    }

    @Test("Carla's recordings (`beat` the beat of the bar from 0, a whole number) play as without time:beat", arguments: ["carla-120", "carla-133.7"])
    func carlaRecordings(name: String) throws {
        let session = try String(contentsOf: FloorReportTests.fixtures.appendingPathComponent("\(name)/session.transport"), encoding: .utf8)
        let withoutBeat = session.replacingOccurrences(of: " beat=[^ ]*:d", with: "", options: .regularExpression)
        #expect(session.components(separatedBy: " beat=").count > 1000 && !withoutBeat.contains(" beat="))
        let pattern = try String(
            contentsOf: FloorReportTests.fixtures.deletingLastPathComponent().appendingPathComponent("Hosts/hosttest.pattern"), encoding: .utf8)
        let recorded = try log(pattern, session)
        #expect(recorded.count > 20)
        #expect(recorded == (try log(pattern, withoutBeat)))
    }

    @Test("the first report of all four keys with a beat off every tick grid marks the host exact, until deactivation")
    func hostShownExactUntilReset() {
        var clock = TransportClock(sampleRate: 48000)
        func report(_ frame: Int64, beat: Double, keys: Bool = true) -> PositionUpdate {
            let bar = (beat / 4).rounded(.down)
            return PositionUpdate(
                frame: keys ? Double(frame) : nil, speed: 1, bar: bar, barBeat: Double(Float(beat - bar * 4)), beat: beat,
                beatsPerBar: 4, beatsPerMinute: 120)
        }
        // Beat 0 and beat 1/64 lie on every grid: a MusE report, or an exact host that has not moved off it.
        #expect(clock.apply(report(0, beat: 0), atFrame: 0) == .start)
        #expect(!clock.hostIsExact)
        #expect(clock.apply(report(375, beat: 375.0 / 24000), atFrame: 375) == .repeat)
        #expect(!clock.hostIsExact)
        // Without a frame the report is no floor report, and says nothing of the host.
        #expect(clock.apply(report(500, beat: 500.0 / 24000, keys: false), atFrame: 500) == .repeat)
        #expect(!clock.hostIsExact)
        // A report that §6 ignores changes nothing, its beat included.
        var bad = report(512, beat: 512.0 / 24000)
        bad.beatsPerMinute = 5000
        #expect(clock.apply(bad, atFrame: 512) == .ignored)
        #expect(!clock.hostIsExact)
        // 512 frames is 0.0213333... beat: 262.1 ticks of 12288, 327.7 of 15360.
        #expect(clock.apply(report(512, beat: 512.0 / 24000), atFrame: 512) == .repeat)
        #expect(clock.hostIsExact)
        // From then on a report on a grid is read by rule 2: a correction back by 1/32 beat is a correction.
        #expect(clock.apply(report(24000, beat: 1 - 1.0 / 32), atFrame: 24000) == .correction)
        #expect(clock.anchorBeat == BeatPosition(1 - 1.0 / 32)!)
        clock.reset()
        #expect(!clock.hostIsExact)
    }

    @Test("every division MusE offers: its beats lie on a grid, as MusE computes them")
    func museBeatsLieOnTheGrids() {
        var rng = SplitMix64(seed: 384)
        var checked = 0
        for division in [48, 96, 120, 192, 240, 384, 480, 768, 960, 1536, 1920, 3072, 3840, 6144, 7680, 12288, 15360] {
            for _ in 0..<20_000 {
                // MusE's tick counter is 32 bits; its lv2host.cpp: double(bar × z + beat) + double(tick) / double(division).
                let ticks = rng.next() % (rng.next() % 2 == 0 ? 1 << 32 : 1 << 16)
                let whole = Double(ticks / UInt64(division))
                let tick = Double(ticks % UInt64(division))
                let beat = whole + tick / Double(division)
                if !FloorReport.liesOnATickGrid(beat) {
                    Issue.record("MusE at \(division) ticks a beat, tick \(ticks): \(beat) is off every grid")
                    return
                }
                checked += 1
            }
        }
        #expect(checked == 17 * 20_000)
    }

    @Test("an exact host's beats are off every grid as soon as it moves off a whole tick: from its second block")
    func exactBeatsLeaveTheGrids() {
        for (rate, tempo) in [(48000.0, 120.0), (44100, 120), (96000, 133.7), (48000, 97), (44100, 174), (22050, 1000)] {
            for blockSize in [64, 128, 256, 512, 1024, 4096] {
                // A host that reports every block from frame 0: beat = frame × T / 60R.
                let beat = Double(blockSize) * Double(Float(tempo)) / (60 * rate)
                #expect(!FloorReport.liesOnATickGrid(beat), "\(rate) Hz, \(tempo) bpm, \(blockSize) frames")
            }
        }
        // A beat one ulp off a tick, or 1e-9 tick off, is off; 1e-12 tick off is within the rounding margin.
        #expect(!FloorReport.liesOnATickGrid(1.0 / 3 + 1e-9 / 12288))
        #expect(FloorReport.liesOnATickGrid(1.0 / 3))
        #expect(FloorReport.liesOnATickGrid(7 + 1.0 / 15360))
        #expect(!FloorReport.liesOnATickGrid(7 + 1.0 / 30720))
    }

    @Test("MusE at every division it offers and three tempos: every note at an ideal host's frame", arguments: [120.0, 133.7, 97.3])
    func museEveryDivision(bpm: Double) throws {
        let pattern = try String(contentsOf: FloorReportTests.hostPattern, encoding: .utf8)
        let actions = "0 tempo \(bpm)\n0 loop 0 8\n0 play\n576000 stop\n580000 end\n"
        let ideal = try log(pattern, "rate 48000\nsend on-change\nkeys beat\n" + actions)
        for division in [48, 96, 120, 192, 240, 384, 480, 768, 960, 1536, 1920, 3072, 3840, 6144, 7680, 12288, 15360] {
            let muse = try log(pattern, "rate 48000\nsend every-block\nkeys muse\nfloor-ticks \(division)\n" + actions)
            #expect(muse == ideal, "MusE at \(division) ticks a beat")
        }
    }

    @Test("MusE located onto a note at 133.7 bpm (its frame rounded up from the tick's): the note plays at the locate, as an ideal host's")
    func museLocateOntoANote() throws {
        // Beat 1 at 133.7 bpm, 48 kHz, is frame 21540.76: the host's frame is 21541, whose
        // frame × T / 60R is 0.24 frame past the beat. The floor is at the host's frame.
        let pattern = "length 2\nnote 1 1/4 60 100\n"
        let actions = "0 tempo 133.7\n0 locate 5\n0 play\n30000 locate 1\n60000 stop\n62000 end\n"
        let ideal = try log(pattern, "rate 48000\nsend on-change\nkeys beat\n" + actions)
        let muse = try log(pattern, "rate 48000\nsend every-block\nkeys muse\n" + actions)
        #expect(ideal.contains("30000 90 3c 64"))
        #expect(muse == ideal)
    }
}
