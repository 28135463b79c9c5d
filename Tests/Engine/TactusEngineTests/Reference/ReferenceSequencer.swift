import BigInt
import TactusEngine
import TactusModel
import TactusOffline

/// A slow, obviously-correct model of the timing contract, written from the
/// contract's text with exact rationals and nothing else: no cursor, no heap,
/// no split beats, no floating point after the host's inputs are read.
///
/// Its state is the contract's own: the last value of each key, the anchor
/// `(f0, b0)`, and the set of onsets still to play, kept as "every onset after
/// beat θ". Output between two inputs is found by enumerating onsets one at a
/// time and stepping from one output frame to the next.
struct ReferenceSequencer {
    let sampleRate: Q
    let sampleRateDouble: Double

    // §1: last values of the keys.
    var tempo = Q(Int64(120))
    var tempoDouble: Double = 120
    var speed = Q.zero
    var speedDouble: Double = 0
    var beatsPerBar = Q(Int64(4))
    var bar = Q.zero

    // §1 rule 1: the host frame of the last update, and where it arrived.
    var lastHostFrame: Double?
    var lastHostFrameArrival: Int64 = 0
    /// §1 rule 1: a report with frame, bar, barBeat and beat has had its beat on
    /// no tick grid MusE can be set to since activation: no floor reports any more.
    var hostIsExact = false

    // §2: the anchor.
    var f0: Int64 = 0
    var b0 = Q.zero
    var rolling = false

    /// Onsets at beats > θ have not been played (meaningful while rolling).
    var theta = Q.zero

    var pattern: Pattern
    var sortedNotes: [(note: PatternNote, line: Int)] = []
    /// §7.4: each note's rank among the earlier notes of its lane with its start, key and channel.
    var ranks: [Int] = []
    /// §7.5: each lane's transpose; §7.6: muted lanes.
    var transpose: [Int] = []
    var muted: Set<Int> = []

    struct Sounding {
        /// nil: cut, due at once.
        var offBeat: Q?
        var onFrame: Int64
    }
    var sounding: [Int: Sounding] = [:]
    /// Output is final before this frame.
    var now: Int64 = 0
    var output: [LoggedEvent] = []
    /// How often each rule came into play (so tests can check that random sessions exercise them all).
    var coverage: [String: Int] = [:]

    init(sampleRate: Double, pattern: Pattern) {
        self.sampleRate = Q(sampleRate)
        sampleRateDouble = sampleRate
        self.pattern = pattern
        setPattern(pattern)
    }

    mutating func setPattern(_ p: Pattern) {
        pattern = p
        sortedNotes = p.notes.enumerated().map { ($0.element, $0.offset) }
            .sorted { $0.note.start != $1.note.start ? $0.note.start < $1.note.start : $0.line < $1.line }
        ranks = p.notes.indices.map { i in
            p.notes[..<i].filter { $0.lane == p.notes[i].lane && $0.start == p.notes[i].start && $0.key == p.notes[i].key && $0.channel == p.notes[i].channel }.count
        }
        transpose = Array(repeating: 0, count: p.lanes.count)  // §7.5: a new pattern clears the latch
    }

    // MARK: §7, from the contract's text

    /// §7.2: the swing warp of phase `x` in a pass of `lane`.
    static func warp(_ x: Q, _ lane: PatternLane) -> Q {
        guard let ratio = lane.swingRatio else { return x }
        let r = Q(ratio)
        let g = Q(lane.swingGrid)
        let two = Q(Int64(2))
        let n = (x / (two * g)).floor
        let pairStart = two * g * Q(n)
        if pairStart + two * g > Q(lane.length) { return x }  // a partial pair stays straight
        let y = x - pairStart
        if y < g { return pairStart + two * r * y }
        return pairStart + two * g * r + two * (Q(Int64(1)) - r) * (y - g)
    }

    /// §7.1: `E(e) = m L + W(e - m L)`, `m = floor(e / L)`.
    static func warpedEnd(_ e: Q, _ lane: PatternLane) -> Q {
        let length = Q(lane.length)
        let m = Q((e / length).floor)
        return m * length + warp(e - m * length, lane)
    }

