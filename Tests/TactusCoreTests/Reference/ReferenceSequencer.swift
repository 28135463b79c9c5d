import BigInt
import TactusCore
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

    // §2: the anchor.
    var f0: Int64 = 0
    var b0 = Q.zero
    var rolling = false

    /// Onsets at beats > θ have not been played (meaningful while rolling).
    var theta = Q.zero

    var pattern: Pattern
    var sortedNotes: [(note: PatternNote, line: Int)] = []

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
        let reported: Q
        if let bb = u.barBeat {
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
    }

    /// The onsets still to play whose frame is before `end`, in beat order.
    func pendingOnsets(before end: Int64) -> [Onset] {
        guard rolling, !sortedNotes.isEmpty else { return [] }
        let length = Q(pattern.length)
        var result: [Onset] = []
        var k = (theta / length).floor
        while true {
            for (note, _) in sortedNotes {
                let b = Q(k) * length + Q(note.start)
                if b <= theta { continue }
                let raw = frame(of: b)
                if raw >= end { return result }
                let f = max(raw, now)
                result.append(Onset(beat: b, frame: f, note: note, offBeat: b + Q(note.duration)))
            }
            k += 1
        }
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
                let slot = Int(o.note.channel - 1) * 128 + Int(o.note.key)
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
