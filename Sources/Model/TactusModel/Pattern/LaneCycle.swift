import TactusEngine
/// How a version-2 pattern's lanes become one loop: the lanes' common cycle
/// (the least common multiple of their lengths) holding every pass of every
/// lane in it, swing applied, each onset labelled with its lane, its pass in
/// the cycle and its chance (timing contract §7.1-§7.4).
///
/// Playing the common cycle as one loop keeps every rule of §3-§5 exact
/// (onsets, same-frame merges, seeks) and makes the renderer's cost per
/// onset independent of the number of lanes. The price is the limits of
/// pattern format "Limits (version 2)": a cycle of at most 1,000,000 beats
/// holding at most 1,048,576 notes. Off the audio thread; O(total notes in
/// the cycle).
public enum LaneCycle {
    /// Most notes the common cycle may hold (pattern format, "Limits (version 2)").
    public static var maximumCycleNoteCount: Int { 1_048_576 }

    /// One onset of the common cycle.
    public struct CycleNote: Equatable, Sendable {
        /// Start within the cycle, swung.
        public var start: BeatRational
        /// Swung end minus swung start (> 0).
        public var duration: BeatRational
        public var key: UInt8
        public var velocity: UInt8
        public var channel: UInt8
        /// Index of the lane (text order).
        public var lane: Int
        /// Which pass of its lane within the cycle (0 ..< passesPerCycle).
        public var passInCycle: Int64
        /// Passes its lane makes in one cycle.
        public var passesPerCycle: Int64
        /// The note plays in a lane pass when `NoteChance.hash(...) <= chanceLimit` (§7.4).
        public var chanceLimit: UInt64
        /// The hash of everything but the pass number (§7.4).
        public var chanceKey: UInt64
        /// Index of the written note in `Pattern.notes`.
        public var writtenIndex: Int
    }

    /// A limit the lanes break, with the index of the lane or note concerned.
    public struct Problem: Sendable {
        public var reason: PatternError.Reason
        /// Index into `Pattern.laneList` (for the cycle) or `Pattern.notes`, or -1 (past the end).
        public var laneIndex: Int
        public var noteIndex: Int
    }

    /// The common cycle of `lengths` (all > 0), or the index of the first
    /// lane that takes it past 1,000,000 beats.
    public static func commonCycle(_ lengths: [BeatRational]) -> (cycle: BeatRational?, failingLane: Int) {
        var num: Int128 = 0
        var den: Int128 = 1
        for (i, l) in lengths.enumerated() {
            if i == 0 {
                num = Int128(l.numerator)
                den = Int128(l.denominator)
            } else {
                // lcm(a/b, c/d) = lcm(a, c) / gcd(b, d) for reduced fractions.
                let n = Int128(l.numerator)
                let g = gcd(num, n)
                num = num / g * n
                den = gcd(den, Int128(l.denominator))
            }
            if num > Int128(1_000_000) * den { return (nil, i) }
        }
        return (BeatRational(numerator: Int64(num), denominator: Int64(den))!, -1)
    }

    /// The notes one common cycle of a valid `pattern` holds (each written
    /// note times the passes its lane makes in the cycle). O(lanes + notes).
    public static func cycleNoteCount(_ pattern: Pattern) -> Int {
        let lanes = pattern.lanes
        guard let cycle = commonCycle(lanes.map { $0.length }).cycle else { return 0 }
        let passes = lanes.map { lane in
            Int((Int128(cycle.numerator) * Int128(lane.length.denominator)) / (Int128(cycle.denominator) * Int128(lane.length.numerator)))
        }
        return pattern.notes.reduce(0) { $0 + passes[$1.lane] }
    }

    /// The first limit the pattern's lanes break, or nil.
    public static func check(_ pattern: Pattern) -> Problem? {
        var problem: Problem?
        _ = expand(pattern, problem: &problem)
        return problem
    }

    /// The notes of one common cycle of `pattern`, in the order of the written
    /// notes (copies of one note by pass). Version 1: the notes as written.
    /// Empty, with `problem` set, when a limit is broken.
    public static func expand(_ pattern: Pattern, problem: inout Problem?) -> [CycleNote] {
        expand(pattern, problem: &problem, exactOnly: false)
    }