    /// §7.4, written out again here from the contract: SplitMix64's finaliser, the chain, FNV-1a.
    static func chancePlays(seed: UInt32, laneName: [UInt8], note: PatternNote, rank: Int, pass: BigInt) -> Bool {
        func mix(_ v: UInt64) -> UInt64 {
            var x = v
            x ^= x >> 30; x = x &* 0xbf58476d1ce4e5b9
            x ^= x >> 27; x = x &* 0x94d049bb133111eb
            x ^= x >> 31
            return x
        }
        func step(_ h: UInt64, _ v: UInt64) -> UInt64 { mix((h ^ v) &+ 0x9e3779b97f4a7c15) }
        var name: UInt64 = 0xcbf29ce484222325
        for b in laneName { name = (name ^ UInt64(b)) &* 0x100000001b3 }
        var h = step(0, UInt64(seed))
        h = step(h, name)
        h = step(h, UInt64(bitPattern: note.start.numerator))
        h = step(h, UInt64(bitPattern: note.start.denominator))
        h = step(h, UInt64(note.key) + 256 * UInt64(note.channel))
        h = step(h, UInt64(rank))
        h = step(h, UInt64(bitPattern: Int64(pass)))
        // h < P × 2^64, exactly.
        return Q(BigInt(h)) < Q(note.probability) * Q(BigInt(1) << 64)
    }

    /// §7.5: a note-on on input channel `channel` transposes the lanes that follow it.
    mutating func followKey(channel: Int, key: Int, at f: Int64) {
        advance(to: f)
        coverage["follow key", default: 0] += 1
        for (i, lane) in pattern.lanes.enumerated() {
            if let root = lane.followRoot, lane.followChannel == 0 || Int(lane.followChannel) == channel { transpose[i] = key - Int(root) }
        }
    }

    /// §7.5: control change 121 clears the latch of the lanes that follow its channel.
    mutating func resetFollow(channel: Int, at f: Int64) {
        advance(to: f)
        for (i, lane) in pattern.lanes.enumerated() where lane.followRoot != nil && (lane.followChannel == 0 || Int(lane.followChannel) == channel) {
            transpose[i] = 0
        }
    }

    /// §7.6.
    mutating func setMutes(_ lanes: Set<Int>, at f: Int64) {
        advance(to: f)
        muted = lanes
    }

    /// Frames per beat, `60 R / (s T)`.
    var framesPerBeat: Q { Q(Int64(60)) * sampleRate / (speed * tempo) }

    /// §3: the frame of an event at beat `b`.
    func frame(of b: Q) -> Int64 {
        let x = (b - b0) * framesPerBeat
        return f0 + Int64((x - Q(BigInt(1), BigInt(10000))).ceiling)
    }

    /// §2.
    func beat(at f: Int64) -> Q {
        rolling ? b0 + Q(f - f0) / framesPerBeat : b0
    }

    // MARK: inputs

