import BigInt
import Testing
import TactusEngine
import TactusModel
import TactusOffline

// Helpers are private so they cannot collide with other test files of this target.

private func q(_ n: Int64, _ d: Int64 = 1) -> BeatRational { BeatRational(numerator: n, denominator: d)! }

/// An exact rational in arbitrary precision: the independent truth the
/// snapshot's Int128 arithmetic is checked against.
private struct Exact: Comparable {
    var num: BigInt
    var den: BigInt  // > 0

    init(_ num: BigInt, _ den: BigInt) {
        self.num = num
        self.den = den
    }

    init(_ r: BeatRational) { self.init(BigInt(r.numerator), BigInt(r.denominator)) }

    static func + (a: Exact, b: Exact) -> Exact { Exact(a.num * b.den + b.num * a.den, a.den * b.den) }
    static func * (k: Int64, a: Exact) -> Exact { Exact(BigInt(k) * a.num, a.den) }
    static func < (a: Exact, b: Exact) -> Bool { a.num * b.den < b.num * a.den }
    static func == (a: Exact, b: Exact) -> Bool { a.num * b.den == b.num * a.den }

    /// `floor(self)` and the remainder `self - floor(self)` as `(numerator, den)`.
    var floorAndRemainder: (whole: BigInt, remainder: BigInt) {
        var w = num / den
        if w * den > num { w -= 1 }
        return (w, num - w * den)
    }
}

/// A snapshot that is destroyed when the closure returns, whatever happens.
private func withSnapshot<R>(_ pattern: Pattern, _ body: (PatternSnapshot) throws -> R) rethrows -> R {
    let snapshot = PatternSnapshot.make(pattern)
    defer { snapshot.destroy() }
    return try body(snapshot)
}

/// Pattern notes in the order the snapshot must hold them: by start, ties in text order.
private func expectedOrder(_ pattern: Pattern) -> [Int] {
    pattern.notes.indices.sorted { a, b in
        let sa = pattern.notes[a].start
        let sb = pattern.notes[b].start
        return sa != sb ? sa < sb : a < b
    }
}

/// A note whose (channel, key) slot identifies its line, so the snapshot order can be read back.
private func taggedNote(_ line: Int, start: BeatRational, duration: BeatRational = q(1)) -> PatternNote {
    PatternNote(start: start, duration: duration, key: UInt8(line % 128), velocity: UInt8(line % 127 + 1),
                channel: UInt8(line / 128 + 1))
}

private func slot(of note: PatternNote) -> UInt16 { UInt16(note.channel - 1) * 128 + UInt16(note.key) }

/// A random start below `length` with a denominator the format allows.
private func randomStart(below length: BeatRational, using rng: inout SplitMix64) -> BeatRational {
    var dens: [Int64] = [1, 2, 3, 7, 64, 1000, 1_000_000, 2_147_483_647, length.denominator]
    if length.denominator < (1 << 30) { dens.append(length.denominator * 2) }
    while true {
        let d = dens[Int.random(in: 0..<dens.count, using: &rng)]
        let top = min(Int64((length.approximateValue * Double(d)).rounded(.down)), PatternLimits.fractionPartLimit - 1)
        let s = q(Int64.random(in: 0...max(top, 0), using: &rng), d)
        if s < length { return s }
    }
}

/// Loop lengths from absurdly short to the longest the format allows.
private let cursorLengths: [BeatRational] = [
    q(1, 2_147_483_647), q(1, 1000), q(3, 1000), q(1, 64), q(1, 7), q(13, 16), q(1), q(7, 3), q(4), q(1_000_000),
]

