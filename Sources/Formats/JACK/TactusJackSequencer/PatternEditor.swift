import FileIO
import Glibc
import TactusEngine
import TactusModel
import TactusOffline
import TactusCommandLine

/// The pattern being edited at `tactus jack`'s prompt, and the commands that
/// edit it. Runs on the prompt's thread (not realtime: it allocates); every
/// edit is checked by the pattern parser's rules, so an error reads as it
/// does everywhere else and the pattern is left as it was.
///
/// The pattern is held as the X11 editor holds it, an `EditorDocument`: an
/// edit changes only the statements it touches, and the text keeps the
/// author's comments, blank lines and spacing (`text`, what `save` writes
/// and the journal records). Each command costs O(n) in the pattern's notes
/// plus O(text length).
///
/// A version-3 text of several patterns (or with a switch, triggers or a
/// song: `arrangement`) is played whole and kept as it was read: the prompt
/// switches its patterns (`play NAME`, `song`), and its edit commands refuse
/// rather than write back one pattern and lose the rest.
public struct PatternEditor {
    /// The pattern text and its edits (pattern 1 of an `arrangement`).
    public private(set) var document: EditorDocument
    /// The lane `add` and `length` act on (version 2; pattern format "Version 2").
    public private(set) var currentLane = 0
    /// A text only version 3 can say (timing contract §9), as read; nil for one pattern.
    public private(set) var arrangement: Arrangement?
    private var arrangementText: [UInt8] = []

    public init(document: EditorDocument) { self.document = document }

    /// Reads a pattern text: one pattern to edit, or a version-3 text of
    /// several patterns to play. Throws the parser's error.
    public init(parsing text: [UInt8]) throws(PatternError) {
        if let (arrangement, first) = try PatternEditor.severalPatterns(text) {
            document = first
            self.arrangement = arrangement
            arrangementText = text
        } else {
            document = try EditorDocument(parsing: text)
        }
    }

    /// A text that needs version 3, with an editor document of its first
    /// pattern (what `show` and the lane names read); nil for one pattern.
    private static func severalPatterns(_ text: [UInt8]) throws(PatternError) -> (Arrangement, EditorDocument)? {
        guard PatternParser.declaresVersion3(text) else { return nil }
        let arrangement = try PatternParser.arrangement(bytes: text)
        guard arrangement.hasSeveralPatterns else { return nil }
        let first = try EditorDocument(parsing: Array(PatternWriter.text(for: arrangement.patterns[0].pattern).utf8))
        return (arrangement, first)
    }

    /// The pattern the text spells (the first of an arrangement). O(n).
    public var pattern: Pattern { document.pattern() }

    /// The pattern text with the edits made (comments and layout kept); an
    /// arrangement's text as read. O(text length).
    public var text: [UInt8] { arrangement == nil ? document.text() : arrangementText }

    /// The snapshot the engine plays for `text` (every pattern of an arrangement). Off the audio thread.
    public func snapshot(tag: UInt64) -> PatternSnapshot {
        if let arrangement { return PatternSnapshot.make(arrangement: arrangement, text: arrangementText, tag: tag) }
        return PatternSnapshot.make(pattern, text: text, tag: tag)
    }

    /// The patterns' names, in text order (`main` for one pattern).
    public var patternNames: [String] {
        arrangement?.patterns.map { String(decoding: $0.name, as: UTF8.self) } ?? ["main"]
    }

    public enum Outcome: Equatable {
        /// The pattern changed; the message says how.
        case changed(String)
        /// Nothing changed; the message is the answer (show, save, help).
        case answer(String)
        case error(String)
        case transport(TransportRequest)
        case quit
    }

    public enum TransportRequest: Equatable {
        case play, stop
        case locate(Double)
    }

