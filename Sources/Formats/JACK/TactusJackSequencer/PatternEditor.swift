import FileIO
import Glibc
import TactusEngine
import TactusModel

/// The pattern being edited at `tactus jack`'s prompt, and the commands that
/// edit it. Runs on the prompt's thread (not realtime: it allocates); every
/// edit is checked by the pattern parser itself, so an error reads as it does
/// everywhere else and the pattern is left as it was. Each command costs
/// O(n) in the pattern's notes.
public struct PatternEditor {
    public private(set) var pattern: Pattern
    /// The lane `add` and `length` act on (version 2; pattern format "Version 2").
    public private(set) var currentLane = 0

    public init(pattern: Pattern) { self.pattern = pattern }

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
        clear                         remove every note
        load FILE                     replace the pattern with a pattern file
        save FILE                     write the pattern to a file (FILE.mid: a Standard MIDI File)
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

    /// Runs one command (`commands(in:)` splits a line into them; a comment
    /// here is cut off too).
    public mutating func run(_ line: String) -> Outcome {
        let bytes = Array(line.utf8)
        let content = String(decoding: bytes[..<PatternParser.commentStart(in: bytes)], as: UTF8.self)
        let words = content.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).map(String.init)
        guard let command = words.first else { return .answer("") }
        let args = Array(words.dropFirst())
        switch command {
        case "show": return .answer(show())
        case "help", "?": return .answer(PatternEditor.help)
        case "quit", "exit": return .quit
        case "add": return add(args)
        case "remove", "rm": return remove(args)
        case "length": return length(args)
        case "lane": return lane(args)
        case "lanes": return .answer(lanesText())
        case "seed": return seed(args)
        case "clear":
            let n = pattern.notes.count
            pattern.notes.removeAll()
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

    public func show() -> String {
        if pattern.version == 2 { return showVersion2() }
        var out = "length \(PatternWriter.beatText(pattern.length))  (\(PatternEditor.counted(pattern.notes.count, "note")))"
        for (i, n) in pattern.notes.enumerated() {
            var line = "\(i + 1): note \(PatternWriter.beatText(n.start)) \(PatternWriter.beatText(n.duration)) \(n.key) \(n.velocity)"
            if n.channel != 1 { line += " \(n.channel)" }
            // The key's name beside its number, as a comment: the line stays pattern text.
            line += String(repeating: " ", count: max(2, 28 - line.count)) + "# " + NoteName.name(n.key)
            out += "\n" + line
        }
        return out
    }

    private mutating func add(_ args: [String]) -> Outcome {
        if pattern.version == 2 { return addVersion2(args) }
        guard args.count == 4 || args.count == 5 else { return .error("add: takes START DURATION KEY VELOCITY [CHANNEL]") }
        guard pattern.notes.count < Pattern.maximumNoteCount else { return .error("add: the pattern already has 65536 notes") }
        // The parser checks the note, with the pattern's own length.
        let text = "tactus-pattern 1\nlength \(PatternWriter.beatText(pattern.length))\nnote \(args.joined(separator: " "))\n"
        do {
            let parsed = try PatternParser.parse(text)
            let note = parsed.notes[0]
            pattern.notes.append(note)
            return .changed("added note \(pattern.notes.count)")
        } catch {
            return .error("add: \(error.reasonText)")
        }
    }

    private mutating func remove(_ args: [String]) -> Outcome {
        if args.count == 1, let index = Int(args[0]) {
            guard index >= 1, index <= pattern.notes.count else {
                return .error("remove: there is no note \(index) (the pattern has \(pattern.notes.count); see show)")
            }
            pattern.notes.remove(at: index - 1)
            return .changed("removed note \(index)")
        }
        guard args.count == 2 || args.count == 3, let start = PatternEditor.beats(args[0]), let key = PatternEditor.key(args[1]) else {
            return .error("remove: takes N, or START KEY [CHANNEL]")
        }
        let channel = args.count == 3 ? UInt8(args[2]) : 1
        guard let channel, (1...16).contains(channel) else { return .error("remove: channel must be 1-16") }
        let before = pattern.notes.count
        pattern.notes.removeAll { $0.start == start && $0.key == key && $0.channel == channel }
        let removed = before - pattern.notes.count
        guard removed > 0 else { return .error("remove: no note starts at \(args[0]) on key \(key) (\(NoteName.name(key))), channel \(channel)") }
        return .changed("removed \(PatternEditor.counted(removed, "note"))")
    }

    private mutating func length(_ args: [String]) -> Outcome {
        guard args.count == 1 else { return .error("length: takes one beat value") }
        if pattern.version == 2 {
            // The current lane's length, checked by the parser with the lane's notes.
            let lane = pattern.laneList[currentLane]
            guard let value = PatternEditor.beats(args[0]) ?? (args[0] == "1000000" ? BeatRational(1_000_000) : nil), value > .zero else {
                return .error("length: takes one beat value greater than 0")
            }
            var candidate = pattern
            candidate.laneList[currentLane].length = value
            return adopt(candidate, command: "length", message: "lane \(String(decoding: lane.name, as: UTF8.self)): length \(PatternWriter.beatText(value))")
        }
        let text = "tactus-pattern 1\nlength \(args[0])\n"
        let newLength: BeatRational
        do { newLength = try PatternParser.parse(text).length } catch { return .error("length: \(error.reasonText)") }
        let outside = pattern.notes.indices.filter { pattern.notes[$0].start >= newLength }.map { String($0 + 1) }
        guard outside.isEmpty else {
            // A few note numbers and a count: 65,536 of them would be one line of 400 KB.
            let which = outside.count == 1 ? "note \(outside[0]) starts" : "\(outside.count) notes start (\(CappedList.inline(outside)))"
            return .error("length: \(which) at or after \(args[0]); remove \(outside.count == 1 ? "it" : "them") first")
        }
        pattern.length = newLength
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
                pattern = try MIDIFileImport.importPattern(file, options: MIDIImportOptions(track: file.format == 2 ? 1 : nil)).pattern
                return .changed("loaded \(path): \(PatternEditor.counted(pattern.notes.count, "note"))")
            } catch let error as MIDIFileError {
                return .error("load: \(path): \(error.message); the pattern is unchanged")
            } catch {
                return .error("load: \(path): \((error as? MIDIImportError)?.message ?? "\(error)"); the pattern is unchanged")
            }
        }
        do {
            pattern = try PatternParser.parse(bytes: bytes)
            currentLane = 0
            return .changed("loaded \(path): \(PatternEditor.counted(pattern.notes.count, "note"))")
        } catch {
            return .error("load: \(path):\(error.location): \(error.reasonText); the pattern is unchanged")
        }
    }

    private func save(_ args: [String]) -> Outcome {
        guard args.count == 1 else { return .error("save: takes one file") }
        do {
            if args[0].lowercased().hasSuffix(".mid") || args[0].lowercased().hasSuffix(".midi") {
                // A Standard MIDI File at 120 bpm with the exact loop length (docs/midi-files.md M16-M19).
                try AtomicFile.write(PatternExport.export(pattern).bytes, to: args[0])
                return .answer("saved \(PatternEditor.displayPath(args[0]))")
            }
            try AtomicFile.write(PatternWriter.text(for: pattern), to: args[0])
            return .answer("saved \(PatternEditor.displayPath(args[0]))")
        } catch {
            return .error("save: \(error.description); nothing was written")
        }
    }

    // MARK: - Version 2: lanes

    /// Makes `candidate` the pattern if its text parses (so every rule and
    /// limit of the format is checked the one way); else says why.
    private mutating func adopt(_ candidate: Pattern, command: String, message: String) -> Outcome {
        do {
            pattern = try PatternParser.parse(PatternWriter.text(for: candidate))
            return .changed(message)
        } catch {
            return .error("\(command): \(error.reasonText)")
        }
    }

    /// A version-1 pattern as version 2: one lane `main` of its length.
    private var asVersion2: Pattern {
        if pattern.version == 2 { return pattern }
        var notes = pattern.notes
        for i in notes.indices { notes[i].lane = 0 }
        return Pattern(lanes: [PatternLane(name: PatternLane.mainName, length: pattern.length)], notes: notes, seed: 0, commonCycle: pattern.length)
    }

    private mutating func lane(_ args: [String]) -> Outcome {
        guard let name = args.first else { return .error("lane: takes NAME [length L [channel C] [swing R G] [follow ROOT [in C]]]") }
        let base = asVersion2
        let existing = base.laneList.firstIndex { $0.name == Array(name.utf8) }
        if args.count == 1 {
            guard let existing, pattern.version == 2 else { return .error("lane: there is no lane '\(name)' (see lanes); to add one: lane \(name) length L") }
            currentLane = existing
            return .answer("lane \(name): \(PatternEditor.counted(pattern.notes.filter { $0.lane == existing }.count, "note"))")
        }
        // The lane line is read by the parser, with its own messages.
        let lane: PatternLane
        do {
            lane = try PatternParser.parse("tactus-pattern 2\nlane \(args.joined(separator: " "))\n").laneList[0]
        } catch {
            return .error("lane: \(error.reasonText)")
        }
        var candidate = base
        let index: Int
        if let existing {
            candidate.laneList[existing] = lane
            index = existing
        } else {
            candidate.laneList.append(lane)
            index = candidate.laneList.count - 1
        }
        let outcome = adopt(candidate, command: "lane", message: existing == nil ? "added lane \(name)" : "lane \(name) redefined")
        if case .changed = outcome { currentLane = index }
        return outcome
    }

    private mutating func seed(_ args: [String]) -> Outcome {
        guard args.count == 1 else { return .error("seed: takes one integer 0-4294967295") }
        do {
            var candidate = asVersion2
            candidate.seed = try PatternParser.parse("tactus-pattern 2\nseed \(args[0])\nlane a length 1\n").seed
            return adopt(candidate, command: "seed", message: "seed \(candidate.seed)")
        } catch {
            return .error("seed: \(error.reasonText)")
        }
    }

    private mutating func addVersion2(_ args: [String]) -> Outcome {
        guard (4...6).contains(args.count) else { return .error("add: takes START DURATION KEY VELOCITY [CHANNEL] [prob=P]") }
        guard pattern.notes.count < Pattern.maximumNoteCount else { return .error("add: the pattern already has 65536 notes") }
        let lane = pattern.laneList[currentLane]
        // The parser checks the note against the current lane's length and channel.
        let text = "tactus-pattern 2\nlane x length \(PatternWriter.beatText(lane.length)) channel \(lane.channel)\nnote \(args.joined(separator: " "))\n"
        do {
            var note = try PatternParser.parse(text).notes[0]
            note.lane = currentLane
            var candidate = pattern
            candidate.notes.append(note)
            let name = String(decoding: lane.name, as: UTF8.self)
            return adopt(candidate, command: "add", message: "added a note to lane \(name)")
        } catch {
            return .error("add: \(error.reasonText)")
        }
    }

    private func lanesText() -> String {
        let p = asVersion2
        var lines: [String] = []
        for (i, lane) in p.laneList.enumerated() {
            let mark = i == currentLane ? "* " : "  "
            lines.append("\(mark)\(String(decoding: lane.name, as: UTF8.self)): length \(PatternWriter.beatText(lane.length)), \(PatternEditor.counted(p.notes.filter { $0.lane == i }.count, "note"))")
        }
        lines.append("common cycle \(PatternWriter.beatText(p.length)) beats")
        return lines.joined(separator: "\n")
    }

    private func showVersion2() -> String {
        var out = "tactus-pattern 2  (\(PatternEditor.counted(pattern.notes.count, "note")) in \(PatternEditor.counted(pattern.laneList.count, "lane")), common cycle \(PatternWriter.beatText(pattern.length)))"
        if pattern.seed != 0 { out += "\nseed \(pattern.seed)" }
        // Lane lines and numbered notes, as the writer spells them (the lines stay pattern text).
        let text = PatternWriter.text(for: pattern).split(separator: "\n").dropFirst()
        var number = 0
        for line in text where !line.hasPrefix("seed ") {
            if line.hasPrefix("note ") {
                number += 1
                let note = pattern.notes[number - 1]
                let body = "\(number): \(line)"
                out += "\n" + body + String(repeating: " ", count: max(2, 28 - body.count)) + "# " + NoteName.name(note.key)
            } else {
                out += "\n" + line
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
