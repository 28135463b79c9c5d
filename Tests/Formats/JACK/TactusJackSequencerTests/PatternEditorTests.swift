import Foundation
import Testing
import TactusEngine
import TactusModel
import TactusJackSequencer

/// The prompt's commands, as a person types them: each edit changes exactly
/// what it says, and a refused one says why and changes nothing.
@Suite struct PatternEditorTests {
    static let startText = """
        tactus-pattern 1
        length 4
        note 0    1/2  60 100
        note 1/3  1/3  64  90 2
        note 7/2  1    67 127

        """
    static let start = try! PatternParser.parse(startText)

    @Test func addAppendsAParsedNote() throws {
        var editor = PatternEditor(text: Self.startText)
        #expect(editor.run("add 5/2 1/7 72 100 3") == .changed("added note 4"))
        let note = editor.pattern.notes[3]
        #expect(note.start == BeatRational(numerator: 5, denominator: 2))
        #expect(note.duration == BeatRational(numerator: 1, denominator: 7))
        #expect(note.key == 72 && note.velocity == 100 && note.channel == 3)
        #expect(editor.run("add 1.25 0.5 40 90  # comment") == .changed("added note 5"))
        #expect(editor.pattern.notes[4].channel == 1)
    }

    @Test func refusedEditsSayWhyAndChangeNothing() {
        var editor = PatternEditor(text: Self.startText)
        let cases: [(String, String)] = [
            ("add 1 1 200 100", "key must be 0-127"),
            ("add 0 0 60 100", "duration must be greater than 0"),
            ("add 4 1 60 100", "start must be less than the pattern length"),
            ("add x 1 60 100", "start 'x' is not a number"),
            ("add 1 1 60", "takes START DURATION KEY VELOCITY"),
            ("remove 9", "there is no note 9 (the pattern has 3"),
            ("remove 1/2 60", "no note starts at 1/2 on key 60 (C4), channel 1"),
            ("add 1 1 H4 100", "key 'H4' is not a MIDI note number 0-127 or a note name like C4, F#2 or Bb3"),
            ("load /", "load: cannot read '/': Is a directory"),
            ("remove 0 60 17", "channel must be 1-16"),
            ("length 0", "length must be greater than 0"),
            ("length 3", "note 3 starts at or after 3; remove it first"),
            ("load /nonexistent/file.pattern", "cannot read '/nonexistent/file.pattern': No such file or directory"),
            ("save /nonexistent/folder/out.pattern", "save: cannot create '/nonexistent/folder/out.pattern': No such file or directory; nothing was written"),
            ("locate 2000000", "one beat position from 0 to 1000000"),
            ("frobnicate", "unknown command 'frobnicate'"),
            ("locate soon", "one beat position"),
        ]
        for (line, reason) in cases {
            guard case .error(let text) = editor.run(line) else {
                Issue.record("'\(line)' was not refused")
                continue
            }
            #expect(text.contains(reason), "'\(line)': \(text)")
            #expect(editor.pattern == Self.start, "'\(line)' changed the pattern")
        }
    }

    @Test func removeByNumberAndByPlace() {
        var editor = PatternEditor(text: Self.startText)
        #expect(editor.run("remove 1/3 64 2") == .changed("removed 1 note"))
        #expect(editor.pattern.notes.map(\.key) == [60, 67])
        #expect(editor.run("remove 1") == .changed("removed note 1"))
        #expect(editor.pattern.notes.map(\.key) == [67])
    }

    @Test func lengthAndClear() {
        var editor = PatternEditor(text: Self.startText)
        #expect(editor.run("length 7/2") == .error("length: note 3 starts at or after 7/2; remove it first"))
        #expect(editor.run("remove 3") == .changed("removed note 3"))
        #expect(editor.run("length 7/2") == .changed("length 3.5"))
        #expect(editor.pattern.length == BeatRational(numerator: 7, denominator: 2))
        #expect(editor.run("clear") == .changed("cleared 2 notes"))
        #expect(editor.pattern.notes.isEmpty)
    }

