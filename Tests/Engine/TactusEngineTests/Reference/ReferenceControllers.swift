import BigInt
import TactusEngine
import TactusModel
import TactusOffline

/// Contract §10 from its text, with exact rationals, together with §4's
/// jumps and tempo changes and §9's switches: the patterns of a text, each
/// of lanes with notes, controller points, ramps and locks, played from
/// beat 0 with jumps (`locate`), new tempos, and switches whose beats
/// `ReferenceSwitches` finds from the requests (one model of §9's rules).
/// Each segment of play (from the start, a jump or a switch to the next)
/// is enumerated onset by onset and event by event; nothing is shared with
/// the core but the parsed text. §10.6's order, with reading (x): at one
/// frame, note-offs, then the restores (in note-off order), then a
/// switch's program, the chase and the controllers in beat order, then
/// the locks of the notes that start, then their note-ons. A retrigger's
/// note-off (§5 rule 3) is one of the frame's note-offs, after the others.
struct ReferenceControllers {
    /// The text's patterns (§9), and the Program Change each sends when it starts playing.
    let patterns: [Pattern]
    let programs: [PatternProgram?]
    let framesPerBeat: Q

    /// One pattern (a text without `pattern` lines).
    init(pattern: Pattern, framesPerBeat: Q) {
        patterns = [pattern]
        programs = [nil]
        self.framesPerBeat = framesPerBeat
    }

    /// Every pattern of `arrangement`.
    init(arrangement: Arrangement, framesPerBeat: Q) {
        patterns = arrangement.patterns.map { $0.pattern }
        programs = arrangement.patterns.map { $0.program }
        self.framesPerBeat = framesPerBeat
    }

    /// One controller event of a lane's timeline (a point or a ramp sample).
    struct Control {
        var beat: Q
        var lane: Int
        var kind: ControllerKind
        var channel: UInt8
        var value: Int
        var point: Int
        /// §10.6: programs and bank selects first at one beat.
        var order: Int {
            switch kind {
            case .program: return Int(channel) * 3 + 2
            case .control(0): return Int(channel) * 3
            case .control(32): return Int(channel) * 3 + 1
            default: return 2048
            }
        }
        var memory: Int {
            switch kind {
            case .control(let n): return Int(channel) * 200 + Int(n)
            case .bend: return Int(channel) * 200 + 120
            case .pressure: return Int(channel) * 200 + 121
            case .program: return Int(channel) * 200 + 122
            }
        }
    }

    /// §10.1, §10.2: the events of pass `k` of lane `j` of `pattern`, at beats `origin + k × L + ...` (§9.1).
    func controls(pass k: Int, lane j: Int, of pattern: Pattern, origin: Q) -> [Control] {
        let lane = pattern.lanes[j]
        let length = Q(lane.length)
        let step = Q(lane.rampStep)
        var out: [Control] = []
        let points = pattern.controllers.enumerated().filter { $0.element.lane == j }
        for (i, p) in points {
            let same = points.filter { $0.element.kind == p.kind && $0.element.channel == p.channel }.sorted { $0.element.start < $1.element.start }
            let b1 = ReferenceSequencer.warp(Q(p.start), lane)
            let base = origin + Q(k) * length
            var events: [(Q, Int)] = []
            if p.ramp {
                let at = same.firstIndex { $0.offset == i }!
                let previous = same[at == 0 ? same.count - 1 : at - 1].element
                var b0 = ReferenceSequencer.warp(Q(previous.start), lane)
                if at == 0 { b0 = b0 - length }
                let v0 = Q(Int(previous.value))
                let v1 = Q(Int(p.value))
                var m = 1
                while Q(m) * step < b1 - b0 {
                    let g = b0 + Q(m) * step
                    events.append((g, Int((v0 + (v1 - v0) * (g - b0) / (b1 - b0) + Q(1) / Q(2)).floor)))
                    m += 1
                }
            }
            events.append((b1, Int(p.value)))
            for (b, v) in events {
                out.append(Control(beat: base + b, lane: j, kind: p.kind, channel: p.channel, value: v, point: i))
            }
        }
        return out
    }

    func bytes(_ c: Control, value: Int) -> [UInt8] {
        let ch = c.channel - 1
        switch c.kind {
        case .control(let n): return [0xB0 | ch, n, UInt8(value)]
        case .bend: return [0xE0 | ch, UInt8((value + 8192) & 127), UInt8((value + 8192) >> 7)]
        case .pressure: return [0xD0 | ch, UInt8(value)]
        case .program: return [0xC0 | ch, UInt8(value)]
        }
    }

    /// What the host does at a frame: a jump to a beat (§4: cut, memory
    /// cleared, chase), or a new tempo given as frames a beat (§4: a repeat,
    /// the anchor moves to the extrapolated beat with the new rate).
    enum Update {
        case jump(Q)
        case tempo(framesPerBeat: Q)
    }

