import BigInt
import Testing
import TactusEngine
import TactusModel
import TactusOffline

/// The core's pattern switches (timing contract §9.2-§9.4, §9.8) against
/// the exact-rational model `ReferenceSwitches`: random texts of 2-4
/// patterns of one lane, random requests by program change on every grid,
/// random block partitions; equal event for event.
/// `count` random patterns of one lane each, as text and as the model's parts: lengths from
/// `lengths`, 1 to `maxNotes` notes on quarter beats that end within their cycle, keys unique
/// over all patterns, every other pattern (at random) with a program from `firstProgram` up.
private func randomParts(
    _ rng: inout SplitMix64, count: Int, lengths: [(text: String, q: Q)], maxNotes: Int, firstProgram: Int
) -> (text: String, parts: [ReferenceSwitches.Part]) {
    func pick<T>(_ xs: [T]) -> T { xs[Int(rng.next() % UInt64(xs.count))] }
    var parts: [ReferenceSwitches.Part] = []
    var text = ""
    for p in 0..<count {
        let length = pick(lengths)
        let program: UInt8? = rng.next() % 2 == 0 ? UInt8(firstProgram + p) : nil
        text += "pattern p\(p)" + (program.map { " program \($0)" } ?? "") + "\nlane a length \(length.text)\n"
        var notes: [ReferenceSwitches.Note] = []
        let quarters = Int((length.q * Q(4)).ceiling)
        for n in 0..<(1 + Int(rng.next() % UInt64(maxNotes))) {
            let startQuarters = Int(rng.next() % UInt64(quarters))
            let start = Q(startQuarters) / Q(4)
            let room = length.q - start
            var duration = pick([Q(1) / Q(4), Q(1) / Q(2), Q(1)])
            if room < duration { duration = room }
            let key = UInt8(40 + p * 10 + n)
            notes.append(ReferenceSwitches.Note(start: start, duration: duration, key: key))
            text += "note \(startQuarters)/4 \(duration) \(key) 100\n"
        }
        parts.append(ReferenceSwitches.Part(length: length.q, notes: notes, program: program))
    }
    return (text, parts)
}

/// Renders `text` under `script` with blocks of 256 and of random sizes and expects the
/// events before `end` to be `expected`: the events compared, or nil at the first difference.
private func playsAsModel(text: String, script: String, end: Int64, seed: UInt64, expected: [LoggedEvent]) throws -> Int? {
    let pattern = try PatternParser.parse(bytes: Array(text.utf8))
    var compared = 0
    for plan in [BlockPlan.fixed(256), .random(minimum: 1, maximum: 2048, seed: seed)] {
        var events: [LoggedEvent] = []
        _ = OfflineRender(script: try TransportScript(parsing: script), sampleRate: 48000, blocks: plan).run(
            pattern: pattern, patternText: Array(text.utf8), loadPattern: { _ in .failure(PatternLoadError("no edits")) },
            onBlock: { e, _ in events += e })
        let got = ReferenceSwitches.inContractOrder(events.filter { $0.frame < end })
        #expect(got == expected, "seed \(seed), blocks \(plan):\n\(text)\n\(script)")
        if got != expected { return nil }
        compared += got.count
    }
    return compared
}

@Suite("Pattern switches against the reference model")
struct SwitchReferenceTests {
    @Test("random switch requests (now, beat, bar, bars N, end; phase restart or keep, grace, notes cut): the core emits what §9 says, event for event, for any block partition")
    func switchesMatchReference() throws {
        var checked = 0
        var graced = 0
        var onGrid = 0
        for seed in UInt64(1)...UInt64(60) {
            var rng = SplitMix64(seed: seed)
            func pick<T>(_ xs: [T]) -> T { xs[Int(rng.next() % UInt64(xs.count))] }
            let lengths: [(text: String, q: Q)] = [("2", Q(2)), ("3", Q(3)), ("4", Q(4)), ("5/2", Q(5) / Q(2))]
            let grids: [(text: String, grid: ReferenceSwitches.Grid)] = [("now", .now), ("beat", .beat), ("bar", .bar), ("bars 2", .bars(2)), ("end", .end)]
            let g = pick(grids)
            let keep = seed % 2 == 0
            let grace: (text: String, q: Q) = pick([("", Q.zero), ("", Q.zero), (" grace 1/8", Q(1) / Q(8)), (" grace 1/2", Q(1) / Q(2))])
            let count = 2 + Int(rng.next() % 3)
            let (body, parts) = randomParts(&rng, count: count, lengths: lengths, maxNotes: 4, firstProgram: 10)
            let text = "tactus-pattern 3\nswitch at \(g.text)\(keep ? " phase keep" : "")\(grace.text)\ntrigger program\n" + body
            let end: Int64 = 480_000  // beat 20 at 120 bpm, 48 kHz
            var requests: [(frame: Int64, part: Int)] = []
            var f: Int64 = Int64(rng.next() % 30_000)
            while f < end - 1000 {
                // Now and then exactly on a beat, or a frame off one.
                let frame = pick([f, (f / 24_000) * 24_000, (f / 24_000) * 24_000 + 1, f])
                if requests.last.map({ $0.frame < frame }) ?? true { requests.append((frame, Int(rng.next() % UInt64(parts.count)))) }
                f += Int64(5_000 + rng.next() % 60_000)
            }
            var script = "tactus-transport 1\nrate 48000\n0 tempo 120\n0 play\n"
            for r in requests { script += "\(r.frame) midi c0 \(String(r.part, radix: 16))\n" }
            script += "\(end) stop\n\(end + 1000) end\n"

            let model = ReferenceSwitches(parts: parts, grid: g.grid, keepsPhase: keep, grace: grace.q, framesPerBeat: Q(24_000))
            let expected = model.events(requests: requests, end: end)
            let switches = model.switches(requests: requests, end: end)
            graced += switches.filter { $0.from != $0.beat }.count
            onGrid += switches.dropFirst().filter { $0.from == $0.beat && Q(($0.beat).floor) == $0.beat }.count
            guard let count = try playsAsModel(text: text, script: script, end: end, seed: seed, expected: expected) else { return }
            checked += count
        }
        #expect(checked > 1000)
        // Both ways a switch lands: late within grace, and on a grid point.
        #expect(graced > 5 && onGrid > 20, "graced \(graced), on a grid point \(onGrid)")
    }

