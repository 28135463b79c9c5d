import TactusEngine
/// What to take from a file (docs/midi-files.md, M10); nil takes everything.
public struct MIDIImportOptions: Sendable {
    /// 1-based track number.
    public var track: Int?
    /// 1-16.
    public var channel: Int?
    /// First bar taken, counted from 1.
    public var fromBar: Int?
    /// First bar not taken.
    public var toBar: Int?
    /// The loop length, overriding M13.
    public var length: BeatRational?

    public init(track: Int? = nil, channel: Int? = nil, fromBar: Int? = nil, toBar: Int? = nil, length: BeatRational? = nil) {
        self.track = track
        self.channel = channel
        self.fromBar = fromBar
        self.toBar = toBar
        self.length = length
    }
}

/// A pattern imported from a file, its text (with the file's tempo map, time
/// signatures and track names as comments) and what a person should be told.
public struct MIDIImport: Sendable {
    public var pattern: Pattern
    /// Pattern text version 1; parses back to `pattern`.
    public var text: String
    /// Lines for a person: the file's tempo, what was left out and why (M15).
    public var report: [String]
}

/// An import that cannot make a pattern; `message` says why.
public struct MIDIImportError: Error, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
}

/// Turns a `MIDIFile` into a `Pattern` (docs/midi-files.md, M10-M15).
///
/// Off the audio thread. O(n log n) in the notes; the note limit is checked
/// before the pattern's notes are allocated.
public enum MIDIFileImport {
    /// Sub-tick units: bar lines fall on whole units for any time signature
    /// with a denominator up to 256 (a bar of 3/8 at 25 PPQ is 37.5 ticks).
    static var unitsPerTick: Int64 { 256 }
    /// Ticks beyond this cannot be within a pattern's 1,000,000 beats at any PPQ.
    static var maximumTick: Int64 { 1 << 44 }