    /// An anchor of §2: from `frame` on, beat `beat` + (f - frame) / `framesPerBeat`.
    struct Anchor {
        var frame: Int64
        var beat: Q
        var framesPerBeat: Q
    }

    /// A stretch of play of one pattern: from the start of play, a jump or a switch to the next of them.
    struct Segment {
        enum Start { case play, jump, switchCut, switchRing }
        var start: Start
        /// The first is where it starts; later ones, its tempo changes.
        var anchors: [Anchor]
        var part: Int
        /// §9.1: where the pattern's passes start.
        var origin: Q
        /// A switch's: what lies at or after this beat plays (§9.4); a start's or a jump's: §3's `x > -1e-4`.
        var from: Q
    }

    /// The log of play from frame 0 (beat 0) with a jump at each `jumps`
    /// frame to its beat, up to `end`, as the core writes it.
    func events(jumps: [(frame: Int64, beat: Q)], end: Int64) -> [LoggedEvent] {
        events(updates: jumps.map { ($0.frame, Update.jump($0.beat)) }, end: end)
    }

    /// The log of play of the first pattern from frame 0 (beat 0,
    /// `framesPerBeat`) with `updates` in frame order, up to `end`.
    func events(updates: [(frame: Int64, update: Update)], end: Int64) -> [LoggedEvent] {
        var segments = [Segment(start: .play, anchors: [Anchor(frame: 0, beat: .zero, framesPerBeat: framesPerBeat)], part: 0, origin: .zero, from: .zero)]
        for (f, u) in updates {
            let a = segments[segments.count - 1].anchors.last!
            switch u {
            case .jump(let b):
                segments.append(Segment(start: .jump, anchors: [Anchor(frame: f, beat: b, framesPerBeat: a.framesPerBeat)], part: 0, origin: .zero, from: b))
            case .tempo(let rate):
                let here = a.beat + Q(BigInt(f - a.frame)) / a.framesPerBeat
                segments[segments.count - 1].anchors.append(Anchor(frame: f, beat: here, framesPerBeat: rate))
            }
        }
        return events(segments: segments, end: end)
    }

    /// The log of play at one tempo from frame 0 (beat 0) with `switches`
    /// (`ReferenceSwitches.switches`: the first at beat 0), notes cut or
    /// ringing at each (§9.4), up to `end`.
    func events(switches: [ReferenceSwitches.Switch], ring: Bool, end: Int64) -> [LoggedEvent] {
        let segments = switches.enumerated().map { (i, s) in
            // §3: the switch acts at the frame of its beat (a request's frame within grace, or `now`).
            let frame = Int64(Int((s.from * framesPerBeat - Q(1) / Q(10_000)).ceiling))
            return Segment(
                start: i == 0 ? .play : ring ? .switchRing : .switchCut, anchors: [Anchor(frame: frame, beat: s.from, framesPerBeat: framesPerBeat)],
                part: s.part, origin: s.origin, from: s.from)
        }
        return events(segments: segments, end: end)
    }

