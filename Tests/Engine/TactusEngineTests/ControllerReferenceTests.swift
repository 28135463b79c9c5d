import Testing
import TactusEngine
import TactusModel
import TactusOffline

/// The core's controllers (timing contract §10) against the exact-rational
/// model `ReferenceControllers`: random version-3 lanes with controller
/// points, ramps (across the loop end too), swing, locks on overlapping
/// notes, jumps and tempo changes, under random block partitions; equal
/// event for event.
@Suite("Controllers against the reference model")
struct ControllerReferenceTests {
    /// A random text of 1-3 lanes (and what it says, for the log).
    static func randomText(_ rng: inout SplitMix64) -> String {
        var key = 30
        return "tactus-pattern 3\n" + randomLanes(&rng, key: &key)
    }

    /// 1-3 random lanes with notes (keys from `key` on, each once), locks, points and ramps.
    static func randomLanes(_ rng: inout SplitMix64, key: inout Int) -> String {
        func pick<T>(_ xs: [T]) -> T { xs[Int(rng.next() % UInt64(xs.count))] }
        var text = ""
        for l in 0..<(1 + Int(rng.next() % 3)) {
            let length = pick([(text: "2", eighths: 16), (text: "3", eighths: 24), (text: "4", eighths: 32), (text: "3/2", eighths: 12)])
            let channel = 1 + Int(rng.next() % 2)
            text += "lane l\(l) length \(length.text) channel \(channel)"
            if rng.next() % 3 == 0 { text += " swing 2/3 1/4" }
            text += " ramp-step " + pick(["1/8", "1/4", "1/3", "1/16"]) + "\n"
            for _ in 0..<(1 + Int(rng.next() % 4)) {
                let start = Int(rng.next() % UInt64(length.eighths))
                let durations = [2, 4, 8].filter { $0 < length.eighths }
                let duration = pick(durations)
                text += "note \(start)/8 \(duration)/8 \(key) \(60 + Int(rng.next() % 60))"
                key += 1
                if rng.next() % 2 == 0 { text += " cc74=\(rng.next() % 128)" }
                if rng.next() % 4 == 0 { text += " cc1=\(rng.next() % 128)" }
                text += "\n"
            }
            var used: Set<String> = []
            for _ in 0..<Int(rng.next() % 6) {
                let kind = pick(["cc 74", "cc 1", "bend", "pressure", "program", "cc 74", "cc 0"])
                let start = Int(rng.next() % UInt64(length.eighths))
                guard used.insert("\(kind) \(start)").inserted else { continue }
                let value = kind == "bend" ? Int(rng.next() % 16384) - 8192 : Int(rng.next() % 128)
                let ramp = kind != "program" && kind != "cc 0" && rng.next() % 2 == 0
                text += "\(kind) \(start)/8 \(value)\(ramp ? " ramp" : "")\n"
            }
        }
        return text
    }