    mutating func update(_ u: PositionUpdate, at f: Int64) {
        advance(to: f)
        if u.hasInvalidKey { coverage["ignored", default: 0] += 1; return }
        let values = [u.frame, u.speed, u.bar, u.barBeat, u.beat, u.beatsPerBar, u.beatsPerMinute]
        if values.contains(where: { $0 != nil && !$0!.isFinite }) { coverage["ignored", default: 0] += 1; return }
        let newTempo = u.beatsPerMinute ?? tempoDouble
        let newSpeed = u.speed ?? speedDouble
        let newBpb = u.beatsPerBar.map { Q($0) } ?? beatsPerBar
        let newBar = u.bar.map { Q($0) } ?? bar
        if newTempo < 0 || newTempo > 1000 || abs(newSpeed) > 1000 { coverage["ignored", default: 0] += 1; return }
        if newBpb <= .zero || newBpb > Q(Int64(1) << 32) { coverage["ignored", default: 0] += 1; return }
        let e = beat(at: f)
        // §1 rule 1, from the contract's text: all four keys with a beat on no tick grid
        // MusE offers mark the host exact until deactivation; it is never read as a floor again.
        var exact = hostIsExact
        if !exact, u.frame != nil, u.bar != nil, u.barBeat != nil, let b = u.beat {
            exact = !ReferenceSequencer.onAMusETickGrid(b)
            if exact { coverage["host shown exact", default: 0] += 1 }
        }
        let reported: Q
        if !exact, let floor = floorRange(u, bar: newBar, beatsPerBar: newBpb), let hostFrame = u.frame {
            // §1 rule 1, from the contract's text: our beat if the host's frame continued
            // ours; else the floor if the host's frame is less than one frame from the
            // floor's (lo × 60R / T); else frame × T / 60R; whichever lies in the floor's
            // range; else the floor.
            // Continued: advanced by our frames, to within a 32-bit float's precision there.
            var continued = false
            if rolling && speedDouble == 1, let last = lastHostFrame {
                let precision = Q(max(last.magnitude, hostFrame.magnitude)) * Q(BigInt(1), BigInt(1) << 23)
                continued = (Q(hostFrame) - Q(last) - Q(f - lastHostFrameArrival)).magnitude <= precision
            }
            let fromFrame = Q(hostFrame) * Q(newTempo) / (Q(Int64(60)) * sampleRate)
            func admits(_ x: Q) -> Bool {
                let margin = Q(BigInt(1), BigInt(960))
                return x >= floor.lowest - margin && x < floor.lowest + floor.width + margin
            }
            let floorFrame = floor.lowest * Q(Int64(60)) * sampleRate / Q(newTempo)
            if continued && admits(e) {
                coverage["floor report: our beat", default: 0] += 1
                reported = e
            } else if newTempo > 0 && (Q(hostFrame) - floorFrame).magnitude < Q(Int64(1)) {
                coverage["floor report: the floor at its frame", default: 0] += 1
                reported = floor.lowest
            } else if admits(fromFrame) {
                coverage["floor report: frame × T / 60R", default: 0] += 1
                reported = fromFrame
            } else {
                coverage["floor report: the floor", default: 0] += 1
                reported = floor.lowest
            }
        } else if let bb = u.barBeat {
            reported = newBar * newBpb + Q(bb)
        } else if let b = u.beat {
            reported = Q(b)
        } else if let hf = u.frame {
            reported = Q(hf) * Q(newTempo) / (Q(Int64(60)) * sampleRate)
        } else {
            reported = e
        }
        // The limit is on positions the host sends (reading (n)), not on our extrapolation.
        let hostSentPosition = u.barBeat != nil || u.beat != nil || u.frame != nil
        if hostSentPosition && reported.magnitude > Q(Int64(1) << 32) { coverage["ignored", default: 0] += 1; return }
        // Each part of barBeat's sum is itself limited by §6 (a bar start or barBeat beyond 2^32).
        if u.barBeat != nil, (newBar * newBpb).magnitude > Q(Int64(1) << 32) || Q(u.barBeat!).magnitude > Q(Int64(1) << 32) { return }

        lastHostFrame = u.frame
        lastHostFrameArrival = f
        hostIsExact = exact
        let wasRolling = rolling
        let rateChanged = tempoDouble != newTempo || speedDouble != newSpeed
        tempo = Q(newTempo); tempoDouble = newTempo
        speed = Q(newSpeed); speedDouble = newSpeed
        beatsPerBar = newBpb
        bar = newBar
        rolling = newSpeed > 0 && newTempo > 0
        if !rolling {
            if wasRolling { cutAll(); coverage["stop", default: 0] += 1 }
            f0 = f; b0 = reported
            return
        }
        if !wasRolling {
            coverage["start", default: 0] += 1
            f0 = f; b0 = reported
            theta = b0 - Q(BigInt(1), BigInt(10000)) / framesPerBeat
            return
        }
        let delta = (reported - e).magnitude
        if delta <= Q(BigInt(1), BigInt(1920)) {
            coverage[rateChanged ? "repeat with new rate" : "repeat", default: 0] += 1
            f0 = f; b0 = e
        } else if delta <= Q(BigInt(1), BigInt(16)) {
            coverage[reported > e ? "correction ahead" : "correction behind", default: 0] += 1
            f0 = f; b0 = reported
        } else {
            coverage["jump", default: 0] += 1
            cutAll()
            f0 = f; b0 = reported
            theta = b0 - Q(BigInt(1), BigInt(10000)) / framesPerBeat
        }
    }