    func events(segments: [Segment], end: Int64) -> [LoggedEvent] {
        var log: [LoggedEvent] = []
        var lastSent: [Int: Int] = [:]
        var lastWasRestore: [Int: (frame: Int64, index: Int, before: Int?)] = [:]
        var holds: [Int: Int] = [:]
        var beforeLock: [Int: Int?] = [:]
        struct Sounding { var key: UInt8; var channel: UInt8; var offBeat: Q; var onFrame: Int64; var locks: [ControllerLock] }
        var sounding: [Sounding] = []
        /// The lanes' value for a memory at or before a frame, of the segment playing (for a restore).
        var lanesValue: (Int, Int64) -> Int? = { _, _ in nil }
        /// The frame of a beat (§3) under the segment playing.
        var frameOf: (Q) -> Int64 = { _ in Int64.max }

        func send(_ memory: Int, _ bytes: [UInt8], _ value: Int, _ frame: Int64, restore: Bool) {
            guard lastSent[memory] != value else { return }
            if restore {
                lastWasRestore[memory] = (frame: frame, index: log.count, before: lastSent[memory])
            } else {
                lastWasRestore[memory] = nil
            }
            lastSent[memory] = value
            log.append(LoggedEvent(frame: frame, bytes: bytes))
        }
        /// §10.5: the note `n` ended at `now`: its locks are released; a restore for each that no other note holds.
        func restores(_ n: Sounding, _ now: Int64) {
            // Reading (x): one note's restores in the order of their controller numbers.
            for lock in n.locks.sorted(by: { $0.controller < $1.controller }) {
                let memory = Int(n.channel) * 200 + Int(lock.controller)
                holds[memory, default: 0] -= 1
                guard holds[memory] == 0 else { continue }
                // The lanes' value by this frame (the last lane in text order deciding), else the value before the lock.
                if let v = lanesValue(memory, now) ?? (beforeLock[memory] ?? nil) {
                    send(memory, [0xB0 | (n.channel - 1), lock.controller, UInt8(v)], v, now, restore: true)
                }
            }
        }
        /// The note-offs due at `now`, in the order of their beats (then channel and key), then those
        /// of the notes that onsets `starting` (channel, key) at `now` retrigger (§5 rule 3), in their
        /// order; then, §10.6, their restores.
        func noteOffs(at now: Int64, starting: [(channel: UInt8, key: UInt8)] = []) {
            var due = sounding.indices.filter { max(frameOf(sounding[$0].offBeat), sounding[$0].onFrame + 1) == now }
                .sorted { sounding[$0].offBeat != sounding[$1].offBeat ? sounding[$0].offBeat < sounding[$1].offBeat : (sounding[$0].channel, sounding[$0].key) < (sounding[$1].channel, sounding[$1].key) }
            for o in starting {
                if let i = sounding.indices.first(where: { sounding[$0].channel == o.channel && sounding[$0].key == o.key }), !due.contains(i) { due.append(i) }
            }
            for i in due {
                log.append(LoggedEvent(frame: now, bytes: [0x80 | (sounding[i].channel - 1), sounding[i].key, 0]))
            }
            for i in due { restores(sounding[i], now) }
            sounding = sounding.enumerated().filter { !due.contains($0.offset) }.map { $0.element }
        }

        for (s, segment) in segments.enumerated() {
            let anchors = segment.anchors
            let start = anchors[0]
            let segmentEnd = s + 1 < segments.count ? segments[s + 1].anchors[0].frame : end
            let pattern = patterns[segment.part]
            switch segment.start {
            case .play, .jump, .switchCut:
                // §4, §9.4: what sounds is cut (channel, then key); locks end without a restore.
                for n in sounding.sorted(by: { ($0.channel, $0.key) < ($1.channel, $1.key) }) {
                    log.append(LoggedEvent(frame: start.frame, bytes: [0x80 | (n.channel - 1), n.key, 0]))
                }
                sounding = []
                holds = [:]
            case .switchRing:
                // §9.4 `notes ring`: what is due at the switch's frame ends there (restored with the lanes playing until then).
                noteOffs(at: start.frame)
            }
            if segment.start != .switchCut && segment.start != .switchRing {
                // §10.3: a start of play and a jump clear the memory.
                lastSent = [:]
                lastWasRestore = [:]
            }
            // §9.4: the pattern's own bank and program, always sent, and remembered.
            if let program = programs[segment.part] {
                let ch = program.channel - 1
                if let msb = program.bankMSB { log.append(LoggedEvent(frame: start.frame, bytes: [0xB0 | ch, 0, msb])); lastSent[Int(program.channel) * 200] = Int(msb) }
                if let lsb = program.bankLSB { log.append(LoggedEvent(frame: start.frame, bytes: [0xB0 | ch, 32, lsb])); lastSent[Int(program.channel) * 200 + 32] = Int(lsb) }
                log.append(LoggedEvent(frame: start.frame, bytes: [0xC0 | ch, program.program]))
                lastSent[Int(program.channel) * 200 + 122] = Int(program.program)
            }
            // §3: ceil(x - 1e-4), exactly, under the anchor in force when the beat comes; §4, reading (c):
            // an event not yet sent when a new anchor comes, and before its frame under it, goes at that frame.
            func frame(_ b: Q) -> Int64 {
                for (i, a) in anchors.enumerated() {
                    let f = max(a.frame, a.frame + Int64(Int(((b - a.beat) * a.framesPerBeat - Q(1) / Q(10_000)).ceiling)))
                    if i + 1 == anchors.count || f < anchors[i + 1].frame { return f }
                }
                return Int64.max
            }
            func beat(_ f: Int64) -> Q {
                let a = anchors.last { $0.frame <= f } ?? start
                return a.beat + Q(BigInt(f - a.frame)) / a.framesPerBeat
            }
            frameOf = frame
            // Every event of this segment: passes around it.
            let lanes = pattern.lanes
            var timeline: [Control] = []
            var onsets: [(beat: Q, off: Q, note: PatternNote, line: Int)] = []
            let lastBeat = beat(segmentEnd)
            for (j, lane) in lanes.enumerated() {
                let length = Q(lane.length)
                let first = Int((((start.beat - segment.origin) / length).floor)) - 1
                let last = Int(((lastBeat - segment.origin) / length).floor) + 1
                for k in first...last {
                    timeline += controls(pass: k, lane: j, of: pattern, origin: segment.origin)
                    for (line, note) in pattern.notes.enumerated() where note.lane == j {
                        let on = segment.origin + Q(k) * length + ReferenceSequencer.warp(Q(note.start), lane)
                        let off = segment.origin + Q(k) * length + ReferenceSequencer.warpedEnd(Q(note.start) + Q(note.duration), lane)
                        onsets.append((on, off, note, line))
                    }
                }
            }
            timeline.sort { $0.beat != $1.beat ? $0.beat < $1.beat : ($0.order != $1.order ? $0.order < $1.order : $0.point < $1.point) }
            // Reading (x): at or before frame `f` by §3's rule, the rule that sends the events.
            func laneValue(lane: Int, memory: Int, atOrBefore f: Int64) -> Control? {
                timeline.last { $0.lane == lane && $0.memory == memory && frame($0.beat) <= f }
            }
            lanesValue = { memory, f in
                var value: Int? = nil
                for j in lanes.indices {
                    if let c = laneValue(lane: j, memory: memory, atOrBefore: f) { value = c.value }
                }
                return value
            }
            // §10.4: the chase at the segment's start: programs first, then by lane and controller; not what a lock holds.
            var groups: [(order: Int, lane: Int, memory: Int)] = []
            for c in timeline where !groups.contains(where: { $0.lane == c.lane && $0.memory == c.memory }) {
                groups.append((c.order, c.lane, c.memory))
            }
            groups.sort { ($0.order, $0.lane, $0.memory) < ($1.order, $1.lane, $1.memory) }
            // (Two switches at one frame: the chase is the second's.)
            for g in groups where holds[g.memory, default: 0] == 0 && start.frame < segmentEnd {
                if let c = laneValue(lane: g.lane, memory: g.memory, atOrBefore: start.frame) {
                    send(c.memory, bytes(c, value: c.value), c.value, start.frame, restore: false)
                }
            }
            // What plays: a switch's from its beat on (§9.4); a start's and a jump's by §3 (x > -1e-4).
            func played(_ b: Q) -> Bool {
                switch segment.start {
                case .switchCut, .switchRing: return !(b < segment.from)
                case .play, .jump: return Q(-1) / Q(10_000) < (b - start.beat) * start.framesPerBeat
                }
            }
            let controls = timeline.filter { played($0.beat) && frame($0.beat) < segmentEnd }
            let starts = onsets.filter { played($0.beat) && frame($0.beat) < segmentEnd }
                .sorted { $0.beat != $1.beat ? $0.beat < $1.beat : $0.line < $1.line }
            var frames = Set(controls.map { frame($0.beat) } + starts.map { frame($0.beat) })
            var f = start.frame
            var ci = 0
            var oi = 0
            while true {
                // The next frame with something due: a note-off, a control or an onset.
                let offFrames = sounding.map { max(frame($0.offBeat), $0.onFrame + 1) }
                let next = ([frames.filter { $0 >= f }.min(), offFrames.min()].compactMap { $0 }).min()
                guard let now = next, now < segmentEnd else { break }
                f = now
                frames.remove(now)
                noteOffs(at: now, starting: starts.filter { frame($0.beat) == now }.map { ($0.note.channel, $0.note.key) })
                // Controllers.
                while ci < controls.count, frame(controls[ci].beat) == now {
                    let c = controls[ci]
                    ci += 1
                    if holds[c.memory, default: 0] > 0 { continue }
                    send(c.memory, bytes(c, value: c.value), c.value, now, restore: false)
                }
                // Locks, then note-ons.
                var noteOns: [LoggedEvent] = []
                while oi < starts.count, frame(starts[oi].beat) == now {
                    let o = starts[oi]
                    oi += 1
                    for lock in o.note.locks {
                        let memory = Int(o.note.channel) * 200 + Int(lock.controller)
                        var chained = false
                        if let r = lastWasRestore[memory], r.frame == now, log.indices.contains(r.index) {
                            log.remove(at: r.index)
                            for (m, w) in lastWasRestore where w.index > r.index { lastWasRestore[m] = (frame: w.frame, index: w.index - 1, before: w.before) }
                            lastSent[memory] = r.before
                            lastWasRestore[memory] = nil
                            chained = true
                        }
                        if holds[memory, default: 0] == 0 && !chained { beforeLock[memory] = lastSent[memory] }
                        holds[memory, default: 0] += 1
                        send(memory, [0xB0 | (o.note.channel - 1), lock.controller, lock.value], Int(lock.value), now, restore: false)
                    }
                    noteOns.append(LoggedEvent(frame: now, bytes: [0x90 | (o.note.channel - 1), o.note.key, o.note.velocity]))
                    sounding.append(Sounding(key: o.note.key, channel: o.note.channel, offBeat: o.off, onFrame: now, locks: o.note.locks))
                }
                log += noteOns
            }
        }
        return log.filter { $0.frame < end }
    }
}
