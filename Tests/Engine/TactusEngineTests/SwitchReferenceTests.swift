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
/// `lengths`, 1 to `maxNotes` notes on quarter beats that end within their cycle (or past it, with
/// `overhang`: into the next pass or the next entry), keys unique
/// over all patterns, every other pattern (at random) with a program from `firstProgram` up.
private func randomParts(
    _ rng: inout SplitMix64, count: Int, lengths: [(text: String, q: Q)], maxNotes: Int, firstProgram: Int, overhang: Bool = false
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
            var duration = pick([Q(1) / Q(4), Q(1) / Q(2), Q(1)] + (overhang ? [Q(2), Q(3) / Q(2)] : []))
            if room < duration && !overhang { duration = room }
            let key = UInt8(40 + p * 10 + n)
            notes.append(ReferenceSwitches.Note(start: start, duration: duration, key: key))
            text += "note \(startQuarters)/4 \(duration) \(key) 100\n"
        }
        parts.append(ReferenceSwitches.Part(length: length.q, notes: notes, program: program))
    }
    return (text, parts)
}

/// 1 to 4 random song entries over `partCount` patterns, of 1 to `maxPasses` passes each: as `play` lines and as the model's.
private func randomEntries(_ rng: inout SplitMix64, partCount: Int, maxPasses: Int) -> (text: String, entries: [(part: Int, passes: Int)]) {
    var text = ""
    var entries: [(part: Int, passes: Int)] = []
    for _ in 0..<(1 + Int(rng.next() % 4)) {
        let entry = (part: Int(rng.next() % UInt64(partCount)), passes: 1 + Int(rng.next() % UInt64(maxPasses)))
        entries.append(entry)
        text += "play p\(entry.part) \(entry.passes)\n"
    }
    return (text, entries)
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
        #expect(got == expected, "seed \(seed), blocks \(plan): \(firstDifference(got, expected))\n\(text)\n\(script)")
        if got != expected { return nil }
        compared += got.count
    }
    return compared
}

/// Where two logs part, as `frame hex` lines around the first difference (core, then model).
private func firstDifference(_ got: [LoggedEvent], _ expected: [LoggedEvent]) -> String {
    let i = (0..<min(got.count, expected.count)).first { got[$0] != expected[$0] } ?? min(got.count, expected.count)
    func text(_ log: [LoggedEvent]) -> String {
        log[max(0, i - 3)..<min(log.count, i + 4)].map { EventLog.line($0) }.joined(separator: " | ")
    }
    return "event \(i): core \(text(got)); model \(text(expected))"
}