    /// `expand`; `exactOnly` computes every note in 128-bit exact rationals,
    /// without the fast path for notes of unswung lanes (`unswungCopies`),
    /// which the tests prove equal to it.
    public static func expand(_ pattern: Pattern, problem: inout Problem?, exactOnly: Bool) -> [CycleNote] {
        let lanes = pattern.lanes
        let (cycleOrNil, failing) = commonCycle(lanes.map { $0.length })
        guard let cycle = cycleOrNil else {
            let lane = lanes[failing]
            problem = Problem(
                reason: .cycleTooLong(lane: QuotedText.quoted(lane.name), length: PatternWriter.beatText(lane.length)),
                laneIndex: failing, noteIndex: -1)
            return []
        }
        var passes: [Int64] = []
        var total: Int64 = 0
        for lane in lanes {
            // cycle / length is a whole number by construction.
            let p = (Int128(cycle.numerator) * Int128(lane.length.denominator)) / (Int128(cycle.denominator) * Int128(lane.length.numerator))
            passes.append(Int64(p))
        }
        for note in pattern.notes { total += passes[note.lane] }
        guard total <= Int64(maximumCycleNoteCount) else {
            problem = Problem(reason: .tooManyCycleNotes(cycle: PatternWriter.beatText(cycle)), laneIndex: -1, noteIndex: -1)
            return []
        }
        let laneNameHashes = lanes.map { NoteChance.nameHash($0.name) }
        var out: [CycleNote] = []
        out.reserveCapacity(Int(total))
        let ranks = rankAmongEquals(pattern.notes)
        for (i, note) in pattern.notes.enumerated() {
            let lane = lanes[note.lane]
            if !exactOnly, lane.swingRatio == nil,
                unswungCopies(
                    of: note, index: i, lane: lane, passes: passes[note.lane], chanceLimit: NoteChance.limit(note.probability),
                    chanceKey: NoteChance.key(
                        seed: pattern.seed, laneNameHash: laneNameHashes[note.lane], start: note.start, key: note.key,
                        channel: note.channel, rank: ranks[i]),
                    into: &out)
            {
                continue
            }
            let length = Wide(lane.length)
            let end = Wide(note.start) + Wide(note.duration)
            // §7.1: the end in the pass it falls in, warped there.
            let m = end.floorDivided(by: length)
            let endInPass = end - length * Wide(m)
            guard let warpedStart = warp(Wide(note.start), lane: lane), let warpedEndInPass = warp(endInPass, lane: lane) else {
                problem = Problem(reason: .swingTooFine, laneIndex: -1, noteIndex: i)
                return []
            }
            let warpedEnd = length * Wide(m) + warpedEndInPass
            let rank = ranks[i]
            let chanceKey = NoteChance.key(
                seed: pattern.seed, laneNameHash: laneNameHashes[note.lane], start: note.start, key: note.key,
                channel: note.channel, rank: rank)
            let limit = NoteChance.limit(note.probability)
            for pass in 0..<passes[note.lane] {
                let offset = length * Wide(Int128(pass))
                // The snapshot sums start and duration exactly in 64 bits (ExactBeatSum).
                guard let start = (offset + warpedStart).beatRational, let duration = (warpedEnd - warpedStart).beatRational,
                    Int128(start.denominator) / gcd(Int128(start.denominator), Int128(duration.denominator)) * Int128(duration.denominator)
                        < Int128(1) << 62
                else {
                    problem = Problem(reason: .swingTooFine, laneIndex: -1, noteIndex: i)
                    return []
                }
                out.append(
                    CycleNote(
                        start: start, duration: duration, key: note.key, velocity: note.velocity, channel: note.channel,
                        lane: note.lane, passInCycle: pass, passesPerCycle: passes[note.lane], chanceLimit: limit,
                        chanceKey: chanceKey, writtenIndex: i))
            }
        }
        return out
    }

    /// The copies of a note of an unswung lane, one a pass, appended to
    /// `out`: there the warp is the identity, so each copy starts a lane
    /// length after the one before and keeps the written duration, which
    /// 64-bit arithmetic gives exactly. False, appending nothing, when a value
    /// comes near the limits the exact path checks (that path then decides).
    /// A 20,000-note pattern's cycle in a fifth of the exact path's time;
    /// equal to it (LaneCycle tests, "the fast path is the exact one").
    static func unswungCopies(
        of note: PatternNote, index: Int, lane: PatternLane, passes: Int64, chanceLimit: UInt64, chanceKey: UInt64,
        into out: inout [CycleNote]
    ) -> Bool {
        let limit = Int64(1) << 62
        guard note.duration.numerator.magnitude < UInt64(limit), note.duration.denominator < limit else { return false }
        let mark = out.count
        for pass in 0..<passes {
            guard let offset = pass == 0 ? BeatRational.zero : lane.length.multiplied(by: pass), let start = note.start.adding(offset),
                start.numerator.magnitude < UInt64(limit), start.denominator < limit,
                Int128(start.denominator) / Int128(BeatRational.gcd(UInt64(start.denominator), UInt64(note.duration.denominator)))
                    * Int128(note.duration.denominator) < Int128(limit)
            else {
                out.removeSubrange(mark...)
                return false
            }
            out.append(
                CycleNote(
                    start: start, duration: note.duration, key: note.key, velocity: note.velocity, channel: note.channel,
                    lane: note.lane, passInCycle: pass, passesPerCycle: passes, chanceLimit: chanceLimit, chanceKey: chanceKey,
                    writtenIndex: index))
        }
        return true
    }