/// A random pattern for the cursor tests: 1-8 notes, some sharing a start.
private func randomCursorPattern(using rng: inout SplitMix64) -> Pattern {
    let length = cursorLengths[Int.random(in: 0..<cursorLengths.count, using: &rng)]
    var starts: [BeatRational] = []
    for _ in 0..<Int.random(in: 1...8, using: &rng) {
        if !starts.isEmpty, Int.random(in: 0..<4, using: &rng) == 0 {
            starts.append(starts[Int.random(in: 0..<starts.count, using: &rng)])  // a group
        } else {
            starts.append(randomStart(below: length, using: &rng))
        }
    }
    return Pattern(length: length, notes: starts.enumerated().map { taggedNote($0.offset, start: $0.element) })
}

/// How far from beat 0 the tests look: far for ordinary loops, nearer for
/// loops so short that the pass index would leave `Int64` range.
private func beatRange(for length: BeatRational) -> Int64 {
    length < q(1, 1000) ? 1000 : (1 << 32)
}

/// The onset `(loop, index)` at the snapshot's own beat arithmetic: the value the
/// cursor compares, so a brute force over it pins the search logic exactly.
private func onsetBeat(_ s: PatternSnapshot, _ loop: Int64, _ index: Int) -> BeatPosition {
    s.loopStart(loop)! + s.note(index).start
}

/// `floor(beat / length)`, close enough to start an enumeration a few passes early.
private func estimatedPass(_ s: PatternSnapshot, _ beat: BeatPosition) -> Int64 {
    let l = s.length
    let k = (Double(beat.whole) + beat.fraction) * Double(l.denominator) / Double(l.numerator)
    return Int64(k.rounded(.down))
}

private struct Onset: Equatable, CustomStringConvertible {
    var loop: Int64
    var index: Int
    var description: String { "(\(loop), \(index))" }
}

/// The first onset at or after `beat`, by enumerating every onset from a few passes before it.
private func bruteFirst(_ s: PatternSnapshot, atOrAfter beat: BeatPosition) -> Onset? {
    let k0 = estimatedPass(s, beat) - 3
    guard onsetBeat(s, k0, s.noteCount - 1) < beat else { return nil }  // started too late: a test bug
    var k = k0
    while true {
        for i in 0..<s.noteCount where !(onsetBeat(s, k, i) < beat) { return Onset(loop: k, index: i) }
        k += 1
    }
}

/// Every onset in `[a, b)`, in play order, by enumeration.
private func bruteWindow(_ s: PatternSnapshot, from a: BeatPosition, to b: BeatPosition) -> [Onset] {
    var out: [Onset] = []
    for k in (estimatedPass(s, a) - 3)...(estimatedPass(s, b) + 3) {
        for i in 0..<s.noteCount {
            let beat = onsetBeat(s, k, i)
            if !(beat < a) && beat < b { out.append(Onset(loop: k, index: i)) }
        }
    }
    return out
}

private func randomBeat(within range: Int64, using rng: inout SplitMix64) -> BeatPosition {
    let scale = [Int64(3), 100, range][Int.random(in: 0..<3, using: &rng)]
    return BeatPosition(whole: Int64.random(in: -scale...scale, using: &rng), fraction: Double.random(in: 0..<1, using: &rng))
}

private func justBefore(_ b: BeatPosition) -> BeatPosition {
    b.fraction > 0 ? BeatPosition(whole: b.whole, fraction: b.fraction.nextDown) : BeatPosition(whole: b.whole - 1, fraction: 1.0.nextDown)
}

private func justAfter(_ b: BeatPosition) -> BeatPosition {
    b.fraction.nextUp < 1 ? BeatPosition(whole: b.whole, fraction: b.fraction.nextUp) : BeatPosition(whole: b.whole + 1, fraction: 0)
}

@Suite("Pattern snapshot: order, groups and end ranks")
struct PatternSnapshotOrderTests {
    @Test func notesAreSortedByStartThenByTextOrder() {
        let starts = [q(2), q(0), q(1, 3), q(0), q(2), q(1, 3), q(7, 2), q(0), q(2_147_483_646, 2_147_483_647)]
        let pattern = Pattern(length: q(4), notes: starts.enumerated().map { taggedNote($0.offset, start: $0.element) })
        withSnapshot(pattern) { s in
            #expect(s.noteCount == starts.count)
            let lines = (0..<s.noteCount).map { i in pattern.notes.firstIndex { slot(of: $0) == s.note(i).slot }! }
            #expect(lines == [1, 3, 7, 2, 5, 8, 0, 4, 6])
        }
    }

