import TactusEngine

/// The controller events of a pattern's common cycle: each point, and each
/// sample of each ramp (§10.1, §10.2), in every pass its lane makes in one
/// cycle, with exact beats and values. Off the audio thread; the count is
/// found without listing them (so a `ramp-step` of a billionth of a beat is
/// refused in O(points), not tried).
public enum ControllerCycle {
    /// Most controller events one pattern's common cycle may send.
    public static var maximumCycleEventCount: Int { 1_048_576 }
    /// Most controller events over the cycles of all patterns of a text.
    public static var maximumTotalCycleEventCount: Int { 4_194_304 }

    /// One event of the cycle.
    public struct Event: Equatable, Sendable {
        /// Beat within the common cycle, swung, `0 <= beat < cycle`.
        public var beat: BeatRational
        public var kind: ControllerKind
        /// The value sent (a bend's signed value).
        public var value: Int16
        public var channel: UInt8
        public var lane: Int
        /// Index of the point in `Pattern.controllers` (a ramp's samples carry their point's).
        public var pointIndex: Int
    }

    /// The indices of two points of one lane and controller (kind and
    /// channel) at the same beat, the second the later in text order, for
    /// the pair whose second comes first; nil when there is none. O(n log n).
    public static func firstDuplicate(_ points: [ControllerPoint]) -> (first: Int, second: Int)? {
        let order = sortedByController(points)
        var best: (Int, Int)?
        for n in order.indices where n > 0 {
            let a = points[order[n - 1]]
            let b = points[order[n]]
            if sameController(a, b), a.start == b.start {
                let pair = (min(order[n - 1], order[n]), max(order[n - 1], order[n]))
                if best.map({ pair.1 < $0.1 }) ?? true { best = pair }
            }
        }
        return best
    }

    static func sameController(_ a: ControllerPoint, _ b: ControllerPoint) -> Bool {
        a.lane == b.lane && a.kind == b.kind && a.channel == b.channel
    }

    /// Indices of `points` by lane, controller, channel, start, then text order.
    static func sortedByController(_ points: [ControllerPoint]) -> [Int] {
        points.indices.sorted { i, j in
            let a = points[i]
            let b = points[j]
            if a.lane != b.lane { return a.lane < b.lane }
            if a.kind.order != b.kind.order { return a.kind.order < b.kind.order }
            if a.channel != b.channel { return a.channel < b.channel }
            if a.start != b.start { return a.start < b.start }
            return i < j
        }
    }

    /// One ramp or step of one pass: the point, its swung beat in the pass,
    /// and for a ramp the previous point's swung beat (a pass earlier when
    /// it is the controller's last point) and value.
    struct Segment {
        var point: Int
        var end: Wide
        var value: Int16
        var rampFrom: (beat: Wide, value: Int16)?
    }

    /// Each point's segment in one pass of its lane, for valid points
    /// (no duplicates); nil when swing makes a value leave 128-bit range.
    static func segments(_ pattern: Pattern) -> [Segment]? {
        let points = pattern.controllers
        let lanes = pattern.lanes
        let order = sortedByController(points)
        var out: [Segment] = []
        out.reserveCapacity(points.count)
        var groupStart = 0
        while groupStart < order.count {
            var groupEnd = groupStart + 1
            while groupEnd < order.count, sameController(points[order[groupStart]], points[order[groupEnd]]) { groupEnd += 1 }
            let lane = lanes[points[order[groupStart]].lane]
            let length = Wide(lane.length)
            for n in groupStart..<groupEnd {
                let p = points[order[n]]
                guard let end = LaneCycle.warp(Wide(p.start), lane: lane) else { return nil }
                var segment = Segment(point: order[n], end: end, value: p.value, rampFrom: nil)
                if p.ramp {
                    let previous = points[order[n == groupStart ? groupEnd - 1 : n - 1]]
                    guard var from = LaneCycle.warp(Wide(previous.start), lane: lane) else { return nil }
                    if n == groupStart { from = from - length }
                    segment.rampFrom = (from, previous.value)
                }
                out.append(segment)
            }
            groupStart = groupEnd
        }
        return out
    }

    /// The events a segment sends in one pass: 1 for a step; for a ramp,
    /// one per grid beat strictly inside it and one at its end, that is
    /// `ceil(span / step)`.
    static func eventCount(_ s: Segment, step: Wide) -> Int128 {
        guard let from = s.rampFrom else { return 1 }
        let span = s.end - from.beat
        let q = span.floorDivided(by: step)
        return step * Wide(q) < span ? q + 1 : q
    }

    /// The passes each lane makes in one common cycle `cycle`.
    static func passes(_ lanes: [PatternLane], cycle: BeatRational) -> [Int64] {
        lanes.map { lane in
            Int64((Int128(cycle.numerator) * Int128(lane.length.denominator)) / (Int128(cycle.denominator) * Int128(lane.length.numerator)))
        }
    }

    /// The events one common cycle of a valid pattern sends, without listing
    /// them; saturates above `maximumTotalCycleEventCount`. O(points log points).
    public static func eventCount(_ pattern: Pattern) -> Int {
        guard !pattern.controllers.isEmpty, let segments = segments(pattern) else { return 0 }
        let lanes = pattern.lanes
        let perPass = passes(lanes, cycle: pattern.length)
        var total: Int128 = 0
        for s in segments {
            let lane = pattern.controllers[s.point].lane
            total += eventCount(s, step: Wide(lanes[lane].rampStep)) * Int128(perPass[lane])
            if total > Int128(maximumTotalCycleEventCount) { return maximumTotalCycleEventCount + 1 }
        }
        return Int(total)
    }