    public static func importPattern(_ file: MIDIFile, options: MIDIImportOptions = MIDIImportOptions()) throws(MIDIImportError) -> MIDIImport {
        let ppq = Int64(file.ticksPerQuarter)
        if let t = options.track, t < 1 || t > file.tracks.count {
            throw MIDIImportError(file.tracks.isEmpty ? "the file has no tracks" : "there is no track \(t); the file has tracks 1-\(file.tracks.count)")
        }
        if let c = options.channel, c < 1 || c > 16 { throw MIDIImportError("channel must be 1-16, found \(c)") }
        for (name, bar) in [("--from", options.fromBar), ("--to", options.toBar)] {
            if let bar, bar < 1 || bar > 1_000_000 { throw MIDIImportError("\(name) must be a bar from 1 to 1000000, found \(bar)") }
        }
        if let a = options.fromBar, let b = options.toBar, b <= a {
            throw MIDIImportError("--to \(b) must come after --from \(a) (bars from \(a) up to but not including \(b))")
        }
        if let l = options.length, l <= .zero { throw MIDIImportError("the length must be greater than 0") }
        if file.format == 2 && options.track == nil && file.tracks.count > 1 {
            throw MIDIImportError("a format 2 file holds \(file.tracks.count) separate sequences; choose one with --track N")
        }
        let selected: [Int] = options.track.map { [$0 - 1] } ?? Array(0..<file.tracks.count)
        // Format 0 and 1 share one time line, whose meta events may be in any track.
        let timeline = file.format == 2 ? selected : Array(0..<file.tracks.count)

        var signatures: [MIDITimeSignature] = []
        var tempos: [MIDITempoChange] = []
        var unusableSignatures = 0
        for t in timeline {
            for s in file.tracks[t].timeSignatures { if s.isUsable { signatures.append(s) } else { unusableSignatures += 1 } }
            tempos += file.tracks[t].tempoChanges
        }
        signatures = stableSortedByTick(signatures) { $0.tick }
        tempos = stableSortedByTick(tempos) { $0.tick }

        var endTick: Int64 = 0
        for t in selected {
            endTick = max(endTick, file.tracks[t].endTick)
            for n in file.tracks[t].notes { endTick = max(endTick, n.endTick) }
        }
        guard endTick <= maximumTick else {
            throw MIDIImportError("the file runs to tick \(endTick), beyond the \(PatternLimits.maximumBeatValue.numerator) beats a pattern can hold")
        }
        let bars = BarLines(signatures: signatures, ticksPerQuarter: ppq)
        let rangeStart = bars.start(ofBar: options.fromBar ?? 1)
        let rangeEnd = options.toBar.map { bars.start(ofBar: $0) }
        func isTaken(_ n: MIDIFileNote) -> Bool {
            guard options.channel.map({ Int(n.channel) == $0 }) ?? true else { return false }
            let units = n.startTick * unitsPerTick
            return units >= rangeStart && (rangeEnd.map { units < $0 } ?? true)
        }
        // The notes taken are counted before they are copied (M15).
        var count = 0
        for t in selected { for n in file.tracks[t].notes where isTaken(n) { count += 1 } }
        guard count <= Pattern.maximumNoteCount else {
            throw MIDIImportError("more than \(Pattern.maximumNoteCount) notes, the most a pattern holds; narrow the import with --track, --channel or --from/--to")
        }
        var taken: [(note: MIDIFileNote, track: Int, index: Int)] = []
        taken.reserveCapacity(count)
        for t in selected {
            for (i, n) in file.tracks[t].notes.enumerated() where isTaken(n) { taken.append((n, t, i)) }
        }
        taken.sort { a, b in
            if a.note.startTick != b.note.startTick { return a.note.startTick < b.note.startTick }
            if a.track != b.track { return a.track < b.track }
            return a.index < b.index
        }

        // The loop length (M13).
        var zeroLength = 0
        var lastEnd = endTick * unitsPerTick
        for item in taken where item.note.endTick == item.note.startTick {
            zeroLength += 1
            lastEnd = max(lastEnd, (item.note.endTick + 1) * unitsPerTick)
        }
        let unitsPerBeat = ppq * unitsPerTick
        let storedLength = selected.lazy.compactMap { file.tracks[$0].tactusLoopLength }.first
        let length: BeatRational
        if let l = options.length {
            length = l
        } else if let end = rangeEnd {
            length = BeatRational(numerator: end - rangeStart, denominator: unitsPerBeat)!
        } else if let stored = storedLength, options.fromBar == nil {
            length = stored
        } else {
            let bar = bars.firstBarUnits
            let span = max(lastEnd - rangeStart, 1)
            let wholeBars = (span + bar - 1) / bar
            length = BeatRational(numerator: wholeBars * bar, denominator: unitsPerBeat)!
        }

        var notes: [PatternNote] = []
        notes.reserveCapacity(taken.count)
        var beyondLength = 0
        var origins: [(track: Int, tick: Int64)] = []
        for item in taken {
            let n = item.note
            let start = BeatRational(numerator: n.startTick * unitsPerTick - rangeStart, denominator: unitsPerBeat)!
            guard start < length else { beyondLength += 1; continue }
            let ticks = max(n.endTick - n.startTick, 1)
            let duration = BeatRational(numerator: ticks, denominator: ppq)!
            notes.append(PatternNote(start: start, duration: duration, key: n.key, velocity: n.velocity, channel: n.channel))
            origins.append((item.track + 1, n.startTick))
        }
        // Contract §10: control changes (0-119), programs, channel pressure and pitch bend
        // are kept as points (steps), one lane per track.
        var points: [(point: ControllerPoint, track: Int, tick: Int64)] = []
        var pointsBeyondLength = 0
        for t in selected {
            for e in file.tracks[t].channelEvents {
                let channel = e.status & 0x0F + 1
                guard options.channel.map({ Int(channel) == $0 }) ?? true else { continue }
                let units = e.tick * unitsPerTick
                guard units >= rangeStart, rangeEnd.map({ units < $0 }) ?? true else { continue }
                let kind: ControllerKind
                var value = Int16(e.data1)
                switch e.kind {
                case .controlChange where e.data1 < 120:
                    kind = .control(e.data1)
                    value = Int16(e.data2)
                case .programChange: kind = .program
                case .channelPressure: kind = .pressure
                case .pitchBend:
                    kind = .bend
                    value = Int16(Int(e.data1) | Int(e.data2) << 7) - 8192
                default: continue
                }
                let start = BeatRational(numerator: units - rangeStart, denominator: unitsPerBeat)!
                guard start < length else { pointsBeyondLength += 1; continue }
                points.append((ControllerPoint(start: start, kind: kind, value: value, channel: channel), t, e.tick))
            }
        }
        var pattern = Pattern(length: length, notes: notes)
        var keptPoints = 0
        if !points.isEmpty {
            (pattern, origins, keptPoints) = MIDIFileImport.withLanes(notes: notes, origins: origins, points: points, length: length)
        }
        if let problem = pattern.validationError() {
            if problem.line > 0 {
                let o = origins[problem.line - 1]
                throw MIDIImportError("the note at tick \(o.tick) of track \(o.track) cannot be a pattern note: \(problem.reasonText)")
            }
            throw MIDIImportError("the pattern cannot be made: \(problem.reasonText)")
        }

        // What a person is told (M15), and the comments the text carries.
        var report: [String] = []
        var comments: [String] = ["# imported from a Standard MIDI File: format \(file.format), \(ppq) ticks per quarter note, \(file.tracks.count) track\(file.tracks.count == 1 ? "" : "s")"]
        if tempos.isEmpty {
            report.append("tempo: none in the file (120 bpm by the SMF default); the pattern plays at the host's tempo")
        } else {
            let first = tempos[0]
            let more = tempos.count > 1 ? " (then \(tempos.count - 1) tempo change\(tempos.count == 2 ? "" : "s"))" : ""
            report.append("tempo: \(bpmText(first.microsecondsPerQuarter)) bpm\(more); the pattern plays at the host's tempo")
            for t in tempos.prefix(100) { comments.append("# tempo at tick \(t.tick): \(bpmText(t.microsecondsPerQuarter)) bpm") }
            if tempos.count > 100 { comments.append("# ... and \(tempos.count - 100) more tempo changes") }
        }
        for s in signatures.prefix(100) { comments.append("# time signature at tick \(s.tick): \(s.numerator)/\(1 << s.denominatorPower)") }
        if signatures.count > 100 { comments.append("# ... and \(signatures.count - 100) more time signatures") }
        for t in selected.prefix(100) {
            if let name = file.tracks[t].name { comments.append("# track \(t + 1): \(QuotedText.quoted(name, limit: 60))") }
        }
        var leftOut: [String] = []
        var modeMessages = 0
        for t in selected {
            for e in file.tracks[t].channelEvents where e.kind == .controlChange && e.data1 >= 120 && (options.channel.map { Int(e.status & 0x0F) + 1 == $0 } ?? true) {
                modeMessages += 1
            }
        }
        for kind in [MIDIChannelEvent.Kind.polyphonicPressure] {
            var n = 0
            for t in selected {
                for e in file.tracks[t].channelEvents where e.kind == kind && (options.channel.map { Int(e.status & 0x0F) + 1 == $0 } ?? true) { n += 1 }
            }
            if n > 0 { leftOut.append("\(n) \(n == 1 ? kind.singular : kind.plural)") }
        }
        if modeMessages > 0 { leftOut.append("\(modeMessages) channel mode message\(modeMessages == 1 ? "" : "s") (controllers 120-127)") }
        if !leftOut.isEmpty { report.append("left out (a pattern holds notes and controllers 0-119, programs, channel pressure and pitch bend): " + leftOut.joined(separator: ", ")) }
        if keptPoints > 0 {
            report.append("\(keptPoints) controller point\(keptPoints == 1 ? "" : "s") kept (control changes, programs, pressure, pitch bend as steps), one lane per track")
        }
        if points.count > keptPoints { report.append("\(points.count - keptPoints) controller event\(points.count - keptPoints == 1 ? "" : "s") at the same tick as a later one of its controller left out") }
        if pointsBeyondLength > 0 { report.append("\(pointsBeyondLength) controller event\(pointsBeyondLength == 1 ? "" : "s") at or after the loop length left out") }
        if zeroLength > 0 { report.append("\(zeroLength) note\(zeroLength == 1 ? "" : "s") of zero length given one tick") }
        if beyondLength > 0 { report.append("\(beyondLength) note\(beyondLength == 1 ? "" : "s") starting at or after the loop length left out") }
        let unmatched = selected.reduce(0) { $0 + file.tracks[$1].unmatchedNoteOffs }
        if unmatched > 0 { report.append("\(unmatched) note-off\(unmatched == 1 ? "" : "s") with no note to end ignored") }
        if unusableSignatures > 0 { report.append("\(unusableSignatures) time signature\(unusableSignatures == 1 ? "" : "s") with a zero numerator or a denominator above 256 ignored") }

        // The comments go after the header and length lines (after the header in version 3).
        let written = Array(PatternWriter.text(for: pattern).utf8)
        var split = 0
        var lines = 0
        while split < written.count, lines < (pattern.usesControllers ? 1 : 2) {
            if written[split] == 0x0A { lines += 1 }
            split += 1
        }
        var text = String(decoding: written[..<split], as: UTF8.self)
        for c in comments { text += c + "\n" }
        text += String(decoding: written[split...], as: UTF8.self)
        return MIDIImport(pattern: pattern, text: text, report: report)
    }