    @Test func randomPatternsAreSortedAndCarryEachNoteExactly() {
        var rng = SplitMix64(seed: 11)
        for _ in 0..<200 {
            let length = [q(4), q(7, 3), q(1_000_000), q(1, 64)][Int.random(in: 0..<4, using: &rng)]
            var notes: [PatternNote] = []
            for line in 0..<Int.random(in: 0...300, using: &rng) {
                let start = notes.isEmpty || Bool.random(using: &rng)
                    ? randomStart(below: length, using: &rng) : notes[Int.random(in: 0..<notes.count, using: &rng)].start
                notes.append(taggedNote(line, start: start, duration: randomStart(below: q(1000), using: &rng) + q(1, 3)))
            }
            let pattern = Pattern(length: length, notes: notes)
            let order = expectedOrder(pattern)
            withSnapshot(pattern) { s in
                #expect(s.length == length)
                for (i, line) in order.enumerated() {
                    let n = s.note(i)
                    let note = pattern.notes[line]
                    #expect(n.slot == slot(of: note) && n.velocity == note.velocity)
                    let (w, r) = Exact(note.start).floorAndRemainder
                    #expect(BigInt(n.start.whole) == w)
                    #expect(abs(n.start.fraction - Double(r) / Double(note.start.denominator)) <= 1e-16)
                    let end = Exact(note.start) + Exact(note.duration)
                    let (ew, er) = end.floorAndRemainder
                    #expect(BigInt(n.end.whole) == ew)
                    #expect(abs(n.end.fraction - Double(er) / Double(end.den)) <= 1e-15)
                }
            }
        }
    }

    @Test func groupsSpanTheNotesThatShareAStart() {
        let starts = [q(1), q(0), q(1), q(3, 2), q(1), q(0), q(2, 2), q(3)]
        let pattern = Pattern(length: q(4), notes: starts.enumerated().map { taggedNote($0.offset, start: $0.element) })
        withSnapshot(pattern) { s in
            // Sorted starts: 0 0 | 1 1 1 1 | 3/2 | 3
            #expect((0..<8).map { s.note($0).groupFirst } == [0, 0, 2, 2, 2, 2, 6, 7])
            #expect((0..<8).map { s.note($0).groupNext } == [2, 2, 6, 6, 6, 6, 7, 8])
        }
    }

    @Test func randomPatternsHaveExactGroups() {
        var rng = SplitMix64(seed: 12)
        for _ in 0..<300 {
            var starts: [BeatRational] = []
            for _ in 0..<Int.random(in: 1...40, using: &rng) {
                starts.append(starts.isEmpty || Int.random(in: 0..<3, using: &rng) == 0
                    ? randomStart(below: q(2), using: &rng) : starts[Int.random(in: 0..<starts.count, using: &rng)])
            }
            let pattern = Pattern(length: q(2), notes: starts.enumerated().map { taggedNote($0.offset, start: $0.element) })
            let sorted = expectedOrder(pattern).map { pattern.notes[$0].start }
            withSnapshot(pattern) { s in
                for i in sorted.indices {
                    let first = sorted.firstIndex(of: sorted[i])!
                    let next = sorted[i...].firstIndex { $0 != sorted[i] } ?? sorted.count
                    #expect(Int(s.note(i).groupFirst) == first)
                    #expect(Int(s.note(i).groupNext) == next)
                }
            }
        }
    }

    /// The exact rank of each note's end among all ends (ties share one), by BigInt.
    private static func exactEndRanks(_ pattern: Pattern) -> [Int32] {
        let ends = pattern.notes.map { Exact($0.start) + Exact($0.duration) }
        return ends.map { e in
            var distinctBelow: [Exact] = []
            for other in ends where other < e && !distinctBelow.contains(other) { distinctBelow.append(other) }
            return Int32(distinctBelow.count)
        }
    }