/// Plays one session a seed (its text, script, end and the model's events), and expects more than `least` events compared.
private func everySeed(
    _ seeds: ClosedRange<UInt64>, least: Int = 1000, _ session: (UInt64) throws -> (text: String, script: String, end: Int64, expected: [LoggedEvent])
) throws {
    var checked = 0
    for seed in seeds {
        let s = try session(seed)
        guard let count = try playsAsModel(text: s.text, script: s.script, end: s.end, seed: seed, expected: s.expected) else { return }
        checked += count
    }
    #expect(checked > least)
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
        try everySeed(UInt64(100)...UInt64(140)) { seed in
            var rng = SplitMix64(seed: seed)
            func pick<T>(_ xs: [T]) -> T { xs[Int(rng.next() % UInt64(xs.count))] }
            let lengths: [(text: String, q: Q)] = [("1", Q(1)), ("3/2", Q(3) / Q(2)), ("2", Q(2)), ("3", Q(3)), ("7/4", Q(7) / Q(4))]
            let count = 1 + Int(rng.next() % 3)
            let (body, parts) = randomParts(&rng, count: count, lengths: lengths, maxNotes: 3, firstProgram: 20)
            var text = "tactus-pattern 3\n" + body
            let (play, entries) = randomEntries(&rng, partCount: parts.count, maxPasses: 3)
            text += "song loop\n" + play
            let end: Int64 = 480_000
            let script = "tactus-transport 1\nrate 48000\n0 tempo 120\n0 play\n\(end) stop\n\(end + 1000) end\n"
            let model = ReferenceSwitches(parts: parts, grid: .bar, framesPerBeat: Q(24_000))
            let expected = model.events(switches: model.songSwitches(entries, end: end), end: end)
            return (text, script, end, expected)
        }
    }

    @Test("songs of triplet-length cycles located a billion repetitions in (beats 2^31 to 2^32): every entry start and onset where the exact rationals put it (reading (w): no drift with the repetition count)")
    func farSongsMatchReference() throws {
        try everySeed(UInt64(300)...UInt64(330), least: 500) { seed in
            var rng = SplitMix64(seed: seed)
            // Cycles of thirds (and one dyadic): S is not a dyadic fraction, so m × S is never a double's exact product.
            let lengths: [(text: String, q: Q)] = [("2/3", Q(2) / Q(3)), ("4/3", Q(4) / Q(3)), ("5/3", Q(5) / Q(3)), ("7/3", Q(7) / Q(3)), ("1", Q(1))]
            let count = 1 + Int(rng.next() % 3)
            let (body, parts) = randomParts(&rng, count: count, lengths: lengths, maxNotes: 3, firstProgram: 30)
            let (play, entries) = randomEntries(&rng, partCount: parts.count, maxPasses: 3)
            let text = "tactus-pattern 3\n" + body + "song loop\n" + play
            // A start on a quarter beat between 2^31 and 2^32 (exact as a double): some 10^9 repetitions in.
            let quarters = (UInt64(1) << 33) + rng.next() % (UInt64(1) << 33)
            let start = Q(BigInt(quarters)) / Q(4)
            let end: Int64 = 240_000
            let script = "tactus-transport 1\nrate 48000\n0 tempo 120\n0 locate \(Double(quarters) / 4)\n0 play\n\(end) stop\n\(end + 1000) end\n"
            var model = ReferenceSwitches(parts: parts, grid: .bar, framesPerBeat: Q(24_000))
            model.startBeat = start
            let expected = model.events(switches: model.songSwitches(entries, end: end), end: end)
            return (text, script, end, expected)
        }
    }

    /// A random song text (1-3 patterns, 1-4 entries, notes that may ring past their cycle) and its model.
    private static func randomSong(_ rng: inout SplitMix64, ending: ReferenceSong.Ending, ring: Bool) -> (text: String, model: ReferenceSong) {
        let lengths: [(text: String, q: Q)] = [("1", Q(1)), ("3/2", Q(3) / Q(2)), ("2", Q(2)), ("3", Q(3)), ("4/3", Q(4) / Q(3))]
        let count = 1 + Int(rng.next() % 3)
        let (body, parts) = randomParts(&rng, count: count, lengths: lengths, maxNotes: 3, firstProgram: 40, overhang: true)
        let (play, entries) = randomEntries(&rng, partCount: parts.count, maxPasses: 2)
        let text = "tactus-pattern 3\n" + (ring ? "switch notes ring\n" : "") + body
            + "song \(ending == .loop ? "loop" : ending == .stop ? "stop" : "hold")\n" + play
        return (text, ReferenceSong(parts: parts, entries: entries, ending: ending, ring: ring, framesPerBeat: Q(24_000)))
    }

    @Test("random songs that loop, stop or hold, notes cut or ring, with locates into them while rolling: the core plays what §9.5 and §4 say, event for event, for any block partition")
    func songsWithJumpsMatchReference() throws {
        try everySeed(UInt64(400)...UInt64(460)) { seed in
            var rng = SplitMix64(seed: seed)
            let ending = [ReferenceSong.Ending.loop, .stop, .hold][Int(seed % 3)]
            let ring = (seed / 3) % 2 == 1
            let (text, model) = SwitchReferenceTests.randomSong(&rng, ending: ending, ring: ring)
            let length = model.starts[model.starts.count - 1]
            let end: Int64 = 480_000
            var jumps: [(frame: Int64, beat: Q)] = []
            var f = Int64(20_000 + rng.next() % 100_000)
            while f < end - 10_000 {
                // A quarter beat within the first three repetitions (entry starts among them), sometimes an exact entry start.
                let quarters = Int64(rng.next() % UInt64(max(1, Int(((length * Q(3)) * Q(4)).floor))))
                // (A host sends a double: an entry start of thirds is not one, so only the dyadic ones are aimed at.)
                let start = model.starts[Int(rng.next() % UInt64(model.starts.count))]
                let dyadic = start.den & (start.den - 1) == 0
                var target = rng.next() % 3 == 0 && dyadic ? start : Q(quarters) / Q(4)
                // A jump, not a correction (§4: more than 1/16 beat from where the clock is).
                let previous = jumps.last ?? (0, .zero)
                let here = previous.beat + Q(BigInt(f - previous.frame)) / Q(24_000)
                let distance = target < here ? here - target : target - here
                if !(Q(1) / Q(8) < distance) { target = target + Q(1) }
                jumps.append((f, target))
                f += Int64(30_000 + rng.next() % 150_000)
            }
            var script = "tactus-transport 1\nrate 48000\n0 tempo 120\n0 play\n"
            for j in jumps { script += "\(j.frame) locate \(Double(j.beat.num) / Double(j.beat.den))\n" }
            script += "\(end) stop\n\(end + 1000) end\n"
            let expected = model.events(jumps: jumps, end: end)
            return (text, script, end, expected)
        }
    }

    @Test("random songs with the song control turned off and on again while rolling: what plays plays on, then the song's entry at that beat takes over (its program, cut or ring), event for event")
    func songControlMatchesReference() throws {
        try everySeed(UInt64(500)...UInt64(540)) { seed in
            var rng = SplitMix64(seed: seed)
            let ending = [ReferenceSong.Ending.loop, .stop, .hold][Int(seed % 3)]
            let (text, model) = SwitchReferenceTests.randomSong(&rng, ending: ending, ring: seed % 2 == 1)
            let end: Int64 = 480_000
            // Off and on again at frames off any beat (odd), twice.
            let off1 = Int64(10_001 + 2 * (rng.next() % 60_000))
            let on1 = off1 + Int64(1_000 + 2 * (rng.next() % 60_000))
            let off2 = on1 + Int64(1_000 + 2 * (rng.next() % 60_000))
            let on2 = off2 + Int64(1_000 + 2 * (rng.next() % 60_000))
            let toggles: [(frame: Int64, on: Bool)] = [(off1, false), (on1, true), (off2, false), (on2, true)].filter { $0.frame < end - 1000 }
            var script = "tactus-transport 1\nrate 48000\n0 tempo 120\n0 play\n"
            for t in toggles { script += "\(t.frame) song \(t.on ? "on" : "off")\n" }
            script += "\(end) stop\n\(end + 1000) end\n"
            let expected = model.events(toggles: toggles, end: end)
            return (text, script, end, expected)
        }
    }
}