    /// A version-3 pattern of one lane per track (named `trackN`, each of
    /// the loop's length, on the channel of its first note or point), the
    /// notes and points of each track in its lane; of points of one
    /// controller at one beat the last in the file stays. Returns the
    /// pattern, the notes' origins in its note order, and the points kept.
    static func withLanes(
        notes: [PatternNote], origins: [(track: Int, tick: Int64)], points: [(point: ControllerPoint, track: Int, tick: Int64)],
        length: BeatRational
    ) -> (Pattern, [(track: Int, tick: Int64)], Int) {
        // (Sorted, not hashed: the plugin's Embedded build has no random seed for a Set.)
        var tracks = origins.map { $0.track - 1 } + points.map { $0.track }
        tracks.sort()
        var order: [Int] = []
        for t in tracks where order.last != t { order.append(t) }
        var lanes: [PatternLane] = []
        for t in order {
            let channel = zip(notes, origins).first { $0.1.track - 1 == t }?.0.channel ?? points.first { $0.track == t }!.point.channel
            lanes.append(PatternLane(name: Array("track\(t + 1)".utf8), length: length, channel: channel))
        }
        let laneOf = { (track: Int) in order.firstIndex(of: track)! }
        // Notes lane by lane, in their order within each.
        let sorted = notes.indices.sorted { a, b in
            let la = laneOf(origins[a].track - 1)
            let lb = laneOf(origins[b].track - 1)
            return la != lb ? la < lb : a < b
        }
        var laneNotes: [PatternNote] = []
        var laneOrigins: [(track: Int, tick: Int64)] = []
        for i in sorted {
            var n = notes[i]
            n.lane = laneOf(origins[i].track - 1)
            laneNotes.append(n)
            laneOrigins.append(origins[i])
        }
        // Points lane by lane in file order; a later point of one controller at one beat replaces the earlier.
        var controllers: [ControllerPoint] = []
        for lane in order.indices {
            var list: [ControllerPoint] = []
            for p in points where laneOf(p.track) == lane {
                var point = p.point
                point.lane = lane
                list.append(point)
            }
            let byController = list.indices.sorted { i, j in
                let a = list[i]
                let b = list[j]
                if a.kind.order != b.kind.order { return a.kind.order < b.kind.order }
                if a.channel != b.channel { return a.channel < b.channel }
                if a.start != b.start { return a.start < b.start }
                return i < j
            }
            var replaced = [Bool](repeating: false, count: list.count)
            for n in byController.indices.dropLast() {
                let a = list[byController[n]]
                let b = list[byController[n + 1]]
                if a.kind == b.kind && a.channel == b.channel && a.start == b.start { replaced[byController[n]] = true }
            }
            controllers += list.indices.filter { !replaced[$0] }.map { list[$0] }
        }
        let pattern = Pattern(lanes: lanes, notes: laneNotes, seed: 0, commonCycle: length, controllers: controllers)
        return (pattern, laneOrigins, controllers.count)
    }