    public static let help = """
        show                          the pattern, notes numbered
        add START DUR KEY VEL [CH]    add a note (beats as 1, 3.5 or 1/3; KEY as 60 or C4, F#2, Bb3)
        remove N                      remove note N (as numbered by show)
        remove START KEY [CH]         remove the notes at START on KEY (channel 1 by default)
        length L                      the loop length (version 2: the current lane's), in beats
        lane NAME length L [OPTIONS]  add a lane (version 2), or redefine lane NAME; OPTIONS as in
                                      pattern files: channel C, swing R G, follow ROOT [in C]
        lane NAME                     make lane NAME the current one: add puts its notes there
        lanes                         the lanes, with their note counts
        seed S                        the seed of the prob= notes (version 2)
        add ... prob=P                (version 2) a note that plays in a share P of its lane's passes
        cc N AT VALUE [CH] [ramp]     (version 3) a controller point in the current lane; likewise
        bend AT VALUE [CH] [ramp]     bend (-8192 to 8191), pressure AT VALUE [CH] [ramp] and
        program AT VALUE [CH]         program: the statements of pattern files (timing contract §10)
        clear                         remove every note
        load FILE                     replace the pattern with a pattern file
        save FILE                     write the pattern to a file (FILE.mid: a Standard MIDI File,
                                      as tactus export writes it: a text's song once through)
        save FILE.mid PATTERN         write that pattern of several as a Standard MIDI File
        play | stop | locate BEAT     JACK transport
        quit
        Several commands on a line are separated by ';'. Middle C (60) is C4.
        """

    /// The commands of a prompt line: the comment cut off (a `#` right after a
    /// note letter is a sharp, as in pattern files), then split at `;`.
    public static func commands(in line: String) -> [String] {
        let bytes = Array(line.utf8)
        let content = bytes[..<PatternParser.commentStart(in: bytes)]
        return content.split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The words of one command, its comment cut off.
    public static func words(of command: String) -> [String] {
        let bytes = Array(command.utf8)
        let content = String(decoding: bytes[..<PatternParser.commentStart(in: bytes)], as: UTF8.self)
        return content.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).map(String.init)
    }

    /// This help with `more` (lines in its layout) before the transport's line.
    public static func help(adding more: String) -> String {
        var lines = help.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let at = lines.firstIndex { $0.hasPrefix("play | stop") } ?? lines.count
        lines.insert(contentsOf: more.split(separator: "\n").map(String.init), at: at)
        return lines.joined(separator: "\n")
    }

    /// Runs one command (`commands(in:)` splits a line into them; a comment
    /// here is cut off too).
    public mutating func run(_ line: String) -> Outcome {
        let words = PatternEditor.words(of: line)
        guard let command = words.first else { return .answer("") }
        let args = Array(words.dropFirst())
        if let arrangement, PatternEditor.editCommands.contains(command) {
            return .error("\(command): " + PatternError(line: 1, reason: .editingNeedsOnePattern(patterns: arrangement.patterns.count)).reasonText)
        }
        switch command {
        case "show": return .answer(show())
        case "help", "?": return .answer(PatternEditor.help)
        case "quit", "exit": return .quit
        case "add": return add(args)
        case "cc", "bend", "pressure", "program": return addController(command, statement: PatternEditor.statement(line))
        case "remove", "rm": return remove(args)
        case "length": return length(args)
        case "lane": return lane(args)
        case "lanes": return .answer(lanesText())
        case "seed": return seed(args)
        case "clear":
            let n = document.removeNotes(document.notes.map(\.id))
            return .changed("cleared \(PatternEditor.counted(n, "note"))")
        case "load": return load(args)
        case "save": return save(args)
        case "play": return args.isEmpty ? .transport(.play) : .error("play: takes nothing")
        case "stop": return args.isEmpty ? .transport(.stop) : .error("stop: takes nothing")
        case "locate":
            guard args.count == 1, let beat = PatternEditor.beats(args[0]) else {
                return .error("locate: takes one beat position from 0 to 1000000, like 4 or 17/3")
            }
            return .transport(.locate(beat.approximateValue))
        default:
            return .error("unknown command '\(command)' (try help)")
        }
    }

    /// The commands that change a pattern's notes or lanes (refused for an arrangement).
    static let editCommands: Set<String> = ["add", "remove", "rm", "length", "lane", "seed", "clear", "cc", "bend", "pressure", "program"]