    private static func snapshotEndRanksByLine(_ pattern: Pattern, _ s: PatternSnapshot) -> [Int32] {
        var byLine = [Int32](repeating: -1, count: pattern.notes.count)
        for (i, line) in expectedOrder(pattern).enumerated() { byLine[line] = s.note(i).endRank }
        return byLine
    }

    @Test func endRankOrdersEndsExactlyWhereDoublesCannot() {
        let big = q(999_999)
        let pattern = Pattern(length: q(1_000_000), notes: [
            taggedNote(0, start: big, duration: q(1, 2_147_483_646)),  // 999999 + 4.6566128752e-10
            taggedNote(1, start: big, duration: q(1, 2_147_483_647)),  // 2.2e-19 earlier than line 0
            taggedNote(2, start: q(999_998), duration: q(3, 2)),  // ties with line 3
            taggedNote(3, start: q(1_999_997, 2), duration: q(1)),
            taggedNote(4, start: q(999_998), duration: q(2_147_483_645, 2_147_483_646)),  // 999999 - 1/2147483646
            taggedNote(5, start: q(999_998), duration: q(2_147_483_646, 2_147_483_647)),  // 999999 - 1/2147483647
            taggedNote(6, start: big, duration: q(1, 2_147_483_647)),  // same end as line 1
            taggedNote(7, start: q(1, 3), duration: q(2, 3)),  // end 1, from thirds
            taggedNote(8, start: q(1, 2), duration: q(1, 2)),  // end 1, from halves
            taggedNote(9, start: big, duration: q(1)),  // end 1000000
        ])
        // The double ends of lines 0, 1 and 6 are equal: only exact arithmetic tells them apart.
        let nearEnd0: Double = 999_999 + 1 / 2_147_483_646.0
        let nearEnd1: Double = 999_999 + 1 / 2_147_483_647.0
        #expect(nearEnd0 == nearEnd1)
        withSnapshot(pattern) { s in
            let ranks = Self.snapshotEndRanksByLine(pattern, s)
            #expect(ranks == Self.exactEndRanks(pattern))
            #expect(ranks == [4, 3, 5, 5, 1, 2, 3, 0, 0, 6])
        }
    }

    @Test func randomPatternsHaveExactEndRanks() {
        var rng = SplitMix64(seed: 13)
        for _ in 0..<150 {
            let length = [q(1_000_000), q(4), q(7, 3)][Int.random(in: 0..<3, using: &rng)]
            var notes: [PatternNote] = []
            for line in 0..<Int.random(in: 1...40, using: &rng) {
                // Durations a hair below whole beats, and starts on whole beats, make
                // ends that tie or differ by far less than a double can see.
                let d = [Int64(1), 2, 3, 2_147_483_646, 2_147_483_647][Int.random(in: 0..<5, using: &rng)]
                let duration = d < 4
                    ? q(Int64.random(in: 1...(3 * d), using: &rng), d)
                    : q([1, 2, d - 2, d - 1, d][Int.random(in: 0..<5, using: &rng)], d)
                let start = Bool.random(using: &rng) && length > q(2)
                    ? length - q(Int64.random(in: 1...2, using: &rng)) : randomStart(below: length, using: &rng)
                notes.append(taggedNote(line, start: start, duration: duration))
            }
            let pattern = Pattern(length: length, notes: notes)
            guard pattern.validationError() == nil else { continue }
            withSnapshot(pattern) { s in
                #expect(Self.snapshotEndRanksByLine(pattern, s) == Self.exactEndRanks(pattern))
            }
        }
    }

