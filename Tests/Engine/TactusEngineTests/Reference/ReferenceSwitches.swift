import BigInt
import TactusOffline

/// A slow model of timing contract §9.2-§9.4 and §9.8 in exact rationals,
/// written from the contract's text: a rolling transport at one tempo, one
/// lane a pattern, requests that switch `phase restart`, `notes cut`, on
/// each grid. It lists the switches first (a request's boundary `B` on its
/// grid, a later request replacing a pending one), then every onset of each
/// segment `[B_i, B_{i+1})` from its origin `O_i = B_i`, each note cut at the
/// next switch; at one frame: note-offs, then the program change, then
/// note-ons. No cursor, no split beats, no floating point.
struct ReferenceSwitches {
    struct Note {
        var start: Q
        var duration: Q
        var key: UInt8
    }
    struct Part {
        var length: Q
        var notes: [Note]
        /// The Program Change it sends when it starts playing (0-based), if any.
        var program: UInt8?
    }
    enum Grid {
        case now, beat, bar, bars(Int), end
    }

    var parts: [Part]
    var grid: Grid
    /// `phase keep`: a switch keeps the origin (and one to the playing pattern changes nothing).
    var keepsPhase = false
    /// `grace G` (§9.2): a request at most `G` after a grid point takes that point, at once.
    var grace = Q.zero
    var beatsPerBar = Q(4)
    /// Frames a beat (constant tempo, speed 1, rolling from frame 0 at beat `startBeat`).
    var framesPerBeat: Q
    /// The beat at frame 0 (a locate before the start of play: §9.5's relocation into a song).
    var startBeat = Q.zero

    /// The boundary of a request at beat `r` while the pattern with origin `origin` and length `length` plays (§9.2).
    func boundary(_ r: Q, origin: Q, length: Q) -> Q {
        let (step, base): (Q, Q)
        switch grid {
        case .now: return r
        case .beat: (step, base) = (Q.one, .zero)
        case .bar: (step, base) = (beatsPerBar, .zero)
        case .bars(let n): (step, base) = (beatsPerBar * Q(n), .zero)
        case .end: (step, base) = (length, origin)
        }
        let before = base + Q(((r - base) / step).floor) * step
        if grace > .zero && !(r - grace > before) { return before }
        return base + ((r - base) / step).ceilingQ * step
    }

    func frame(_ beat: Q) -> Int64 { Int64(((beat - startBeat) * framesPerBeat).ceiling) }

    /// The beat at frame `f`.
    func beat(atFrame f: Int64) -> Q { startBeat + Q(BigInt(f)) / framesPerBeat }

    /// The events before frame `end` for requests `(frame, part)` in frame order (parts from 0), in §9.8's order at each frame.
    func events(requests: [(frame: Int64, part: Int)], end: Int64) -> [LoggedEvent] {
        events(switches: switches(requests: requests, end: end), end: end)
    }

    /// The switches that requests `(frame, part)` make before frame `end` (§9.2, §9.3), the first at beat 0.
    func switches(requests: [(frame: Int64, part: Int)], end: Int64) -> [Switch] {
        // The switches: (beat, part, origin), the first at beat 0 (pattern 1, sent at the start of play).
        var switches: [Switch] = [Switch(beat: .zero, part: 0, origin: .zero)]
        var pending: (beat: Q, part: Int)? = nil
        func perform(_ beat: Q, _ part: Int, from: Q? = nil) {
            let playing = switches[switches.count - 1]
            if keepsPhase && part == playing.part { return }
            switches.append(Switch(beat: beat, part: part, origin: keepsPhase ? playing.origin : beat, from: from))
        }
        for request in requests {
            if let p = pending, frame(p.beat) < request.frame {
                perform(p.beat, p.part)
                pending = nil
            }
            let r = beat(atFrame: request.frame)
            let playing = switches[switches.count - 1]
            let b = boundary(r, origin: playing.origin, length: parts[playing.part].length)
            pending = nil
            if !(r < b) { perform(b, request.part, from: r) } else { pending = (b, request.part) }
        }
        if let p = pending, frame(p.beat) < end { perform(p.beat, p.part) }
        return switches
    }

