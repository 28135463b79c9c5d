import TactusEngine
/// A pattern written as a Standard MIDI File (docs/midi-files.md, M16-M18).
public struct MIDIExport: Sendable {
    public var bytes: [UInt8]
    public var ticksPerQuarter: Int
    /// Whether every beat is represented exactly (M17).
    public var isExact: Bool
    /// The largest distance in beats between a note's beat and its tick (0 when exact).
    public var largestErrorBeats: Double
}

/// Writes patterns as Standard MIDI Files. Off the audio thread; O(n log n)
/// in the notes times the loops.
public enum PatternExport {
    /// The PPQ used when none represents every beat exactly (M17).
    public static var fallbackTicksPerQuarter: Int { 960 }
    /// The largest PPQ a file can hold.
    public static var maximumTicksPerQuarter: Int { 32_767 }

    /// The smallest PPQ of at least 96 and at most 32,767 that represents
    /// every note's start and end and the loop length exactly, or nil.
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
        for note in pattern.notes {
            guard include(note.start.denominator) else { return nil }
            let end = ExactBeatSum(note.start, note.duration)
            let g = Int64(BeatRational.gcd(UInt64(end.remainder), UInt64(end.denominator)))
            guard include(end.denominator / g) else { return nil }
        }
        let multiple = (96 + l - 1) / l
        return Int(l * multiple)
    }

    /// The file: one track with the track name, a tempo, 4/4, the Tactus loop
    /// length meta event and the notes of `loops` passes (M16).
    public static func export(_ pattern: Pattern, loops: Int = 1, microsecondsPerQuarter: Int = 500_000, name: [UInt8] = Array("Tactus pattern".utf8)) -> MIDIExport {
        let exact = exactTicksPerQuarter(for: pattern)
        let ppq = exact ?? fallbackTicksPerQuarter
        var largestError = 0.0
        var timed: [(tick: Int64, order: Int, bytes: [UInt8])] = []
        timed.reserveCapacity(pattern.notes.count * 2 * max(loops, 1))
        var sequence = 0
        let controls = ControllerCycle.events(pattern) ?? []
        for pass in 0..<max(loops, 1) {
            let offset = ExactTicks.product(pattern.length, Int64(pass))
            for note in pattern.notes {
                let start = offset.adding(note.start)
                let end = start.adding(note.duration)
                let (on, e1) = start.ticks(ppq: Int64(ppq))
                let (off, e2) = end.ticks(ppq: Int64(ppq))
                largestError = max(largestError, e1, e2)
                let status = note.channel &- 1
                // Note-offs first at a tick (M16), then controllers, then note-ons in pattern order.
                timed.append((max(off, on), 0, [0x80 | status, note.key, 0x40]))
                timed.append((on, 2, [0x90 | status, note.key, note.velocity]))
                sequence += 1
            }
            // Contract §10: the controller events, ramps as the samples they send.
            for e in controls {
                let (tick, error) = offset.adding(e.beat).ticks(ppq: Int64(ppq))
                largestError = max(largestError, error)
                let status = e.channel &- 1
                switch e.kind {
                case .control(let n): timed.append((tick, 1, [0xB0 | status, n, UInt8(e.value)]))
                case .bend: timed.append((tick, 1, [0xE0 | status, UInt8((Int(e.value) + 8192) & 127), UInt8((Int(e.value) + 8192) >> 7)]))
                case .pressure: timed.append((tick, 1, [0xD0 | status, UInt8(e.value)]))
                case .program: timed.append((tick, 1, [0xC0 | status, UInt8(e.value)]))
                }
            }
        }
        var indexed = Array(timed.enumerated())
        indexed.sort { a, b in
            if a.element.tick != b.element.tick { return a.element.tick < b.element.tick }
            if a.element.order != b.element.order { return a.element.order < b.element.order }
            return a.offset < b.offset
        }
        var events: [MIDIFileEvent] = [
            .meta(tick: 0, type: 0x03, data: name),
            .tempo(tick: 0, microsecondsPerQuarter: microsecondsPerQuarter),
            .meta(tick: 0, type: 0x58, data: [4, 2, 24, 8]),
            .meta(tick: 0, type: 0x7F, data: TactusLoopLengthMeta.data(pattern.length)),
        ]
        events.reserveCapacity(events.count + indexed.count)
        for item in indexed { events.append(MIDIFileEvent(tick: item.element.tick, bytes: item.element.bytes)) }
        let (loopEnd, e) = ExactTicks.product(pattern.length, Int64(max(loops, 1))).ticks(ppq: Int64(ppq))
        largestError = max(largestError, e)
        let bytes = MIDIFileWriter.bytes(ticksPerQuarter: ppq, tracks: [events], endTicks: [loopEnd])
        return MIDIExport(bytes: bytes, ticksPerQuarter: ppq, isExact: exact != nil, largestErrorBeats: largestError)
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