    @Test("save x.mid writes a Standard MIDI File that load reads back as the same pattern (docs/midi-files.md M18)")
    func saveThenLoadMIDIFile() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tactus-editor-mid-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var editor = PatternEditor(text: "tactus-pattern 1\nlength 7/2\nnote 0 1/3 60 100\nnote 1/3 1/4 62 90 2\nnote 3 1 64 80\n")
        let original = editor.pattern
        let file = folder.appendingPathComponent("groove.mid").path
        #expect(editor.run("save \(file)") == .answer("saved \(file): 3 notes (1 loop of 3.5 beats) at 120 bpm, 96 ticks per quarter note, every beat exact"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)).prefix(4) == Data("MThd".utf8))
        #expect(editor.run("clear") != .error(""))
        #expect(editor.run("load \(file)") == .changed("loaded \(file): 3 notes"))
        #expect(editor.pattern == original)
        try Data([0x4D, 0x54, 0x68, 0x64, 0, 0, 0, 6, 0, 0, 0, 1, 0xE7, 0x28]).write(to: URL(fileURLWithPath: file))
        #expect(editor.run("load \(file)") == .error("load: \(file): byte 12: the division is SMPTE time (25 frames a second, 40 ticks a frame); a pattern counts beats, so only ticks per quarter note can be read; the pattern is unchanged"))
    }

    @Test func saveThenLoadGivesThePatternBack() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tactus-editor-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("saved.pattern").path
        var editor = PatternEditor(text: Self.startText)
        _ = editor.run("add 11/7 1/3 50 60 16")
        let edited = editor.pattern
        #expect(editor.run("save \(file)") == .answer("saved \(file)"))
        #expect(editor.run("clear") == .changed("cleared 4 notes"))
        #expect(editor.run("load \(file)") == .changed("loaded \(file): 4 notes"))
        #expect(editor.pattern == edited)

        try "tactus-pattern 1\nlength 2\nnote 3 1 60 100\n".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(editor.run("load \(file)") == .error("load: \(file):3: note start must be less than the pattern length; the pattern is unchanged"))
        #expect(editor.pattern == edited)
    }

    // A refusal names a few items and a count: 65,536 note numbers would be one 400 KB line.
    @Test func aRefusalAboutManyNotesNamesAFewAndCountsTheRest() throws {
        var text = "tactus-pattern 1\nlength 1\n"
        for _ in 0..<65_536 { text += "note 0.75 1 60 100\n" }
        var editor = PatternEditor(text: text)
        let refusal = editor.run("length 1/2")
        #expect(refusal == .error("length: 65536 notes start (1, 2, 3, 4, 5 and 65531 more) at or after 1/2; remove them first"))
        #expect(editor.pattern.length == BeatRational(1))
        var two = PatternEditor(text: Self.startText)
        _ = two.run("add 3.75 1 60 100")
        #expect(two.run("length 3") == .error("length: 2 notes start (3 and 4) at or after 3; remove them first"))
    }

    // Note names at the prompt, as in pattern files (docs/pattern-format.md, "Note names").
    @Test func keysAtThePromptMayBeNoteNames() {
        var editor = PatternEditor(text: Self.startText)
        #expect(editor.run("add 2 1 F#3 100") == .changed("added note 4"))
        #expect(editor.pattern.notes[3].key == 54)
        #expect(editor.run("add 2.5 1 Bb3 100 # a comment after a sharp-free line") == .changed("added note 5"))
        #expect(editor.pattern.notes[4].key == 58)
        #expect(editor.run("remove 2 F#3") == .changed("removed 1 note"))
        #expect(editor.run("remove 7/2 G4") == .changed("removed 1 note"))
        #expect(editor.pattern.notes.map(\.key) == [60, 64, 58])
        // Lowercase names too, and a sharp right after a lowercase letter is no comment (issue 33).
        #expect(editor.run("add 1 1 c#4 100") == .changed("added note 4"))
        #expect(editor.run("add 2 1 eb2 90") == .changed("added note 5"))
        #expect(editor.pattern.notes.suffix(2).map(\.key) == [61, 39])
        #expect(PatternEditor.commands(in: "add 0 1 f#3 100; remove 1 c#4 # done") == ["add 0 1 f#3 100", " remove 1 c#4 "])
        #expect(editor.run("remove 1 c#4") == .changed("removed 1 note"))
    }

    @Test func showPrintsEachKeysNameBesideItsNumber() {
        let editor = PatternEditor(text: Self.startText)
        #expect(editor.show() == """
            length 4  (3 notes)
            1: note 0 0.5 60 100        # C4
            2: note 1/3 1/3 64 90 2     # E4
            3: note 3.5 1 67 127        # G4
            """)
        var one = PatternEditor(text: Self.startText)
        _ = one.run("remove 1"); _ = one.run("remove 1")
        #expect(one.show().hasPrefix("length 4  (1 note)\n"))
    }

    @Test func aLineSplitsIntoCommandsAtSemicolons() {
        #expect(PatternEditor.commands(in: "add 0 1 C4 100; add 1 1 F#3 90 # comment; not a command") == ["add 0 1 C4 100", " add 1 1 F#3 90 "])
        #expect(PatternEditor.commands(in: "show") == ["show"])
    }

    @Test func countsAreWrittenForOne() {
        var editor = PatternEditor(text: Self.startText)
        _ = editor.run("remove 1")
        #expect(editor.run("remove 1") == .changed("removed note 1"))
        #expect(editor.run("clear") == .changed("cleared 1 note"))
    }

    @Test func transportAndQuit() {
        var editor = PatternEditor(text: Self.startText)
        #expect(editor.run("play") == .transport(.play))
        #expect(editor.run("stop") == .transport(.stop))
        #expect(editor.run("locate 17/4") == .transport(.locate(4.25)))
        #expect(editor.run("quit") == .quit)
        #expect(editor.run("   ") == .answer(""))
        #expect(editor.run("show").isAnswer)
    }
}

extension PatternEditor {
    /// An editor of this pattern text.
    init(text: String) {
        self.init(document: try! EditorDocument(parsing: Array(text.utf8)))
    }
}

extension PatternEditor.Outcome {
    var isAnswer: Bool { if case .answer = self { true } else { false } }
}

/// The prompt's lane commands (pattern format "Version 2"): a version-1 pattern
/// becomes lane `main`; each edit is checked by the parser.
@Suite struct PatternEditorLaneTests {
    @Test func lanesSeedAndProbabilityAtThePrompt() throws {
        var editor = PatternEditor(text: PatternEditorTests.startText)
        #expect(editor.run("lane hats length 3/2 channel 10 swing 2/3 1/4") == .changed("added lane hats"))
        #expect(editor.pattern.version == 2)
        #expect(editor.pattern.laneList.map { String(decoding: $0.name, as: UTF8.self) } == ["main", "hats"])
        #expect(editor.run("add 1/4 1/8 42 60 prob=0.7") == .changed("added a note to lane hats"))
        let hat = editor.pattern.notes.last!
        #expect(hat.lane == 1 && hat.channel == 10 && hat.probability == BeatRational(numerator: 7, denominator: 10))
        #expect(editor.run("seed 7") == .changed("seed 7"))
        #expect(editor.pattern.seed == 7)
        #expect(editor.pattern.length == BeatRational(12))  // lcm(4, 3/2)
        #expect(editor.run("lanes") == .answer("  main: length 4, 3 notes\n* hats: length 1.5, 1 note\ncommon cycle 12 beats"))
        #expect(editor.run("lane main") == .answer("lane main: 3 notes"))
        #expect(editor.run("add 2 1 48 100") == .changed("added a note to lane main"))
        #expect(editor.pattern.notes.filter { $0.lane == 0 }.count == 4)
        #expect(editor.run("lane main") == .answer("lane main: 4 notes"))
        #expect(editor.run("length 3") == .error("length: note start must be less than the lane length"))
        #expect(editor.run("add 2 1 48 100 prob=0") == .error("add: probability must be greater than 0 and at most 1"))
        #expect(editor.run("lane x length 1 swing 1 1/4") == .error("lane: swing ratio must be greater than 0 and less than 1"))
        #expect(editor.run("lane nope") == .error("lane: there is no lane 'nope' (see lanes); to add one: lane nope length L"))
        #expect(editor.run("lane bass length 7 follow C2") == .changed("added lane bass"))
        #expect(editor.pattern.laneList[2].followRoot == 36)
        let shown = editor.show()
        #expect(shown.hasPrefix("tactus-pattern 2  (5 notes in 3 lanes, common cycle 84)"))
        // Beat values as the writer spells them (pattern format, "What the writer produces").
        #expect(shown.contains("lane hats length 1.5 channel 10 swing 2/3 0.25\n5: note 0.25 0.125 42 60 prob=0.7  # F#2"))
    }

    /// Issue 30: `cc`, `bend`, `pressure` and `program` like `note`: added to the current lane as the
    /// file's statements; a bad one refused with the column (in what was typed) and the reason
    /// `tactus check` gives for that statement in a file, and the pattern left as it was.
    @Test("cc, bend, pressure and program at the prompt: added as statements; a bad one has a file's column and reason and changes nothing")
    func controllerStatementsAtThePrompt() throws {
        let text = "tactus-pattern 3\nlane bass length 4 channel 2\nnote 0 1/2 36 100 cc74=20\ncc 74 0 10\n"
        var editor = PatternEditor(text: text)
        #expect(editor.run("cc 74 3 120 ramp") == .changed("added cc 74 3 120 ramp to lane bass"))
        #expect(editor.run("bend 1 -4000  # down") == .changed("added bend 1 -4000 to lane bass"))
        #expect(editor.run("pressure 2 80 3") == .changed("added pressure 2 80 3 to lane bass"))
        #expect(editor.run("program 0 5") == .changed("added program 0 5 to lane bass"))
        let pattern = editor.pattern
        #expect(pattern.controllers.count == 5)
        // show: the text's version, each lane's notes, then its points.
        #expect(editor.show() == """
            tactus-pattern 3  (1 note, 5 controller points in 1 lane, common cycle 4)
            lane bass length 4 channel 2
            1: note 0 0.5 36 100 cc74=20  # C2
            cc 74 0 10
            cc 74 3 120 ramp
            bend 1 -4000
            pressure 2 80 3
            program 0 5
            """)
        #expect(String(decoding: editor.text, as: UTF8.self).contains("cc 74 0 10\ncc 74 3 120 ramp\nbend 1 -4000\npressure 2 80 3\nprogram 0 5\n"))
        let bad = [
            "cc 120 0 5", "bend 1 9000", "program 1 7 ramp", "  cc   74 1 300", "pressure 4 10", "cc 74 3 1", "bend x 0", "cc 74=1 0 5",
            "program 1 5 17", "pressure 1 -1",
        ]
        for line in bad {
            // The same statement in a file: its column and reason.
            let file = "tactus-pattern 3\nlane bass length 4 channel 2\n" + line.trimmingCharacters(in: .whitespaces) + "\n"
            var expected = ""
            do {
                _ = try PatternParser.parse(file)
            } catch {
                #expect(error.line == 3, "'\(line)': \(error.location)")
                expected = (error.column > 0 ? "column \(error.column): " : "") + error.reasonText
            }
            let command = PatternEditor.words(of: line)[0]
            guard case .error(let message) = editor.run(line) else {
                // A point at a beat and controller already taken is the document's refusal, not the parser's.
                Issue.record("'\(line)' was not refused")
                continue
            }
            if expected.isEmpty {
                #expect(message.hasPrefix(command + ": "), "'\(line)': \(message)")
            } else {
                #expect(message == "\(command): \(expected)", "'\(line)'")
            }
            #expect(editor.pattern == pattern, "'\(line)' changed the pattern")
        }
    }
}

/// The prompt edits the text as the X11 editor does (`EditorDocument`): each
/// command changes only the statements it touches, and the author's
/// comments, blank lines and spacing stay, in what `save` writes and the
/// journal records.
@Suite struct PromptKeepsTheTextTests {
    static let commented = """
        tactus-pattern 1
        # A groove: the comments and the spacing are the author's.
        length 4   # one bar

        note 0    1/2  C4 100   # kick
        note 1/3  1/3  64  90 2
        # the last one
        note 7/2  1    67 127

        """

    /// Runs `command` on `text`; the outcome and the text after it.
    static func run(_ command: String, on text: String = commented) -> (PatternEditor.Outcome, String) {
        var editor = PatternEditor(text: text)
        let outcome = editor.run(command)
        return (outcome, String(decoding: editor.text, as: UTF8.self))
    }

    @Test func addGoesAfterTheLastNoteOfItsLane() {
        let (outcome, text) = Self.run("add 2 1/4 F#3 80 3")
        #expect(outcome == .changed("added note 4"))
        #expect(text == Self.commented + "note 2 0.25 54 80 3\n")
    }

    @Test func removeByNumberKeepsTheNotesComment() {
        let (outcome, text) = Self.run("remove 1")
        #expect(outcome == .changed("removed note 1"))
        #expect(text == Self.commented.replacingOccurrences(of: "note 0    1/2  C4 100   # kick", with: "# kick"))
    }

    @Test func removeByPlaceTakesTheNotesLine() {
        let (outcome, text) = Self.run("remove 1/3 64 2")
        #expect(outcome == .changed("removed 1 note"))
        #expect(text == Self.commented.replacingOccurrences(of: "note 1/3  1/3  64  90 2\n", with: ""))
    }

    @Test func lengthRewritesOnlyItsValue() {
        let (outcome, text) = Self.run("length 13/2")
        #expect(outcome == .changed("length 6.5"))
        #expect(text == Self.commented.replacingOccurrences(of: "length 4   # one bar", with: "length 6.5   # one bar"))
        let (refused, unchanged) = Self.run("length 3")
        #expect(refused == .error("length: note 3 starts at or after 3; remove it first"))
        #expect(unchanged == Self.commented)
    }

    @Test func clearKeepsEveryComment() {
        let (outcome, text) = Self.run("clear")
        #expect(outcome == .changed("cleared 3 notes"))
        #expect(text == """
            tactus-pattern 1
            # A groove: the comments and the spacing are the author's.
            length 4   # one bar

            # kick
            # the last one

            """)
    }

    @Test func lanesAndSeedMakeTheTextVersion2InPlace() throws {
        var editor = PatternEditor(text: Self.commented)
        #expect(editor.run("lane hats length 3/2 channel 10") == .changed("added lane hats"))
        #expect(editor.run("add 1/4 1/8 42 60 prob=0.7") == .changed("added a note to lane hats"))
        #expect(editor.run("seed 7") == .changed("seed 7"))
        #expect(editor.run("lane main") == .answer("lane main: 3 notes"))
        #expect(editor.run("add 2 1 48 100") == .changed("added a note to lane main"))
        #expect(editor.run("lane main length 8 swing 2/3 1/2") == .changed("lane main redefined"))
        #expect(editor.run("lane hats length 3") == .changed("lane hats redefined"))
        #expect(editor.run("seed 9") == .changed("seed 9"))
        #expect(String(decoding: editor.text, as: UTF8.self) == """
            tactus-pattern 2
            seed 9
            # A groove: the comments and the spacing are the author's.
            lane main length 8 swing 2/3 0.5   # one bar

            note 0    1/2  C4 100   # kick
            note 1/3  1/3  64  90 2
            # the last one
            note 7/2  1    67 127
            note 2 1 48 100
            lane hats length 3
            note 0.25 0.125 42 60 10 prob=0.7

            """)
        // Refused: the text is left as it was.
        let before = editor.text
        #expect(editor.run("lane main length 3") == .error("lane: note start must be less than the lane length"))
        #expect(editor.run("lane main") == .answer("lane main: 4 notes"))
        #expect(editor.run("length 3") == .error("length: note start must be less than the lane length"))
        #expect(editor.text == before)
        #expect(editor.pattern == (try PatternParser.parse(bytes: before)))
    }

    @Test func loadKeepsTheFilesTextAndSaveWritesTheEditedText() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tactus-prompt-text-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("groove.pattern").path
        try Self.commented.write(toFile: file, atomically: true, encoding: .utf8)
        var editor = PatternEditor(text: "tactus-pattern 1\nlength 1\n")
        #expect(editor.run("load \(file)") == .changed("loaded \(file): 3 notes"))
        #expect(editor.run("add 3 1/2 72 64") == .changed("added note 4"))
        let saved = folder.appendingPathComponent("saved.pattern").path
        #expect(editor.run("save \(saved)") == .answer("saved \(saved)"))
        #expect(try String(contentsOfFile: saved, encoding: .utf8) == Self.commented + "note 3 0.5 72 64\n")
    }

    @Test("a text with CR LF, no final line end and statements on one line keeps them")
    func oneLinePatternsAndLineEnds() {
        let (added, text) = Self.run("add 1 1 62 90", on: "tactus-pattern 1; length 2; note 0 1 60 100 # one line")
        #expect(added == .changed("added note 2"))
        #expect(text == "tactus-pattern 1; length 2; note 0 1 60 100; note 1 1 62 90 # one line")
        let (seeded, crlf) = Self.run("seed 3", on: "tactus-pattern 1\r\nlength 2\r\nnote 0 1 60 100")
        #expect(seeded == .changed("seed 3"))
        #expect(crlf == "tactus-pattern 2\r\nseed 3\r\nlane main length 2\r\nnote 0 1 60 100")
    }
}