    /// §1 rule 1: the range a whole-beat report (`barBeat = bar × beatsPerBar`, `beat`
    /// a whole number in 1...beatsPerBar) or a tick-floor report (`beat` within 1/1920
    /// of `bar × beatsPerBar + barBeat`) puts the host's beat in; nil for any other report.
    func floorRange(_ u: PositionUpdate, bar: Q, beatsPerBar: Q) -> (lowest: Q, width: Q)? {
        guard u.frame != nil, u.bar != nil, let barBeat = u.barBeat, let b = u.beat else { return nil }
        let limit = Q(Int64(1) << 32)
        let barStart = bar * beatsPerBar
        if barStart.magnitude > limit || Q(barBeat).magnitude > limit || Q(b).magnitude > limit { return nil }
        if Q(barBeat) == barStart, Q(b) >= Q(Int64(1)), Q(b) <= beatsPerBar, b == b.rounded(.down) {
            return (barStart + Q(b) - Q(Int64(1)), Q(Int64(1)))
        }
        if (Q(b) - (barStart + Q(barBeat))).magnitude <= Q(BigInt(1), BigInt(1920)) {
            return (barStart + Q(barBeat), Q(BigInt(1), BigInt(16)))
        }
        return nil
    }

    /// §1 rule 1: `beat × D` within `(|beat × D| + D) × 2^-50` of a whole number,
    /// for D = 12288 or 15360 (every division MusE offers divides one of them).
    static func onAMusETickGrid(_ beat: Double) -> Bool {
        for d in [Int64(12288), 15360] {
            let ticks = Q(beat) * Q(d)
            let nearest = (ticks + Q(BigInt(1), BigInt(2))).floor
            if (ticks - Q(nearest)).magnitude <= (ticks.magnitude + Q(d)) * Q(BigInt(1), BigInt(1) << 50) { return true }
        }
        return false
    }

    mutating func allNotesOff(at f: Int64) {
        coverage["all notes off", default: 0] += 1
        advance(to: f)
        cutAll()
    }

    /// §5 (and our reading): the new pattern plays the onsets emitted at or after `f`.
    mutating func install(_ p: Pattern, at f: Int64) {
        advance(to: f)
        setPattern(p)
        coverage["pattern swap", default: 0] += 1
        if rolling {
            theta = b0 + (Q(f - f0 - 1) + Q(BigInt(1), BigInt(10000))) / framesPerBeat
        }
    }

    mutating func cutAll() {
        for slot in sounding.keys { sounding[slot]!.offBeat = nil }
    }

    // MARK: output

    struct Onset {
        var beat: Q
        var frame: Int64
        var note: PatternNote
        var offBeat: Q
        var line: Int
        var pass: BigInt
    }

    /// The onsets still to play whose frame is before `end`, in beat order
    /// (then line order): every lane's passes from beat 0, swung (§7.1, §7.2).
    func pendingOnsets(before end: Int64) -> [Onset] {
        guard rolling, !sortedNotes.isEmpty else { return [] }
        var result: [Onset] = []
        for (laneIndex, lane) in pattern.lanes.enumerated() {
            let notes = sortedNotes.filter { $0.note.lane == laneIndex }
            guard !notes.isEmpty else { continue }
            let length = Q(lane.length)
            var k = (theta / length).floor
            laneLoop: while true {
                for (note, line) in notes {
                    let b = Q(k) * length + ReferenceSequencer.warp(Q(note.start), lane)
                    if b <= theta { continue }
                    let raw = frame(of: b)
                    if raw >= end { break laneLoop }
                    let f = max(raw, now)
                    let off = Q(k) * length + ReferenceSequencer.warpedEnd(Q(note.start) + Q(note.duration), lane)
                    result.append(Onset(beat: b, frame: f, note: note, offBeat: off, line: line, pass: k))
                }
                k += 1
            }
        }
        return result.sorted { $0.beat != $1.beat ? $0.beat < $1.beat : $0.line < $1.line }
    }

