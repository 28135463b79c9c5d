import TactusEngine
/// A pattern written as a Standard MIDI File (docs/midi-files.md, M16-M18).
public struct MIDIExport: Sendable {
    public var bytes: [UInt8]
    public var ticksPerQuarter: Int
    /// Whether every beat is represented exactly (M17).
    public var isExact: Bool
    /// The largest distance in beats between a note's beat and its tick (0 when exact).
    public var largestErrorBeats: Double
    /// The note-ons written.
    public var noteCount: Int

    public init(bytes: [UInt8], ticksPerQuarter: Int, isExact: Bool, largestErrorBeats: Double, noteCount: Int) {
        self.bytes = bytes
        self.ticksPerQuarter = ticksPerQuarter
        self.isExact = isExact
        self.largestErrorBeats = largestErrorBeats
        self.noteCount = noteCount
    }
}

/// How a pattern is written as a Standard MIDI File: its PPQ (M17) and the
/// file around the events played (M16). What the events are is the engine's
/// (`PatternExport.export` in TactusOffline plays the pattern, as `tactus
/// render` does, and hands them here). Off the audio thread; O(events).
public enum PatternExport {
    /// The PPQ used when none represents every beat exactly (M17).
    public static var fallbackTicksPerQuarter: Int { 960 }
    /// The largest PPQ a file can hold.
    public static var maximumTicksPerQuarter: Int { 32_767 }

    /// The smallest PPQ of at least 96 and at most 32,767 that represents
    /// every note's start and end (swung, as they are played), every
    /// controller event and the loop length exactly, or nil.
    public static func exactTicksPerQuarter(for pattern: Pattern) -> Int? {
        var l: Int64 = 1
        func include(_ d: Int64) -> Bool {
            let g = Int64(BeatRational.gcd(UInt64(l), UInt64(d)))
            let m = Int128(l / g) * Int128(d)
            guard m <= Int128(maximumTicksPerQuarter) else { return false }
            l = Int64(m)
            return true
        }
        guard include(pattern.length.denominator) else { return nil }
        for e in ControllerCycle.events(pattern) ?? [] {
            guard include(e.beat.denominator) else { return nil }
        }
        for note in playedNotes(pattern) {
            guard include(note.start.denominator) else { return nil }
            let end = ExactBeatSum(note.start, note.duration)
            let g = Int64(BeatRational.gcd(UInt64(end.remainder), UInt64(end.denominator)))
            guard include(end.denominator / g) else { return nil }
        }
        let multiple = (96 + l - 1) / l
        return Int(l * multiple)
    }

    /// The notes of one cycle with swing applied (the written notes of a
    /// version-1 pattern), as start and duration.
    static func playedNotes(_ pattern: Pattern) -> [(start: BeatRational, duration: BeatRational)] {
        guard !pattern.laneList.isEmpty else { return pattern.notes.map { ($0.start, $0.duration) } }
        var problem: LaneCycle.Problem?
        return LaneCycle.expand(pattern, problem: &problem).map { ($0.start, $0.duration) }
    }

    /// The latest end of a note of one cycle beyond the cycle's end, in
    /// beats (0 when every note ends within its cycle).
    public static func overhang(_ pattern: Pattern) -> Double {
        var most = 0.0
        for note in playedNotes(pattern) {
            most = max(most, note.start.approximateValue + note.duration.approximateValue - pattern.length.approximateValue)
        }
        return most
    }