    @Test func snapshotKeepsTheTextItWasGiven() {
        let pattern = Pattern(length: q(4), notes: [taggedNote(0, start: q(1, 3))])
        let given = Array("tactus-pattern 1\nlength 4 # mine\nnote 1/3 1 0 1\n".utf8)
        let s = PatternSnapshot.make(pattern, text: given)
        defer { s.destroy() }
        #expect(Array(s.text) == given)
        withSnapshot(pattern) { written in
            #expect(Array(written.text) == Array(PatternWriter.text(for: pattern).utf8))
        }
    }

    @Test func loopStartIsExactInItsWholePart() {
        var rng = SplitMix64(seed: 14)
        for length in cursorLengths + [q(2_147_483_647, 2_147_483_646), q(999_999, 7)] {
            withSnapshot(Pattern(length: length, notes: [taggedNote(0, start: .zero)])) { s in
                for _ in 0..<200 {
                    let k = Int64.random(in: -1_000_000_000...1_000_000_000, using: &rng) / (length < q(1) ? 1 : 1000)
                    guard let start = s.loopStart(k) else { Issue.record("loopStart(\(k)) is nil"); return }
                    let (w, r) = (k * Exact(length)).floorAndRemainder
                    #expect(BigInt(start.whole) == w)
                    #expect(start.fraction >= 0 && start.fraction < 1)
                    #expect(abs(start.fraction - Double(r) / Double(length.denominator)) <= 1e-16)
                }
            }
        }
    }
}

private extension BeatRational {
    static func + (a: BeatRational, b: BeatRational) -> BeatRational {
        q(a.numerator * b.denominator + b.numerator * a.denominator, a.denominator * b.denominator)
    }
    static func - (a: BeatRational, b: BeatRational) -> BeatRational {
        q(a.numerator * b.denominator - b.numerator * a.denominator, a.denominator * b.denominator)
    }
}

@Suite("Onset cursor against brute force")
struct OnsetCursorTests {
    @Test func emptyPatternHasNoOnsets() {
        withSnapshot(Pattern(length: q(4))) { s in
            #expect(OnsetCursor.first(atOrAfter: .zero, in: s) == nil)
            #expect(OnsetCursor(loop: 0, index: 0, in: s) == nil)
        }
    }

    @Test func firstAtOrAfterMatchesEnumerationAtRandomBeats() {
        var rng = SplitMix64(seed: 21)
        for _ in 0..<150 {
            let pattern = randomCursorPattern(using: &rng)
            withSnapshot(pattern) { s in
                let range = beatRange(for: pattern.length)
                var beats: [BeatPosition] = []
                for _ in 0..<20 { beats.append(randomBeat(within: range, using: &rng)) }
                // Beats on an onset and a hair either side of it: the edges of "at or after".
                for _ in 0..<10 {
                    let b = randomBeat(within: range, using: &rng)
                    let onset = onsetBeat(s, estimatedPass(s, b), Int.random(in: 0..<s.noteCount, using: &rng))
                    beats += [onset, justBefore(onset), justAfter(onset)]
                }
                for b in beats {
                    guard let expected = bruteFirst(s, atOrAfter: b) else {
                        Issue.record("brute force started too late for \(b)")
                        continue
                    }
                    let found = OnsetCursor.first(atOrAfter: b, in: s).map { Onset(loop: $0.loop, index: $0.index) }
                    #expect(found == expected, "length \(pattern.length), beat \(b.whole) + \(b.fraction)")
                }
            }
        }
    }