    public func show() -> String {
        if arrangement != nil { return String(decoding: arrangementText, as: UTF8.self).trimmingSuffixNewlines }
        let pattern = self.pattern
        if pattern.version == 2 { return PatternEditor.showLanes(pattern, textVersion: document.textVersion) }
        var out = "length \(PatternWriter.beatText(pattern.length))  (\(PatternEditor.counted(pattern.notes.count, "note")))"
        for (i, n) in pattern.notes.enumerated() {
            var line = "\(i + 1): " + PatternWriter.noteStatement(n, defaultChannel: 1)
            // The key's name beside its number, as a comment: the line stays pattern text.
            line += String(repeating: " ", count: max(2, 28 - line.count)) + "# " + NoteName.name(n.key)
            out += "\n" + line
        }
        return out
    }

    private mutating func add(_ args: [String]) -> Outcome {
        if document.version == 2 { return addVersion2(args) }
        guard args.count == 4 || args.count == 5 else { return .error("add: takes START DURATION KEY VELOCITY [CHANNEL]") }
        guard document.notes.count < Pattern.maximumNoteCount else { return .error("add: the pattern already has 65536 notes") }
        // The parser checks the note, with the pattern's own length.
        let text = "tactus-pattern 1\nlength \(PatternWriter.beatText(document.lanes[0].length))\nnote \(args.joined(separator: " "))\n"
        do {
            let note = try PatternParser.parse(text).notes[0]
            if case .failure(let rejection) = add(note, lane: 0) { return .error("add: \(rejection.message)") }
            return .changed("added note \(document.notes.count)")
        } catch {
            return .error("add: \(error.reasonText)")
        }
    }

    /// One command as typed, its comment cut off and its outer blanks trimmed:
    /// a statement of a pattern file, whose columns are the ones the person typed.
    static func statement(_ command: String) -> String {
        let bytes = Array(command.utf8)
        let content = bytes[..<PatternParser.commentStart(in: bytes)].map { $0 == UInt8(ascii: "\r") ? UInt8(ascii: " ") : $0 }
        let blank: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        guard let first = content.firstIndex(where: { !blank($0) }), let last = content.lastIndex(where: { !blank($0) }) else { return "" }
        return String(decoding: content[first...last], as: UTF8.self)
    }

    /// `cc`, `bend`, `pressure`, `program`: a controller point in the current
    /// lane, read by the pattern parser with the lane's length and channel, as
    /// a line of a file: a bad one is refused with the column (in the statement
    /// as typed) and the reason `tactus check` gives for that line in a file.
    private mutating func addController(_ command: String, statement: String) -> Outcome {
        let lane = document.lanes[currentLane]
        let laneLine = PatternWriter.laneStatement(PatternLane(name: lane.name, length: lane.length, channel: lane.channel))
        let text = "tactus-pattern 3\n\(laneLine)\n\(statement)\n"
        do {
            var point = try PatternParser.parse(text).controllers[0]
            point.lane = currentLane
            if case .failure(let error) = document.addController(point) { return .error("\(command): \(error.reasonText)") }
            return .changed("added \(PatternWriter.controllerStatement(point, defaultChannel: lane.channel)) to lane \(String(decoding: lane.name, as: UTF8.self))")
        } catch {
            // Line 3 is the statement; a column there points into what was typed.
            let column = error.line == 3 && error.column > 0 ? "column \(error.column): " : ""
            return .error("\(command): \(column)\(error.reasonText)")
        }
    }

    /// Adds a parsed note to `lane`, after the lane's last note.
    private mutating func add(_ note: PatternNote, lane: Int) -> Result<UInt32, EditRejection> {
        document.addNote(
            lane: lane, start: note.start, duration: note.duration, key: note.key, velocity: note.velocity, channel: note.channel,
            probability: note.probability)
    }

