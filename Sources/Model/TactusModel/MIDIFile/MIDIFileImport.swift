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
        let pattern = Pattern(length: length, notes: notes)
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
        for kind in MIDIChannelEvent.Kind.allCases {
            var n = 0
            for t in selected {
                for e in file.tracks[t].channelEvents where e.kind == kind && (options.channel.map { Int(e.status & 0x0F) + 1 == $0 } ?? true) { n += 1 }
            }
            if n > 0 { leftOut.append("\(n) \(n == 1 ? kind.singular : kind.plural)") }
        }
        if !leftOut.isEmpty { report.append("left out (a pattern holds notes only): " + leftOut.joined(separator: ", ")) }
        if zeroLength > 0 { report.append("\(zeroLength) note\(zeroLength == 1 ? "" : "s") of zero length given one tick") }
        if beyondLength > 0 { report.append("\(beyondLength) note\(beyondLength == 1 ? "" : "s") starting at or after the loop length left out") }
        let unmatched = selected.reduce(0) { $0 + file.tracks[$1].unmatchedNoteOffs }
        if unmatched > 0 { report.append("\(unmatched) note-off\(unmatched == 1 ? "" : "s") with no note to end ignored") }
        if unusableSignatures > 0 { report.append("\(unusableSignatures) time signature\(unusableSignatures == 1 ? "" : "s") with a zero numerator or a denominator above 256 ignored") }

        // The comments go after the header and length lines.
        let written = Array(PatternWriter.text(for: pattern).utf8)
        var split = 0
        var lines = 0
        while split < written.count, lines < 2 {
            if written[split] == 0x0A { lines += 1 }
            split += 1
        }
        var text = String(decoding: written[..<split], as: UTF8.self)
        for c in comments { text += c + "\n" }
        text += String(decoding: written[split...], as: UTF8.self)
        return MIDIImport(pattern: pattern, text: text, report: report)
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
