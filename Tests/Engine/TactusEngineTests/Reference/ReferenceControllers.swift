import BigInt
import TactusEngine
import TactusModel
import TactusOffline

/// Contract §10 from its text, with exact rationals: one pattern of lanes
/// with notes, controller points, ramps and locks, played from beat 0 at a
/// constant tempo with jumps (`locate`) at given frames. Each segment of
/// play (from the start or a jump to the next jump) is enumerated onset by
/// onset and event by event; nothing is shared with the core but the parsed
/// pattern. §10.6's order, with reading (x): at one frame, note-offs (each
/// restore just after its note-off), then the chase and the controllers in
/// beat order, then the locks of the notes that start, then their note-ons.
struct ReferenceControllers {
    let pattern: Pattern
    let framesPerBeat: Q

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

    /// §10.1, §10.2: the events of pass `k` of every lane, at beats `k × L + ...`.
    func controls(pass k: Int, lane j: Int) -> [Control] {
        let lane = pattern.lanes[j]
        let length = Q(lane.length)
        let step = Q(lane.rampStep)
        var out: [Control] = []
        let points = pattern.controllers.enumerated().filter { $0.element.lane == j }
        for (i, p) in points {
            let same = points.filter { $0.element.kind == p.kind && $0.element.channel == p.channel }.sorted { $0.element.start < $1.element.start }
            let b1 = ReferenceSequencer.warp(Q(p.start), lane)
            let base = Q(k) * length
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

    /// The log of play from frame 0 (beat 0) with a jump at each `jumps`
    /// frame to its beat, up to `end`, as the core writes it.
    func events(jumps: [(frame: Int64, beat: Q)], end: Int64) -> [LoggedEvent] {
        var log: [LoggedEvent] = []
        var lastSent: [Int: Int] = [:]
        var lastWasRestore: [Int: (frame: Int64, index: Int, before: Int?)] = [:]
        var holds: [Int: Int] = [:]
        var beforeLock: [Int: Int?] = [:]
        struct Sounding { var key: UInt8; var channel: UInt8; var offBeat: Q; var onFrame: Int64; var locks: [ControllerLock] }
        var sounding: [Sounding] = []

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
        let segments = [(frame: Int64(0), beat: Q.zero)] + jumps
        for (s, segment) in segments.enumerated() {
            let segmentEnd = s + 1 < segments.count ? segments[s + 1].frame : end
            func frame(_ b: Q) -> Int64 { segment.frame + Int64(Int(((b - segment.beat) * framesPerBeat).ceiling)) }
            func beat(_ f: Int64) -> Q { segment.beat + Q(f - segment.frame) / framesPerBeat }
            // §4: a jump cuts what sounds (channel, then key), locks end without a restore; §10.3: the memory is cleared.
            for n in sounding.sorted(by: { ($0.channel, $0.key) < ($1.channel, $1.key) }) {
                log.append(LoggedEvent(frame: segment.frame, bytes: [0x80 | (n.channel - 1), n.key, 0]))
            }
            sounding = []
            holds = [:]
            lastSent = [:]
            lastWasRestore = [:]
            // Every event of this segment: passes around it.
            let lanes = pattern.lanes
            var timeline: [Control] = []
            var onsets: [(beat: Q, off: Q, note: PatternNote, line: Int)] = []
            let lastBeat = beat(segmentEnd)
            for (j, lane) in lanes.enumerated() {
                let length = Q(lane.length)
                let first = Int(((segment.beat / length).floor)) - 1
                let last = Int((lastBeat / length).floor) + 1
                for k in first...last {
                    timeline += controls(pass: k, lane: j)
                    for (line, note) in pattern.notes.enumerated() where note.lane == j {
                        let on = Q(k) * length + ReferenceSequencer.warp(Q(note.start), lane)
                        let off = Q(k) * length + ReferenceSequencer.warpedEnd(Q(note.start) + Q(note.duration), lane)
                        onsets.append((on, off, note, line))
                    }
                }
            }
            timeline.sort { $0.beat != $1.beat ? $0.beat < $1.beat : ($0.order != $1.order ? $0.order < $1.order : $0.point < $1.point) }
            // §10.4: the chase at the segment's start: programs first, then by lane and controller.
            var groups: [(order: Int, lane: Int, memory: Int)] = []
            for c in timeline where !groups.contains(where: { $0.lane == c.lane && $0.memory == c.memory }) {
                groups.append((c.order, c.lane, c.memory))
            }
            func laneValue(lane: Int, memory: Int, atOrBefore b: Q) -> Control? {
                timeline.last { $0.lane == lane && $0.memory == memory && !(b < $0.beat) }
            }
            groups.sort { ($0.order, $0.lane, $0.memory) < ($1.order, $1.lane, $1.memory) }
            for g in groups {
                if let c = laneValue(lane: g.lane, memory: g.memory, atOrBefore: segment.beat) {
                    send(c.memory, bytes(c, value: c.value), c.value, segment.frame, restore: false)
                }
            }
            let controls = timeline.filter { !($0.beat < segment.beat) && frame($0.beat) < segmentEnd }
            let starts = onsets.filter { !($0.beat < segment.beat) && frame($0.beat) < segmentEnd }
                .sorted { $0.beat != $1.beat ? $0.beat < $1.beat : $0.line < $1.line }
            var frames = Set(controls.map { frame($0.beat) } + starts.map { frame($0.beat) })
            var f = segment.frame
            var ci = 0
            var oi = 0
            while true {
                // The next frame with something due: a note-off, a control or an onset.
                let offFrames = sounding.map { max(frame($0.offBeat), $0.onFrame + 1) }
                let next = ([frames.filter { $0 >= f }.min(), offFrames.min()].compactMap { $0 }).min()
                guard let now = next, now < segmentEnd else { break }
                f = now
                frames.remove(now)
                // Note-offs, in the order of their beats; each restore just after its note-off.
                let due = sounding.indices.filter { max(frame(sounding[$0].offBeat), sounding[$0].onFrame + 1) == now }
                    .sorted { sounding[$0].offBeat != sounding[$1].offBeat ? sounding[$0].offBeat < sounding[$1].offBeat : (sounding[$0].channel, sounding[$0].key) < (sounding[$1].channel, sounding[$1].key) }
                for i in due {
                    let n = sounding[i]
                    log.append(LoggedEvent(frame: now, bytes: [0x80 | (n.channel - 1), n.key, 0]))
                    // Reading (x): one note's restores in the order of their controller numbers.
                    for lock in n.locks.sorted(by: { $0.controller < $1.controller }) {
                        let memory = Int(n.channel) * 200 + Int(lock.controller)
                        holds[memory, default: 0] -= 1
                        guard holds[memory] == 0 else { continue }
                        // The lanes' value by this beat (the last lane in text order deciding), else the value before the lock.
                        var value: Int? = nil
                        for j in lanes.indices {
                            if let c = laneValue(lane: j, memory: memory, atOrBefore: beat(now)) { value = c.value }
                        }
                        if let v = value ?? (beforeLock[memory] ?? nil) {
                            send(memory, [0xB0 | (n.channel - 1), lock.controller, UInt8(v)], v, now, restore: true)
                        }
                    }
                }
                sounding = sounding.enumerated().filter { !due.contains($0.offset) }.map { $0.element }
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