    private mutating func remove(_ args: [String]) -> Outcome {
        if args.count == 1, let index = Int(args[0]) {
            guard index >= 1, index <= document.notes.count else {
                return .error("remove: there is no note \(index) (the pattern has \(document.notes.count); see show)")
            }
            document.removeNote(document.notes[index - 1].id)
            return .changed("removed note \(index)")
        }
        guard args.count == 2 || args.count == 3, let start = PatternEditor.beats(args[0]), let key = PatternEditor.key(args[1]) else {
            return .error("remove: takes N, or START KEY [CHANNEL]")
        }
        let channel = args.count == 3 ? UInt8(args[2]) : 1
        guard let channel, (1...16).contains(channel) else { return .error("remove: channel must be 1-16") }
        let matching = document.notes.filter { $0.start == start && $0.key == key && $0.channel == channel }.map(\.id)
        guard !matching.isEmpty else { return .error("remove: no note starts at \(args[0]) on key \(key) (\(NoteName.name(key))), channel \(channel)") }
        let removed = document.removeNotes(matching)
        return .changed("removed \(PatternEditor.counted(removed, "note"))")
    }

    private mutating func length(_ args: [String]) -> Outcome {
        guard args.count == 1 else { return .error("length: takes one beat value") }
        if document.version == 2 {
            // The current lane's length, checked by the parser with the lane's notes.
            let lane = document.lanes[currentLane]
            guard let value = PatternEditor.beats(args[0]) ?? (args[0] == "1000000" ? BeatRational(1_000_000) : nil), value > .zero else {
                return .error("length: takes one beat value greater than 0")
            }
            switch document.setLength(ofLane: currentLane, to: value) {
            case .success:
                return .changed("lane \(String(decoding: lane.name, as: UTF8.self)): length \(PatternWriter.beatText(value))")
            case .failure(.notesAtOrAfterLength):
                // As the parser says it of a lane line followed by such a note.
                return .error("length: \(PatternError(line: 0, reason: .startNotBeforeLaneLength).reasonText)")
            case .failure(let rejection):
                return .error("length: \(rejection.message)")
            }
        }
        let text = "tactus-pattern 1\nlength \(args[0])\n"
        let newLength: BeatRational
        do { newLength = try PatternParser.parse(text).length } catch { return .error("length: \(error.reasonText)") }
        let outside = document.notes.indices.filter { document.notes[$0].start >= newLength }.map { String($0 + 1) }
        guard outside.isEmpty else {
            // A few note numbers and a count: 65,536 of them would be one line of 400 KB.
            let which = outside.count == 1 ? "note \(outside[0]) starts" : "\(outside.count) notes start (\(CappedList.inline(outside)))"
            return .error("length: \(which) at or after \(args[0]); remove \(outside.count == 1 ? "it" : "them") first")
        }
        if case .failure(let rejection) = document.setLength(ofLane: 0, to: newLength) { return .error("length: \(rejection.message)") }
        return .changed("length \(PatternWriter.beatText(newLength))")
    }

    private mutating func load(_ args: [String]) -> Outcome {
        guard args.count == 1 else { return .error("load: takes one file") }
        let path = PatternEditor.displayPath(args[0])
        let bytes: [UInt8]
        switch FileInput.read(args[0]) {
        case .success(let b): bytes = b
        case .failure(let reason): return .error("load: cannot read '\(path)': \(reason)")
        }
        if MIDIFileReader.looksLikeMIDIFile(bytes) {
            // A Standard MIDI File, imported with the defaults (docs/midi-files.md M10-M15).
            do {
                let file = try MIDIFileReader().read(bytes)
                let imported = try MIDIFileImport.importPattern(file, options: MIDIImportOptions(track: file.format == 2 ? 1 : nil)).pattern
                self = PatternEditor(document: try EditorDocument(parsing: Array(PatternWriter.text(for: imported).utf8)))
                return .changed("loaded \(path): \(PatternEditor.counted(document.notes.count, "note"))")
            } catch let error as MIDIFileError {
                return .error("load: \(path): \(error.message); the pattern is unchanged")
            } catch {
                return .error("load: \(path): \((error as? MIDIImportError)?.message ?? "\(error)"); the pattern is unchanged")
            }
        }
        do {
            self = try PatternEditor(parsing: bytes)
            if let arrangement {
                return .changed("loaded \(path): \(PatternEditor.counted(arrangement.patterns.count, "pattern")), \(PatternEditor.counted(arrangement.noteCount, "note"))")
            }
            return .changed("loaded \(path): \(PatternEditor.counted(document.notes.count, "note"))")
        } catch {
            return .error("load: \(path):\(error.location): \(error.reasonText); the pattern is unchanged")
        }
    }