    /// `120`, `133.333`: beats per minute from microseconds per quarter note, to a thousandth.
    public static func bpmText(_ microsecondsPerQuarter: Int) -> String {
        guard microsecondsPerQuarter > 0 else { return "infinite" }
        let milli = (60_000_000_000 + Int64(microsecondsPerQuarter) / 2) / Int64(microsecondsPerQuarter)
        var text = "\(milli / 1000)"
        var fraction = milli % 1000
        if fraction != 0 {
            var digits = ""
            var places = 3
            while fraction % 10 == 0 { fraction /= 10; places -= 1 }
            digits = "\(fraction)"
            while digits.utf8.count < places { digits = "0" + digits }
            text += "." + digits
        }
        return text
    }

    static func stableSortedByTick<T>(_ items: [T], tick: (T) -> Int64) -> [T] {
        var indexed = Array(items.enumerated())
        indexed.sort { a, b in
            let ta = tick(a.element)
            let tb = tick(b.element)
            return ta != tb ? ta < tb : a.offset < b.offset
        }
        return indexed.map { $0.element }
    }
}

/// Bar lines from time signatures (docs/midi-files.md, M10), in units of
/// 1/256 tick: 4/4 until the first signature; a signature starts a bar at its tick.
struct BarLines {
    /// (unit where it takes effect, bar length in units), in tick order.
    private var changes: [(at: Int64, barUnits: Int64)]

    init(signatures: [MIDITimeSignature], ticksPerQuarter: Int64) {
        let unitsPerQuarter = ticksPerQuarter * MIDIFileImport.unitsPerTick
        changes = [(0, 4 * unitsPerQuarter)]
        firstBarUnits = 4 * unitsPerQuarter
        for (i, s) in signatures.enumerated() {
            let units = Int64(s.numerator) * 4 * unitsPerQuarter >> Int64(s.denominatorPower)
            let at = min(s.tick, MIDIFileImport.maximumTick) * MIDIFileImport.unitsPerTick
            if i == 0 { firstBarUnits = units }
            if changes[changes.count - 1].at == at { changes[changes.count - 1].barUnits = units } else { changes.append((at, units)) }
        }
    }

    /// The bar length of the first time signature (4/4 when there is none).
    private(set) var firstBarUnits: Int64

    /// Where bar `bar` (from 1) starts. O(bar + changes).
    func start(ofBar bar: Int) -> Int64 {
        var start: Int64 = 0
        var length = changes[0].barUnits
        var next = 1
        var current = 1
        while current < bar {
            var end = start + length
            if next < changes.count, changes[next].at < end { end = changes[next].at }
            start = end
            current += 1
            while next < changes.count, changes[next].at <= start {
                length = changes[next].barUnits
                next += 1
            }
        }
        return start
    }
}