    /// A switch at `beat` to `part`, which plays from `origin` (§9.4).
    struct Switch {
        var beat: Q
        var part: Int
        var origin: Q
        /// Where it happens and its pattern's onsets begin: `beat`, or the request's `r` for grace.
        var from: Q
        init(beat: Q, part: Int, origin: Q, from: Q? = nil) {
            self.beat = beat
            self.part = part
            self.origin = origin
            self.from = from ?? beat
        }
    }

    /// §9.5: the switches of a song that loops, entries `(part, passes)`: entry `i` of repetition `m` from
    /// `m × S + S_i`; from `startBeat` on (the entry that holds it plays from there, its program at frame 0).
    func songSwitches(_ entries: [(part: Int, passes: Int)], end: Int64) -> [Switch] {
        var switches: [Switch] = []
        let length = entries.reduce(Q.zero) { $0 + Q($1.passes) * parts[$1.part].length }
        var beat = Q((startBeat / length).floor) * length
        while frame(beat) < end {
            for entry in entries {
                let next = beat + Q(entry.passes) * parts[entry.part].length
                if startBeat < next { switches.append(Switch(beat: beat, part: entry.part, origin: beat, from: startBeat < beat ? beat : startBeat)) }
                beat = next
            }
        }
        return switches
    }

    /// The events before frame `end` of the switches `(beat, part)` (the first at beat 0), in §9.8's order at each frame.
    func events(switches: [Switch], end: Int64) -> [LoggedEvent] {
        // Kind 0: note-off, 1: program, 2: note-on (§9.8's order at one frame).
        var out: [(frame: Int64, kind: Int, bytes: [UInt8])] = []
        for (i, s) in switches.enumerated() {
            let part = parts[s.part]
            let until = i + 1 < switches.count ? switches[i + 1].from : beat(atFrame: end)
            let cut: Int64? = i + 1 < switches.count ? frame(until) : nil
            if let program = part.program { out.append((frame(s.from), 1, [0xC0, program])) }
            var pass = ((s.from - s.origin) / part.length).floor
            while true {
                let passStart = s.origin + Q(pass) * part.length
                if !(passStart < until) { break }
                for note in part.notes {
                    let onset = passStart + note.start
                    guard !(onset < s.from), onset < until, frame(onset) < end else { continue }
                    out.append((frame(onset), 2, [0x90, note.key, 100]))
                    var off = frame(onset + note.duration)
                    if let cut, cut < off { off = cut }
                    out.append((off, 0, [0x80, note.key, 0]))
                }
                pass += 1
            }
        }
        return ReferenceSwitches.inContractOrder(out.filter { $0.frame < end }.map { LoggedEvent(frame: $0.frame, bytes: $0.bytes) })
    }
}

extension ReferenceSwitches {
    /// Events by frame; at one frame note-offs, then program changes, then note-ons (§9.8), each
    /// group by its bytes (the contract leaves the order within a group to §5's rules, not tested here).
    static func inContractOrder(_ events: [LoggedEvent]) -> [LoggedEvent] {
        func kind(_ e: LoggedEvent) -> Int {
            switch e.bytes[0] & 0xF0 {
            case 0x80: return 0
            case 0x90: return e.bytes[2] == 0 ? 0 : 2
            default: return 1
            }
        }
        return events.sorted { a, b in
            if a.frame != b.frame { return a.frame < b.frame }
            if kind(a) != kind(b) { return kind(a) < kind(b) }
            return a.bytes.lexicographicallyPrecedes(b.bytes)
        }
    }
}

extension Q {
    /// The smallest integer >= self, as a rational.
    var ceilingQ: Q { Q(ceiling) }
}