    func offFrame(_ s: Sounding) -> Int64 {
        var f = now
        if rolling, let off = s.offBeat { f = max(frame(of: off), now) }
        return max(f, s.onFrame + 1)
    }

    /// Produces all output before `end`.
    mutating func advance(to end: Int64) {
        guard end > now else { return }
        var onsets = pendingOnsets(before: end)[...]
        while true {
            let nextOff = sounding.values.map(offFrame).min() ?? Int64.max
            let nextOn = onsets.first?.frame ?? Int64.max
            let f = min(nextOff, nextOn)
            if f >= end { break }
            // Note-offs first.
            for slot in sounding.keys.sorted() where offFrame(sounding[slot]!) == f {
                if sounding[slot]!.offBeat != nil, rolling, frame(of: sounding[slot]!.offBeat!) <= sounding[slot]!.onFrame {
                    coverage["one-frame minimum", default: 0] += 1
                }
                output.append(LoggedEvent(frame: f, bytes: [0x80 | UInt8(slot >> 7), UInt8(slot & 127), 0]))
                sounding[slot] = nil
            }
            // Then the onsets of this frame, one per slot: the one whose note-off is
            // latest, ties to the earlier onset (earlier start, then earlier line).
            var chosen: [Int: Onset] = [:]
            var order: [Int] = []
            while let o = onsets.first, o.frame == f {
                onsets = onsets.dropFirst()
                // §7.6, §7.4, §7.5: a muted lane, a lost chance or a key out of range: as if absent.
                if muted.contains(o.note.lane) { coverage["muted", default: 0] += 1; continue }
                if o.note.probability != BeatRational(1) {
                    let lane = pattern.lanes[o.note.lane]
                    if !ReferenceSequencer.chancePlays(seed: pattern.seed, laneName: lane.name, note: o.note, rank: ranks[o.line], pass: o.pass) {
                        coverage["chance: skipped", default: 0] += 1
                        continue
                    }
                    coverage["chance: played", default: 0] += 1
                }
                let key = Int(o.note.key) + transpose[o.note.lane]
                if transpose[o.note.lane] != 0 { coverage["transposed", default: 0] += 1 }
                if key < 0 || key > 127 { coverage["transposed out of range", default: 0] += 1; continue }
                let slot = Int(o.note.channel - 1) * 128 + key
                if o.frame > frame(of: o.beat) { coverage["late onset played at the update", default: 0] += 1 }
                if let c = chosen[slot] {
                    coverage["same-frame merge", default: 0] += 1
                    if c.offBeat < o.offBeat { chosen[slot] = o }
                } else {
                    chosen[slot] = o
                    order.append(slot)
                }
            }
            for slot in order {
                let o = chosen[slot]!
                if sounding[slot] != nil {
                    coverage["retrigger", default: 0] += 1
                    output.append(LoggedEvent(frame: f, bytes: [0x80 | UInt8(slot >> 7), UInt8(slot & 127), 0]))
                }
                output.append(LoggedEvent(frame: f, bytes: [0x90 | UInt8(slot >> 7), UInt8(slot & 127), o.note.velocity]))
                sounding[slot] = Sounding(offBeat: o.offBeat, onFrame: f)
            }
        }
        if rolling {
            let emittedThrough = b0 + (Q(end - f0 - 1) + Q(BigInt(1), BigInt(10000))) / framesPerBeat
            if theta < emittedThrough { theta = emittedThrough }
        }
        now = end
    }
}