    private func save(_ args: [String]) -> Outcome {
        guard let path = args.first else { return .error("save: takes FILE, or FILE.mid [PATTERN]") }
        let isMIDIFile = path.lowercased().hasSuffix(".mid") || path.lowercased().hasSuffix(".midi")
        guard args.count == 1 || (isMIDIFile && args.count == 2) else {
            return .error(isMIDIFile ? "save: takes FILE.mid [PATTERN]" : "save: takes one file (FILE.mid PATTERN writes one pattern of several)")
        }
        do {
            if isMIDIFile {
                // As tactus export writes it (docs/midi-files.md M16-M20): at 120 bpm, a text
                // with a song as its song once through, the pattern named, or the first pattern.
                let name = Path.deletingExtension(Path.lastComponent(path))
                let export: TextExport
                do throws(TextExport.Failure) {
                    export = try TextExport.make(
                        text: text, pattern: pattern, patternName: args.count == 2 ? args[1] : nil, loops: 1, bpm: 120,
                        name: name, label: "the text", otherPattern: "save FILE.mid NAME")
                } catch {
                    return .error("save: \(error.description); nothing was written")
                }
                try AtomicFile.write(export.bytes, to: path)
                return .answer("saved \(PatternEditor.displayPath(path)): \(export.summary)")
            }
            try AtomicFile.write(text, to: path)
            return .answer("saved \(PatternEditor.displayPath(path))")
        } catch {
            return .error("save: \(error.description); nothing was written")
        }
    }

    // MARK: - Version 2: lanes

    private mutating func lane(_ args: [String]) -> Outcome {
        guard let name = args.first else { return .error("lane: takes NAME [length L [channel C] [swing R G] [follow ROOT [in C]]]") }
        let existing = document.lanes.firstIndex { $0.name == Array(name.utf8) }
        if args.count == 1 {
            guard let existing, document.version == 2 else { return .error("lane: there is no lane '\(name)' (see lanes); to add one: lane \(name) length L") }
            currentLane = existing
            return .answer("lane \(name): \(PatternEditor.counted(document.notes(inLane: existing).count, "note"))")
        }
        // The lane line is read by the parser, with its own messages.
        let lane: PatternLane
        do {
            lane = try PatternParser.parse("tactus-pattern 2\nlane \(args.joined(separator: " "))\n").laneList[0]
        } catch {
            return .error("lane: \(error.reasonText)")
        }
        // A version-1 pattern becomes lane `main` (the document checks the whole text).
        switch document.setLane(lane) {
        case .success(let index):
            currentLane = index
            return .changed(existing == nil ? "added lane \(name)" : "lane \(name) redefined")
        case .failure(let error):
            return .error("lane: \(error.reasonText)")
        }
    }

    private mutating func seed(_ args: [String]) -> Outcome {
        guard args.count == 1 else { return .error("seed: takes one integer 0-4294967295") }
        do {
            let seed = try PatternParser.parse("tactus-pattern 2\nseed \(args[0])\nlane a length 1\n").seed
            if case .failure(let error) = document.setSeed(seed) { return .error("seed: \(error.reasonText)") }
            return .changed("seed \(seed)")
        } catch {
            return .error("seed: \(error.reasonText)")
        }
    }