    /// The swing warp of §7.2 at phase `x` of a pass (`0 <= x < length`);
    /// nil when a value leaves 128-bit range (far beyond the format's limits).
    static func warp(_ x: Wide, lane: PatternLane) -> Wide? {
        guard let r = lane.swingRatio else { return x }
        let g = Wide(lane.swingGrid)
        let pair = g * Wide(2)
        let n = x.floorDivided(by: pair)
        let pairStart = pair * Wide(n)
        // A partial last pair stays straight.
        guard !(Wide(lane.length) < pairStart + pair) else { return x }
        let y = x - pairStart
        let ratio = Wide(r)
        if y < g { return pairStart + Wide(2) * ratio * y }
        return pairStart + pair * ratio + Wide(2) * (Wide(1) - ratio) * (y - g)
    }

    /// For each note, how many earlier notes (text order) of its lane share
    /// its start, key and channel (§7.4). Sorting, not hashing: hashing needs
    /// a random seed the Embedded plugin build does not have.
    static func rankAmongEquals(_ notes: [PatternNote]) -> [Int] {
        func same(_ a: PatternNote, _ b: PatternNote) -> Bool {
            a.lane == b.lane && a.start == b.start && a.key == b.key && a.channel == b.channel
        }
        let order = notes.indices.sorted { i, j in
            let a = notes[i]
            let b = notes[j]
            if a.lane != b.lane { return a.lane < b.lane }
            if a.start != b.start { return a.start < b.start }
            if a.key != b.key { return a.key < b.key }
            if a.channel != b.channel { return a.channel < b.channel }
            return i < j
        }
        var ranks = [Int](repeating: 0, count: notes.count)
        for n in order.indices where n > 0 && same(notes[order[n - 1]], notes[order[n]]) {
            ranks[order[n]] = ranks[order[n - 1]] + 1
        }
        return ranks
    }

    static func gcd(_ a: Int128, _ b: Int128) -> Int128 {
        var x = a.magnitude
        var y = b.magnitude
        // Nearly every value fits 64 bits, where a division costs a tenth of a
        // 128-bit one (a 20,000-note pattern's cycle: 24 ms -> 11 ms). Same result.
        if x <= UInt128(UInt64.max) && y <= UInt128(UInt64.max) { return Int128(BeatRational.gcd(UInt64(x), UInt64(y))) }
        while y != 0 { (x, y) = (y, x % y) }
        return x == 0 ? 1 : Int128(x)
    }
}

/// An exact rational in 128 bits, for the off-thread arithmetic of swing and
/// the common cycle. Reduced; positive denominator. Inputs are bounded by the
/// format's limits (parts below 2^50), so the few products here stay far
/// from 2^127.
struct Wide: Comparable {
    var num: Int128
    var den: Int128

    init(_ n: Int128, _ d: Int128 = 1) {
        let g = LaneCycle.gcd(n, d)
        num = (d < 0 ? -n : n) / g
        den = (d < 0 ? -d : d) / g
    }

    init(_ r: BeatRational) { self.init(Int128(r.numerator), Int128(r.denominator)) }

    static func + (a: Wide, b: Wide) -> Wide {
        let g = LaneCycle.gcd(a.den, b.den)
        return Wide(a.num * (b.den / g) + b.num * (a.den / g), a.den / g * b.den)
    }
    static func - (a: Wide, b: Wide) -> Wide { a + Wide(-b.num, b.den) }
    static func * (a: Wide, b: Wide) -> Wide {
        let g1 = LaneCycle.gcd(a.num, b.den)
        let g2 = LaneCycle.gcd(b.num, a.den)
        return Wide((a.num / g1) * (b.num / g2), (a.den / g2) * (b.den / g1))
    }
    static func < (a: Wide, b: Wide) -> Bool { (a - b).num < 0 }

    /// floor(self / other), other > 0.
    func floorDivided(by other: Wide) -> Int128 {
        let n = num * other.den
        let d = den * other.num
        var q = n / d
        if (n % d != 0) && ((n < 0) != (d < 0)) { q -= 1 }
        return q
    }

    /// The value as a `BeatRational` when numerator and denominator fit 2^62.
    var beatRational: BeatRational? {
        let limit = Int128(1) << 62
        guard num.magnitude < UInt128(limit), den < limit else { return nil }
        return BeatRational(numerator: Int64(num), denominator: Int64(den))
    }
}
