import BigInt
import TactusOffline

/// A slow model of timing contract §9.5 (with §4's jumps and §9.4's
/// `notes`) in exact rationals, written from the contract's text: a song of
/// one-lane patterns that loops, stops or holds after its last entry; the
/// transport rolls at one tempo and may locate (a jump: every sounding note
/// ends at its frame, the song's entry at the target sends its program
/// there and plays what lies at the target and later); the `song` control
/// may go off (what plays, plays on with its origin) and on again (a switch
/// at that frame to the song's entry at the beat in force). With `notes
/// cut` an entry start ends the old pattern's notes there; with `notes
/// ring` each keeps its note-off. A note whose key sounds again ends at the
/// new onset (§5 rule 3). At one frame: note-offs, program changes,
/// note-ons (§9.8).
struct ReferenceSong {
    enum Ending { case loop, stop, hold }
    var parts: [ReferenceSwitches.Part]
    var entries: [(part: Int, passes: Int)]
    var ending: Ending
    var ring = false
    var framesPerBeat: Q

    /// `S_i`, and `S` last.
    var starts: [Q] {
        var s: [Q] = [.zero]
        for e in entries { s.append(s[s.count - 1] + Q(e.passes) * parts[e.part].length) }
        return s
    }

    /// What the song plays at beat `b` (its pattern and origin; nil: nothing), and its next entry start after `b` (nil: none).
    func entry(at b: Q) -> (current: (part: Int, origin: Q)?, next: Q?) {
        let s = starts
        let n = entries.count
        let length = s[n]
        if b < .zero { return (nil, .zero) }
        var m = BigInt(0)
        if !(b < length) {
            switch ending {
            case .stop: return (nil, nil)
            case .hold: return ((entries[n - 1].part, s[n - 1]), nil)
            case .loop: m = (b / length).floor
            }
        }
        let base = Q(m) * length
        var i = n - 1
        while base + s[i] > b { i -= 1 }
        let next: Q? = i + 1 < n || ending != .hold ? base + s[i + 1] : nil
        return ((entries[i].part, base + s[i]), next)
    }

    /// One rolling stretch: from frame `j` at beat `t` until frame `e`, where every note still sounding
    /// ends (a jump, a stop); the song control's changes `(frame, on)` inside it. Events `(frame, kind, bytes)`.
    func run(fromFrame j: Int64, beat t: Q, toFrame e: Int64, toggles: [(frame: Int64, on: Bool)] = [], songOn: Bool = true)
        -> [(frame: Int64, kind: Int, bytes: [UInt8])]
    {
        func frame(_ b: Q) -> Int64 { j + Int64(((b - t) * framesPerBeat).ceiling) }
        func beat(_ f: Int64) -> Q { t + Q(BigInt(f - j)) / framesPerBeat }
        var out: [(frame: Int64, kind: Int, bytes: [UInt8])] = []
        var notes: [(on: Int64, off: Int64, key: UInt8)] = []
        // Segments: from a frame (where it takes over), the pattern and origin it plays, until the next.
        var on = songOn
        var pending = toggles[...]
        var from = j
        var (current, next) = on ? entry(at: t) : (nil, nil)
        while from < e {
            // The segment ends at the next entry start (song on), the next toggle that matters, or the run's end.
            var until = e
            var reason = 0  // 0: run end, 1: entry start, 2: toggle
            if on, let n = next, frame(n) < until { until = frame(n); reason = 1 }
            if let toggle = pending.first, toggle.frame < until {
                until = toggle.frame
                reason = 2
            }
            if let (part, origin) = current {
                let p = parts[part]
                var pass = ((beat(from) - origin) / p.length).floor
                while true {
                    let passStart = origin + Q(pass) * p.length
                    if !(frame(passStart) < until) { break }
                    for note in p.notes {
                        let onset = passStart + note.start
                        let f = frame(onset)
                        guard f >= from, !(onset < beat(from)), f < until else { continue }
                        notes.append((f, frame(onset + note.duration), note.key))
                    }
                    pass += 1
                }
            }
            // What ends the segment.
            if until >= e { break }
            if reason == 1 {
                // An entry start: a switch (notes cut or ring), then the next entry's program and notes.
                if !ring { for i in notes.indices where notes[i].off > until { notes[i].off = until } }
                (current, next) = entry(at: beat(until))
                if let c = current, let program = parts[c.part].program { out.append((until, 1, [0xC0, program])) }
            } else {
                let toggle = pending.removeFirst()
                if toggle.on != on {
                    on = toggle.on
                    if on {
                        // The song turned on: a switch to its entry at the beat in force.
                        if !ring { for i in notes.indices where notes[i].off > until { notes[i].off = until } }
                        (current, next) = entry(at: beat(until))
                        if let c = current, let program = parts[c.part].program { out.append((until, 1, [0xC0, program])) }
                    } else {
                        next = nil  // what plays, plays on
                    }
                }
            }
            from = until
        }
        // The program at the run's start (the entry that holds the target).
        if songOn, let c = entry(at: t).0, let program = parts[c.part].program { out.append((j, 1, [0xC0, program])) }
        // §5 rule 3: a key that sounds again ends the note before; every note ends by the run's end.
        notes.sort { ($0.key, $0.on) < ($1.key, $1.on) }
        for i in notes.indices {
            if i + 1 < notes.count, notes[i + 1].key == notes[i].key, notes[i + 1].on < notes[i].off { notes[i].off = notes[i + 1].on }
            if notes[i].off > e { notes[i].off = e }
            out.append((notes[i].on, 2, [0x90, notes[i].key, 100]))
            out.append((notes[i].off, 0, [0x80, notes[i].key, 0]))
        }
        return out
    }

    /// The events before frame `end` of a session that plays from frame 0 at beat `start` and
    /// locates to `jumps` (frame, beat) while rolling, stopping at `end`.
    func events(start: Q = .zero, jumps: [(frame: Int64, beat: Q)] = [], toggles: [(frame: Int64, on: Bool)] = [], end: Int64) -> [LoggedEvent] {
        var out: [(frame: Int64, kind: Int, bytes: [UInt8])] = []
        var runs: [(frame: Int64, beat: Q)] = [(0, start)] + jumps
        runs.append((end, .zero))
        for r in 0..<(runs.count - 1) {
            out += run(fromFrame: runs[r].frame, beat: runs[r].beat, toFrame: runs[r + 1].frame,
                toggles: toggles.filter { $0.frame >= runs[r].frame && $0.frame < runs[r + 1].frame })
        }
        return ReferenceSwitches.inContractOrder(out.filter { $0.frame < end }.map { LoggedEvent(frame: $0.frame, bytes: $0.bytes) })
    }
}