    @Test("random texts of 2-4 patterns with controllers and locks, switch requests on every grid (phase restart or keep, notes cut or ring, grace): the core sends what §9 and §10 say, event for event, for any block partition")
    func switchesWithControllersMatchReference() throws {
        var compared = 0
        var switched = 0
        for seed in UInt64(1)...UInt64(60) {
            var rng = SplitMix64(seed: seed)
            func pick<T>(_ xs: [T]) -> T { xs[Int(rng.next() % UInt64(xs.count))] }
            let grids: [(text: String, grid: ReferenceSwitches.Grid)] = [("now", .now), ("beat", .beat), ("bar", .bar), ("bars 2", .bars(2)), ("end", .end)]
            let g = grids[Int(seed % 5)]
            let keep = (seed / 5) % 2 == 1
            let ring = (seed / 10) % 2 == 1
            let grace: (text: String, q: Q) = pick([("", Q.zero), ("", Q.zero), (" grace 1/8", Q(1) / Q(8)), (" grace 1/2", Q(1) / Q(2))])
            var text = "tactus-pattern 3\nswitch at \(g.text)\(keep ? " phase keep" : "")\(ring ? " notes ring" : "")\(grace.text)\ntrigger program\n"
            var key = 30
            let count = 2 + Int(rng.next() % 3)
            for p in 0..<count {
                text += "pattern p\(p)" + (rng.next() % 2 == 0 ? " program \(10 + p)" : "") + "\n"
                text += ControllerReferenceTests.randomLanes(&rng, key: &key)
            }
            let arrangement = try PatternParser.arrangement(text)
            let end: Int64 = 480_000
            var requests: [(frame: Int64, part: Int)] = []
            var f = Int64(rng.next() % 30_000)
            while f < end - 1000 {
                // Now and then exactly on a beat, or a frame off one.
                let frame = pick([f, (f / 24_000) * 24_000, (f / 24_000) * 24_000 + 1, f])
                if requests.last.map({ $0.frame < frame }) ?? true { requests.append((frame, Int(rng.next() % UInt64(count)))) }
                f += Int64(5_000 + rng.next() % 60_000)
            }
            var script = "tactus-transport 1\nrate 48000\n0 tempo 120\n0 play\n"
            for r in requests { script += "\(r.frame) midi c0 \(String(r.part, radix: 16))\n" }
            script += "\(end) stop\n\(end + 1000) end\n"
            // §9's switches from the one model of them; §10 and the notes from this one.
            let parts = arrangement.patterns.map { ReferenceSwitches.Part(length: Q($0.pattern.length), notes: [], program: nil) }
            let switches = ReferenceSwitches(parts: parts, grid: g.grid, keepsPhase: keep, grace: grace.q, framesPerBeat: Q(24_000))
                .switches(requests: requests, end: end)
            switched += switches.count - 1
            let model = ReferenceControllers(arrangement: arrangement, framesPerBeat: Q(24_000))
            let expected = model.events(switches: switches, ring: ring, end: end)
            for plan in [BlockPlan.fixed(256), .random(minimum: 1, maximum: 2048, seed: seed)] {
                var events: [LoggedEvent] = []
                _ = OfflineRender(script: try TransportScript(parsing: script), sampleRate: 48000, blocks: plan).run(
                    pattern: arrangement.patterns[0].pattern, patternText: Array(text.utf8), loadPattern: { _ in .failure(PatternLoadError("no edits")) },
                    onBlock: { e, _ in events += e })
                let got = events.filter { $0.frame < end }
                if got != expected {
                    let i = zip(got, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(got.count, expected.count)
                    Issue.record("seed \(seed), blocks \(plan): first difference at event \(i): core \(got[max(0, i - 3)..<min(got.count, i + 4)].map { EventLog.line($0) }), model \(expected[max(0, i - 3)..<min(expected.count, i + 4)].map { EventLog.line($0) })\n\(text)\n\(script)")
                    return
                }
                compared += got.count
            }
        }
        #expect(compared > 5000 && switched > 100, "\(compared) events compared, \(switched) switches")
    }

    @Test("random lanes with points, ramps across the loop end, swing, locks on overlapping notes, jumps and tempo changes: the core sends what §10 says, event for event, for any block partition")
    func controllersMatchReference() throws {
        var compared = 0
        var tempoChanges = 0
        for seed in UInt64(1)...UInt64(80) {
            var rng = SplitMix64(seed: seed)
            let text = ControllerReferenceTests.randomText(&rng)
            let end: Int64 = 480_000
            var updates: [(frame: Int64, update: ReferenceControllers.Update)] = []
            var script = "tactus-transport 1\nrate 48000\n0 tempo 120\n0 play\n"
            // Where play is: the anchor of §2 (frame, beat, frames a beat).
            var anchor = (frame: Int64(0), beat: Q.zero, rate: Q(24_000))
            var f: Int64 = 20_000 + Int64(rng.next() % 100_000)
            while f < end - 20_000, updates.count < 5 {
                let here = anchor.beat + Q(f - anchor.frame) / anchor.rate
                if rng.next() % 2 == 0 {
                    // A new tempo (§4: a repeat): bpm whose frames a beat at 48 kHz are whole.
                    let bpm = [90, 150, 100, 75, 160, 96, 120][Int(rng.next() % 7)]
                    let rate = Q(2_880_000) / Q(bpm)
                    updates.append((f, .tempo(framesPerBeat: rate)))
                    anchor = (f, here, rate)
                    script += "\(f) tempo \(bpm)\n"
                    tempoChanges += 1
                } else {
                    // Far from where play is: a jump (§4), not a correction.
                    let eighths = Int(rng.next() % 128)
                    let beat = Q(eighths) / Q(8)
                    if (beat - here).magnitude > Q(1) {
                        updates.append((f, .jump(beat)))
                        anchor = (f, beat, anchor.rate)
                        script += "\(f) locate \(eighths)/8\n"
                    }
                }
                f += 30_000 + Int64(rng.next() % 120_000)
            }
            script += "\(end) stop\n\(end + 1000) end\n"
            let pattern = try PatternParser.parse(text)
            let model = ReferenceControllers(pattern: pattern, framesPerBeat: Q(24_000))
            let expected = model.events(updates: updates, end: end)
            for plan in [BlockPlan.fixed(256), .random(minimum: 1, maximum: 2048, seed: seed)] {
                var events: [LoggedEvent] = []
                _ = OfflineRender(script: try TransportScript(parsing: script), sampleRate: 48000, blocks: plan).run(
                    pattern: pattern, patternText: Array(text.utf8), loadPattern: { _ in .failure(PatternLoadError("no edits")) },
                    onBlock: { e, _ in events += e })
                let got = events.filter { $0.frame < end }
                if got != expected {
                    let i = zip(got, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(got.count, expected.count)
                    Issue.record("seed \(seed), blocks \(plan): first difference at event \(i): core \(got.dropFirst(i).prefix(4).map { "\($0.frame) \($0.bytes)" }), model \(expected.dropFirst(i).prefix(4).map { "\($0.frame) \($0.bytes)" })\n\(text)\n\(script)")
                    return
                }
                compared += got.count
            }
        }
        #expect(compared > 5000, "\(compared) events compared")
        #expect(tempoChanges > 40, "\(tempoChanges) tempo changes")
    }
}