    @Test("random songs that loop (entries of 1-3 passes, a pattern following itself): the core plays what §9.5 says, event for event, for any block partition")
    func songsMatchReference() throws {
        var checked = 0
        for seed in UInt64(100)...UInt64(140) {
            var rng = SplitMix64(seed: seed)
            func pick<T>(_ xs: [T]) -> T { xs[Int(rng.next() % UInt64(xs.count))] }
            let lengths: [(text: String, q: Q)] = [("1", Q(1)), ("3/2", Q(3) / Q(2)), ("2", Q(2)), ("3", Q(3)), ("7/4", Q(7) / Q(4))]
            let count = 1 + Int(rng.next() % 3)
            let (body, parts) = randomParts(&rng, count: count, lengths: lengths, maxNotes: 3, firstProgram: 20)
            var text = "tactus-pattern 3\n" + body
            var entries: [(part: Int, passes: Int)] = []
            text += "song loop\n"
            for _ in 0..<(1 + Int(rng.next() % 4)) {
                let entry = (part: Int(rng.next() % UInt64(parts.count)), passes: 1 + Int(rng.next() % 3))
                entries.append(entry)
                text += "play p\(entry.part) \(entry.passes)\n"
            }
            let end: Int64 = 480_000
            let script = "tactus-transport 1\nrate 48000\n0 tempo 120\n0 play\n\(end) stop\n\(end + 1000) end\n"
            let model = ReferenceSwitches(parts: parts, grid: .bar, framesPerBeat: Q(24_000))
            let expected = model.events(switches: model.songSwitches(entries, end: end), end: end)
            guard let count = try playsAsModel(text: text, script: script, end: end, seed: seed, expected: expected) else { return }
            checked += count
        }
        #expect(checked > 1000)
    }

    @Test("songs of triplet-length cycles located a billion repetitions in (beats 2^31 to 2^32): every entry start and onset where the exact rationals put it (reading (w): no drift with the repetition count)")
    func farSongsMatchReference() throws {
        var checked = 0
        for seed in UInt64(300)...UInt64(330) {
            var rng = SplitMix64(seed: seed)
            // Cycles of thirds (and one dyadic): S is not a dyadic fraction, so m × S is never a double's exact product.
            let lengths: [(text: String, q: Q)] = [("2/3", Q(2) / Q(3)), ("4/3", Q(4) / Q(3)), ("5/3", Q(5) / Q(3)), ("7/3", Q(7) / Q(3)), ("1", Q(1))]
            let count = 1 + Int(rng.next() % 3)
            let (body, parts) = randomParts(&rng, count: count, lengths: lengths, maxNotes: 3, firstProgram: 30)
            var text = "tactus-pattern 3\n" + body + "song loop\n"
            var entries: [(part: Int, passes: Int)] = []
            for _ in 0..<(1 + Int(rng.next() % 4)) {
                let entry = (part: Int(rng.next() % UInt64(parts.count)), passes: 1 + Int(rng.next() % 3))
                entries.append(entry)
                text += "play p\(entry.part) \(entry.passes)\n"
            }
            // A start on a quarter beat between 2^31 and 2^32 (exact as a double): some 10^9 repetitions in.
            let quarters = (UInt64(1) << 33) + rng.next() % (UInt64(1) << 33)
            let start = Q(BigInt(quarters)) / Q(4)
            let end: Int64 = 240_000
            let script = "tactus-transport 1\nrate 48000\n0 tempo 120\n0 locate \(Double(quarters) / 4)\n0 play\n\(end) stop\n\(end + 1000) end\n"
            var model = ReferenceSwitches(parts: parts, grid: .bar, framesPerBeat: Q(24_000))
            model.startBeat = start
            let expected = model.events(switches: model.songSwitches(entries, end: end), end: end)
            guard let count = try playsAsModel(text: text, script: script, end: end, seed: seed, expected: expected) else { return }
            checked += count
        }
        #expect(checked > 500)
    }
}