    /// The largest distance in beats between an event's exact beat (notes'
    /// starts and ends, controller events, the loop ends of `loops` passes)
    /// and the nearest tick at `ppq` (ties up): 0 for an exact PPQ.
    public static func largestError(_ pattern: Pattern, loops: Int, ticksPerQuarter ppq: Int) -> Double {
        var largest = 0.0
        let notes = playedNotes(pattern)
        let controls = ControllerCycle.events(pattern) ?? []
        for pass in 0...max(loops, 1) {
            let offset = ExactTicks.product(pattern.length, Int64(pass))
            largest = max(largest, offset.ticks(ppq: Int64(ppq)).1)
            guard pass < max(loops, 1) else { break }
            for note in notes {
                let start = offset.adding(note.start)
                largest = max(largest, start.ticks(ppq: Int64(ppq)).1, start.adding(note.duration).ticks(ppq: Int64(ppq)).1)
            }
            for e in controls { largest = max(largest, offset.adding(e.beat).ticks(ppq: Int64(ppq)).1) }
        }
        return largest
    }

    /// The tick of the end of `loops` passes at `ppq` (the nearest, ties up).
    public static func loopEndTick(_ pattern: Pattern, loops: Int, ticksPerQuarter ppq: Int) -> Int64 {
        ExactTicks.product(pattern.length, Int64(max(loops, 1))).ticks(ppq: Int64(ppq)).0
    }

    /// The file (M16): one track with the track name, a tempo, 4/4, the
    /// Tactus loop length meta event, then `events` (channel messages in
    /// tick order, as played), its End of Track at `endTick` or its last event.
    public static func file(
        events: [MIDIFileEvent], length: BeatRational, ticksPerQuarter ppq: Int, endTick: Int64,
        microsecondsPerQuarter: Int, name: [UInt8]
    ) -> [UInt8] {
        var track: [MIDIFileEvent] = [
            .meta(tick: 0, type: 0x03, data: name),
            .tempo(tick: 0, microsecondsPerQuarter: microsecondsPerQuarter),
            .meta(tick: 0, type: 0x58, data: [4, 2, 24, 8]),
            .meta(tick: 0, type: 0x7F, data: TactusLoopLengthMeta.data(length)),
        ]
        track += events
        return MIDIFileWriter.bytes(ticksPerQuarter: ppq, tracks: [track], endTicks: [endTick])
    }
}

/// An exact beat position as whole beats plus `remainder / denominator`,
/// for loop offsets plus note starts and ends (the sums the export needs).
struct ExactTicks {
    var whole: Int128
    var remainder: Int128
    var denominator: Int128

    static func product(_ value: BeatRational, _ times: Int64) -> ExactTicks {
        let n = Int128(value.numerator) * Int128(times)
        let (q, r) = BeatRational.floorDivide(n, Int128(value.denominator))
        return ExactTicks(whole: q, remainder: r, denominator: Int128(value.denominator))
    }

    func adding(_ value: BeatRational) -> ExactTicks {
        let (q0, r0) = BeatRational.floorDivide(Int128(value.numerator), Int128(value.denominator))
        let d1 = denominator
        let d2 = Int128(value.denominator)
        let g = ExactTicks.gcd(d1, d2)
        let d = d1 / g * d2
        let r = remainder * (d / d1) + r0 * (d / d2)
        let (carry, rest) = BeatRational.floorDivide(r, d)
        let g2 = ExactTicks.gcd(rest, d)
        return ExactTicks(whole: whole + q0 + carry, remainder: rest / g2, denominator: d / g2)
    }

    /// The nearest tick (ties up) and the distance to it in beats.
    func ticks(ppq: Int64) -> (Int64, Double) {
        let scaled = remainder * Int128(ppq)
        let (q, r) = BeatRational.floorDivide(scaled, denominator)
        let up = 2 * r >= denominator
        let tick = whole * Int128(ppq) + q + (up ? 1 : 0)
        let distance = up ? denominator - r : r
        return (Int64(tick), Double(Int64(clamping: distance)) / Double(Int64(clamping: denominator)) / Double(ppq))
    }

    static func gcd(_ a: Int128, _ b: Int128) -> Int128 {
        var x = a.magnitude
        var y = b.magnitude
        while y != 0 { (x, y) = (y, x % y) }
        return x == 0 ? 1 : Int128(x)
    }
}
