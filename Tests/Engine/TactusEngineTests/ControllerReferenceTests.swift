import Testing
import TactusEngine
import TactusModel
import TactusOffline

/// The core's controllers (timing contract §10) against the exact-rational
/// model `ReferenceControllers`: random version-3 lanes with controller
/// points, ramps (across the loop end too), swing, locks on overlapping
/// notes and jumps, under random block partitions; equal event for event.
@Suite("Controllers against the reference model")
struct ControllerReferenceTests {
    /// A random text of 1-3 lanes (and what it says, for the log).
    static func randomText(_ rng: inout SplitMix64) -> String {
        func pick<T>(_ xs: [T]) -> T { xs[Int(rng.next() % UInt64(xs.count))] }
        var text = "tactus-pattern 3\n"
        var key = 30
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

    @Test("random lanes with points, ramps across the loop end, swing, locks on overlapping notes and jumps: the core sends what §10 says, event for event, for any block partition")
    func controllersMatchReference() throws {
        var compared = 0
        for seed in UInt64(1)...UInt64(80) {
            var rng = SplitMix64(seed: seed)
            let text = ControllerReferenceTests.randomText(&rng)
            let end: Int64 = 480_000
            var jumps: [(frame: Int64, beat: Q)] = []
            var script = "tactus-transport 1\nrate 48000\n0 tempo 120\n0 play\n"
            var f: Int64 = 20_000 + Int64(rng.next() % 100_000)
            while f < end - 20_000, jumps.count < 3 {
                // Far from where play is (after the jumps before): a jump (§4), not a correction.
                let eighths = Int(rng.next() % 128)
                let beat = Q(eighths) / Q(8)
                let at = jumps.last.map { $0.beat + Q(f - $0.frame) / Q(24_000) } ?? Q(f) / Q(24_000)
                if (beat - at).magnitude > Q(1) {
                    jumps.append((f, beat))
                    script += "\(f) locate \(eighths)/8\n"
                }
                f += 40_000 + Int64(rng.next() % 150_000)
            }
            script += "\(end) stop\n\(end + 1000) end\n"
            let pattern = try PatternParser.parse(text)
            let model = ReferenceControllers(pattern: pattern, framesPerBeat: Q(24_000))
            let expected = model.events(jumps: jumps, end: end)
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
    }
}