    @Test func onsetOnTheQueriedBeatIsFoundAndAHairLaterIsNot() {
        // Dyadic starts and length: every beat here is exact, so the expectations are exact too.
        let pattern = Pattern(length: q(3, 2), notes: [
            taggedNote(0, start: q(1, 4)), taggedNote(1, start: q(0)), taggedNote(2, start: q(1, 4)), taggedNote(3, start: q(5, 4)),
        ])
        withSnapshot(pattern) { s in
            func first(_ whole: Int64, _ fraction: Double) -> Onset? {
                OnsetCursor.first(atOrAfter: BeatPosition(whole: whole, fraction: fraction), in: s).map { Onset(loop: $0.loop, index: $0.index) }
            }
            // Sorted: 0 (line 1), 1/4 (line 0), 1/4 (line 2), 5/4 (line 3).
            #expect(first(0, 0) == Onset(loop: 0, index: 0))
            #expect(first(0, 0.25) == Onset(loop: 0, index: 1))  // first of its group
            #expect(first(0, 0.25.nextUp) == Onset(loop: 0, index: 3))
            #expect(first(1, 0.25) == Onset(loop: 0, index: 3))
            #expect(first(1, 0.25.nextUp) == Onset(loop: 1, index: 0))
            #expect(first(1, 0.5) == Onset(loop: 1, index: 0))
            #expect(first(-1, 0.5) == Onset(loop: -1, index: 3))  // pass -1 starts at -3/2; -3/2 + 5/4 = -1/4
            #expect(first(-2, 0.5) == Onset(loop: -1, index: 0))
            #expect(first(-2, 0.0) == Onset(loop: -2, index: 3))  // -3 + 5/4 = -1.75 ≥ -2
            #expect(first(-1_000_000, 0.75) == Onset(loop: -666_667, index: 3))  // -1000000.5 + 5/4, exactly on it
        }
    }

    @Test func windowQueryReturnsExactlyTheOnsetsInTheWindow() {
        var rng = SplitMix64(seed: 22)
        var longestWindowPasses: Int64 = 0
        for _ in 0..<120 {
            let pattern = randomCursorPattern(using: &rng)
            withSnapshot(pattern) { s in
                let range = beatRange(for: pattern.length)
                let a = Bool.random(using: &rng)
                    ? randomBeat(within: range, using: &rng)
                    : onsetBeat(s, estimatedPass(s, randomBeat(within: range, using: &rng)), Int.random(in: 0..<s.noteCount, using: &rng))
                // Up to 400 passes of the loop, plus a ragged end.
                let passes = Int64.random(in: 0...400, using: &rng)
                let width = Double(passes) * pattern.length.approximateValue * Double.random(in: 0.9...1.1, using: &rng)
                let b = a.advanced(by: width)
                longestWindowPasses = max(longestWindowPasses, passes)
                let expected = bruteWindow(s, from: a, to: b)
                var found: [Onset] = []
                if var c = OnsetCursor.first(atOrAfter: a, in: s) {
                    while c.beat(in: s) < b, found.count <= expected.count {
                        found.append(Onset(loop: c.loop, index: c.index))
                        guard c.advance(in: s) else { break }
                    }
                    // The count of onsets between the window's two edge cursors agrees.
                    if let end = OnsetCursor.first(atOrAfter: b, in: s) {
                        #expect(end.onsetCount(since: c, in: s) == 0)
                        #expect(Int(end.onsetCount(since: OnsetCursor.first(atOrAfter: a, in: s)!, in: s)) == expected.count)
                    }
                }
                #expect(found == expected, "length \(pattern.length), window \(a) ..< \(b)")
            }
        }
        #expect(longestWindowPasses >= 300)
    }

    @Test func onsetCountCountsAdvancesBetweenCursors() {
        var rng = SplitMix64(seed: 23)
        for _ in 0..<100 {
            let pattern = randomCursorPattern(using: &rng)
            withSnapshot(pattern) { s in
                let start = OnsetCursor.first(atOrAfter: randomBeat(within: beatRange(for: pattern.length), using: &rng), in: s)!
                var c = start
                for steps in 0...Int64.random(in: 0...500, using: &rng) {
                    #expect(c.onsetCount(since: start, in: s) == steps)
                    #expect(start.onsetCount(since: c, in: s) == 0)  // never negative
                    #expect(start.isBefore(c) == (steps > 0))
                    _ = c.advance(in: s)
                }
            }
        }
    }