    /// `floor(v0 + (v1 - v0) × (g - b0) / (b1 - b0) + 1/2)`, exactly (§10.2).
    static func rampValue(from v0: Int16, to v1: Int16, at offset: Wide, span: Wide) -> Int16 {
        // (v1 - v0) × offset / span + v0 + 1/2, floored: numerators stay far below 2^127.
        let t = Wide(Int128(v1) - Int128(v0)) * offset * Wide(span.den, span.num) + Wide(Int128(v0)) + Wide(1, 2)
        return Int16(t.floorDivided(by: Wide(1)))
    }

    /// The events of one common cycle of a valid pattern (its count within
    /// the limit), sorted by beat, then by the point's text order; nil when
    /// a beat needs a numerator or denominator of 2^62 or more.
    public static func events(_ pattern: Pattern) -> [Event]? {
        guard !pattern.controllers.isEmpty else { return [] }
        guard let segments = segments(pattern) else { return nil }
        let lanes = pattern.lanes
        let perPass = passes(lanes, cycle: pattern.length)
        let cycle = Wide(pattern.length)
        var out: [Event] = []
        for s in segments {
            let point = pattern.controllers[s.point]
            let lane = lanes[point.lane]
            let length = Wide(lane.length)
            let pass = passEvents(s, step: Wide(lane.rampStep))
            for k in 0..<perPass[point.lane] {
                let base = length * Wide(Int128(k))
                for (beat, value) in pass {
                    var b = base + beat
                    if b < Wide(0) { b = b + cycle }
                    guard let exact = b.beatRational else { return nil }
                    out.append(Event(beat: exact, kind: point.kind, value: value, channel: point.channel, lane: point.lane, pointIndex: s.point))
                }
            }
        }
        out.sort { a, b in a.beat != b.beat ? a.beat < b.beat : ControllerCycle.precedes(a, b) }
        return out
    }

    /// One segment's events in one pass, at beats within (-length, length):
    /// a ramp's grid samples strictly inside it, then its end (§10.2).
    static func passEvents(_ s: Segment, step: Wide) -> [(Wide, Int16)] {
        var pass: [(Wide, Int16)] = []
        if let from = s.rampFrom {
            let span = s.end - from.beat
            var m: Int128 = 1
            while step * Wide(m) < span {
                let offset = step * Wide(m)
                pass.append((from.beat + offset, rampValue(from: from.value, to: s.value, at: offset, span: span)))
                m += 1
            }
        }
        pass.append((s.end, s.value))
        return pass
    }

    /// One value a controller sends in one pass of its lane: its beat in
    /// the pass (swung, `0 <= beat <` the lane's length) and the value.
    public struct Step: Equatable, Sendable {
        public var beat: Double
        public var value: Int16
        /// The point it belongs to (a ramp's samples carry their point's), an index into `Pattern.controllers`.
        public var pointIndex: Int
    }

    /// What one controller (`kind` on `channel`) of lane `lane` sends in one
    /// pass of the lane, sorted by beat: each step point, each ramp's samples
    /// and end, computed as `events` computes them (the one computation of
    /// §10.2), the first point's ramp wrapped across the loop end. For an
    /// editor to draw what is emitted. Empty when the pattern has none, or
    /// when it is not valid. O(points log points + steps).
    public static func laneSteps(_ pattern: Pattern, lane: Int, kind: ControllerKind, channel: UInt8) -> [Step] {
        guard pattern.lanes.indices.contains(lane), pattern.validationError() == nil,
            ControllerCycle.eventCount(pattern) <= maximumCycleEventCount,
            let segments = segments(pattern)
        else { return [] }
        let l = pattern.lanes[lane]
        let length = Wide(l.length)
        let step = Wide(l.rampStep)
        var out: [Step] = []
        for s in segments {
            let p = pattern.controllers[s.point]
            guard p.lane == lane, p.kind == kind, p.channel == channel else { continue }
            for (beat, value) in passEvents(s, step: step) {
                var b = beat
                if b < Wide(0) { b = b + length }
                if !(b < length) { b = b - length }
                out.append(Step(beat: b.approximateValue, value: value, pointIndex: s.point))
            }
        }
        out.sort { $0.beat < $1.beat }
        return out
    }

    /// §10.6's order at one beat: program changes first, a channel's
    /// controller 0 and 32 just before its program change, then the other
    /// controllers in text order.
    public static func precedes(_ a: Event, _ b: Event) -> Bool {
        let ka = programOrder(a)
        let kb = programOrder(b)
        if ka != kb { return ka < kb }
        return a.pointIndex < b.pointIndex
    }

    /// 0-2047 for a program change or bank select (by channel, then cc 0,
    /// cc 32, program), 2048 for every other controller.
    static func programOrder(_ e: Event) -> Int {
        switch e.kind {
        case .program: return Int(e.channel) * 3 + 2
        case .control(0): return Int(e.channel) * 3
        case .control(32): return Int(e.channel) * 3 + 1
        default: return 2048
        }
    }
}

extension Wide {
    /// The nearest `Double` (for drawing; never for timing).
    var approximateValue: Double { Double(num) / Double(den) }
}