    private mutating func addVersion2(_ args: [String]) -> Outcome {
        guard (4...6).contains(args.count) else { return .error("add: takes START DURATION KEY VELOCITY [CHANNEL] [prob=P]") }
        guard document.notes.count < Pattern.maximumNoteCount else { return .error("add: the pattern already has 65536 notes") }
        let lane = document.lanes[currentLane]
        // The parser checks the note against the current lane's length and channel.
        let text = "tactus-pattern 2\nlane x length \(PatternWriter.beatText(lane.length)) channel \(lane.channel)\nnote \(args.joined(separator: " "))\n"
        do {
            let note = try PatternParser.parse(text).notes[0]
            if case .failure(let rejection) = add(note, lane: currentLane) { return .error("add: \(rejection.message)") }
            return .changed("added a note to lane \(String(decoding: lane.name, as: UTF8.self))")
        } catch {
            return .error("add: \(error.reasonText)")
        }
    }

    private func lanesText() -> String {
        // A version-1 pattern reads as one lane `main` of its length.
        let p = pattern
        var lines: [String] = []
        for (i, lane) in p.lanes.enumerated() {
            let mark = i == currentLane ? "* " : "  "
            lines.append("\(mark)\(String(decoding: lane.name, as: UTF8.self)): length \(PatternWriter.beatText(lane.length)), \(PatternEditor.counted(document.notes(inLane: i).count, "note"))")
        }
        lines.append("common cycle \(PatternWriter.beatText(p.length)) beats")
        return lines.joined(separator: "\n")
    }

    /// A pattern of lanes (version 2, or one pattern of version 3, whose
    /// controller points follow each lane's notes).
    private static func showLanes(_ pattern: Pattern, textVersion: Int) -> String {
        let points = pattern.controllers.isEmpty ? "" : ", \(PatternEditor.counted(pattern.controllers.count, "controller point"))"
        var out = "tactus-pattern \(max(2, textVersion))  (\(PatternEditor.counted(pattern.notes.count, "note"))\(points) in \(PatternEditor.counted(pattern.laneList.count, "lane")), common cycle \(PatternWriter.beatText(pattern.length)))"
        if pattern.seed != 0 { out += "\nseed \(pattern.seed)" }
        // Each lane line, then its notes, as the writer spells them (the lines
        // stay pattern text), numbered in text order as `remove N` counts them;
        // then its controller points (timing contract §10).
        for (index, lane) in pattern.laneList.enumerated() {
            out += "\n" + PatternWriter.laneStatement(lane)
            for (i, note) in pattern.notes.enumerated() where note.lane == index {
                let body = "\(i + 1): " + PatternWriter.noteStatement(note, defaultChannel: lane.channel)
                out += "\n" + body + String(repeating: " ", count: max(2, 28 - body.count)) + "# " + NoteName.name(note.key)
            }
            for point in pattern.controllers where point.lane == index {
                out += "\n" + PatternWriter.controllerStatement(point, defaultChannel: lane.channel)
            }
        }
        return out
    }

    /// A beat value as the pattern format writes it (`3`, `3.5`, `7/3`).
    static func beats(_ text: String) -> BeatRational? {
        try? PatternParser.parse("tactus-pattern 1\nlength 1000000\nnote \(text) 1 60 100\n").notes.first?.start
    }

    /// A key as the pattern format writes it: `60`, `C4`, `F#2`, `Bb3`.
    static func key(_ text: String) -> UInt8? {
        try? PatternParser.parse("tactus-pattern 1\nlength 1\nnote 0 1 \(text) 100\n").notes.first?.key
    }

    /// `1 note`, `2 notes`.
    static func counted(_ n: Int, _ singular: String) -> String { "\(n) \(singular)\(n == 1 ? "" : "s")" }

    /// A path as messages quote it (control characters as `\xNN`).
    static func displayPath(_ path: String) -> String { QuotedText.quotedTail(Array(path.utf8), limit: 400) }

    /// A number as a person writes it: `120`, `133.7`.
    static func numberText(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}

extension String {
    /// The text without its final line ends.
    fileprivate var trimmingSuffixNewlines: String {
        var s = Substring(self)
        while s.hasSuffix("\n") { s = s.dropLast() }
        return String(s)
    }
}