    @Test func onsetCountSaturatesInsteadOfOverflowing() {
        // A loop this short lets pass indices near ±4e18 still be real beats.
        withSnapshot(Pattern(length: q(1, 2_147_483_647), notes: [taggedNote(0, start: .zero), taggedNote(1, start: .zero)])) { s in
            let early = OnsetCursor(loop: -4_000_000_000_000_000_000, index: 0, in: s)!
            let late = OnsetCursor(loop: 4_000_000_000_000_000_000, index: 1, in: s)!
            #expect(late.onsetCount(since: early, in: s) == Int64.max)
            #expect(early.onsetCount(since: late, in: s) == 0)
        }
    }

    /// 140 distinct starts, all of whose nearest doubles are 1.2360679774997896: the
    /// consecutive fractions of denominator at most 1431655764 (so numerators stay
    /// below 2^31, a valid pattern) in that double's rounding interval, generated by
    /// the Farey next-term recurrence from two neighbours found offline.
    private static func startsSharingOneDouble() -> [BeatRational] {
        let order: Int64 = 1_431_655_764
        var (a, b, c, d): (Int64, Int64, Int64, Int64) = (1_749_740_140, 1_415_569_509, 39_088_169, 31_622_993)
        var starts: [BeatRational] = []
        while Double(c) / Double(d) == 1.2360679774997896 {
            starts.append(q(c, d))
            let k = (order + b) / d
            (a, b, c, d) = (c, d, k * c - a, k * d - b)
        }
        return starts
    }

    /// The search must rank starts by the same split positions the onsets are
    /// computed from: with more than 64 distinct starts inside one double, a
    /// search by single doubles stopped at an onset before the requested beat.
    @Test func firstAtOrAfterWithMoreThan64StartsInsideOneDouble() throws {
        let starts = Self.startsSharingOneDouble()
        #expect(starts.count == 140)
        let pattern = Pattern(length: q(2), notes: starts.enumerated().map { taggedNote($0.offset, start: $0.element) })
        #expect(pattern.validationError() == nil)
        #expect(starts.allSatisfy { $0.numerator < PatternLimits.fractionPartLimit && $0.denominator < PatternLimits.fractionPartLimit })
        try withSnapshot(pattern) { s in
            // The 78th start in order is the first whose split position reaches this beat.
            let beat = BeatPosition(whole: 1, fraction: s.note(77).start.fraction)
            #expect(beat == BeatPosition(whole: 1, fraction: 0.2360679774997896))
            let expected = try #require(bruteFirst(s, atOrAfter: beat))
            #expect(expected == Onset(loop: 0, index: 77))
            let found = try #require(OnsetCursor.first(atOrAfter: beat, in: s))
            #expect(Onset(loop: found.loop, index: found.index) == expected)
            #expect(!(found.beat(in: s) < beat), "returned an onset before the requested beat")
        }
    }

    @Test func advanceWrapsIntoTheNextPassAndAdvanceGroupSkipsTies() {
        let pattern = Pattern(length: q(1, 7), notes: [
            taggedNote(0, start: q(1, 14)), taggedNote(1, start: .zero), taggedNote(2, start: q(1, 14)),
        ])
        withSnapshot(pattern) { s in
            var c = OnsetCursor(loop: -1, index: 2, in: s)!
            var moved = c.advance(in: s)
            #expect(moved)
            #expect(c.loop == 0 && c.index == 0)
            #expect(c.beat(in: s) == .zero)
            moved = c.advanceGroup(in: s)
            #expect(moved)
            #expect(c.loop == 0 && c.index == 1)
            moved = c.advanceGroup(in: s)  // skips index 2, which starts with index 1
            #expect(moved)
            #expect(c.loop == 1 && c.index == 0)
            let back = c.previousGroup(in: s)!
            #expect(back.loop == 0 && back.index == 1)
            // An index past the end is the first note of the next pass.
            let past = OnsetCursor(loop: 5, index: 3, in: s)!
            #expect(past.loop == 6 && past.index == 0)
        }
    }
}
