import Testing
import TactusEngine
import TactusModel
import TactusOffline

// Helpers are private so they cannot collide with other test files of this target.

/// The error a text is rejected with, or nil when it parses.
private func rejection(_ text: String) -> PatternError? {
    do {
        _ = try PatternParser.parse(text)
        return nil
    } catch {
        return error
    }
}

private func rejection(bytes: [UInt8]) -> PatternError? {
    do {
        _ = try PatternParser.parse(bytes: bytes)
        return nil
    } catch {
        return error
    }
}

/// Parses a text that must be valid, recording the error otherwise.
private func accepted(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> Pattern? {
    do {
        return try PatternParser.parse(text)
    } catch {
        Issue.record("unexpected rejection: \(error.message)", sourceLocation: sourceLocation)
        return nil
    }
}

private func expectRejected(
    _ text: String, line: Int, _ reason: PatternError.Reason, sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(rejection(text) == PatternError(line: line, reason: reason), sourceLocation: sourceLocation)
}

private func q(_ n: Int64, _ d: Int64 = 1) -> BeatRational { BeatRational(numerator: n, denominator: d)! }

/// A header and a length, so a test's own line starts at line 3.
private let prologue = "tactus-pattern 1\nlength 4\n"

/// The example of the pattern format document.
private let specExample = """
    tactus-pattern 1
    length 4
    # note START DURATION KEY VELOCITY [CHANNEL]
    note 0    1/2  60 100
    note 1/3  1/3  64  90 2
    note 3.5  1    67 127

    """

@Suite("Pattern parser: every rejection reason, with its line")
struct PatternParserReasonTests {
    @Test func textNotStartingWithTheHeaderIsMissingHeader() {
        expectRejected("length 4\nnote 0 1 60 100\n", line: 1, .missingHeader)
        // Comments and blank lines before the first statement do not count as statements.
        expectRejected("# a comment\n\n   \nlength 4\n", line: 4, .missingHeader)
        expectRejected("", line: 1, .missingHeader)
    }

    @Test func headerWithAnotherVersionIsUnsupportedVersion() {
        expectRejected("tactus-pattern 4\nlength 4\n", line: 1, .unsupportedVersion("4"))
        expectRejected("\ntactus-pattern 1.0\nlength 4\n", line: 2, .unsupportedVersion("1.0"))
    }

    @Test func secondHeaderIsDuplicateHeader() {
        expectRejected(prologue + "note 0 1 60 100\ntactus-pattern 1\n", line: 4, .duplicateHeader)
    }

    @Test func unknownWordIsUnknownStatement() {
        expectRejected(prologue + "chord 0 1 60\n", line: 3, .unknownStatement("chord"))
        // Statement words are case-sensitive.
        expectRejected(prologue + "Note 0 1 60 100\n", line: 3, .unknownStatement("Note"))
    }

    @Test func statementsWithTooFewOrTooManyFieldsAreWrongFieldCount() {
        expectRejected(
            "tactus-pattern\nlength 4\n", line: 1,
            .wrongFieldCount(statement: "tactus-pattern", expected: "1 field (the version)", found: 0))
        expectRejected(
            "tactus-pattern 1\nlength\n", line: 2,
            .wrongFieldCount(statement: "length", expected: "1 field (beats)", found: 0))
        expectRejected(
            "tactus-pattern 1\nlength 4 4\n", line: 2,
            .wrongFieldCount(statement: "length", expected: "1 field (beats)", found: 2))
        let noteFields = "START DURATION KEY VELOCITY [CHANNEL]"
        expectRejected(prologue + "note 0 1 60\n", line: 3, .wrongFieldCount(statement: "note", expected: noteFields, found: 3))
        expectRejected(
            prologue + "note 0 1 60 100 1 1\n", line: 3, .wrongFieldCount(statement: "note", expected: noteFields, found: 6))
    }

    @Test(arguments: ["abc", "1.", ".5", "1/", "/2", "1e3", "+1", "1/2/3", "1.5/2", "0x10", "1,5", "½"])
    func malformedBeatValueIsInvalidNumber(text: String) {
        expectRejected(prologue + "note \(text) 1 60 100\n", line: 3, .invalidNumber(field: "start", text: text))
    }

    @Test func malformedBeatValuesNameTheirField() {
        expectRejected("tactus-pattern 1\nlength four\n", line: 2, .invalidNumber(field: "length", text: "four"))
        expectRejected(prologue + "note 0 x 60 100\n", line: 3, .invalidNumber(field: "duration", text: "x"))
    }

    @Test func beatValueBelowZeroIsNegativeBeat() {
        expectRejected(prologue + "note -1 1 60 100\n", line: 3, .negativeBeat(field: "start"))
        expectRejected(prologue + "note 0 -1/3 60 100\n", line: 3, .negativeBeat(field: "duration"))
        expectRejected("tactus-pattern 1\nlength -0.5\n", line: 2, .negativeBeat(field: "length"))
        // Huge negative values are still reported as negative, not as too large.
        expectRejected(prologue + "note -99999999999 1 60 100\n", line: 3, .negativeBeat(field: "start"))
    }

    @Test func beatValueAboveOneMillionIsBeatValueTooLarge() {
        expectRejected("tactus-pattern 1\nlength 1000001\n", line: 2, .beatValueTooLarge(field: "length"))
        expectRejected(prologue + "note 0 2000001/2 60 100\n", line: 3, .beatValueTooLarge(field: "duration"))
        expectRejected(prologue + "note 0 1000000.5 60 100\n", line: 3, .beatValueTooLarge(field: "duration"))
        expectRejected(prologue + "note 0 99999999999999999999999 60 100\n", line: 3, .beatValueTooLarge(field: "duration"))
    }

    @Test func tenDecimalPlacesIsTooManyDecimalDigits() {
        expectRejected(prologue + "note 0.0000000001 1 60 100\n", line: 3, .tooManyDecimalDigits(field: "start"))
        // Trailing zeros count: the rule is about the spelling, not the value.
        expectRejected(prologue + "note 0 1.0000000000 60 100\n", line: 3, .tooManyDecimalDigits(field: "duration"))
    }

    @Test func fractionPartOf2To31IsFractionPartTooLarge() {
        expectRejected(prologue + "note 0 1/2147483648 60 100\n", line: 3, .fractionPartTooLarge(field: "duration"))
        expectRejected(prologue + "note 2147483648/2147483647 1 60 100\n", line: 3, .fractionPartTooLarge(field: "start"))
    }

    @Test func fractionOverZeroIsZeroDenominator() {
        expectRejected(prologue + "note 1/0 1 60 100\n", line: 3, .zeroDenominator(field: "start"))
        expectRejected("tactus-pattern 1\nlength 0/0\n", line: 2, .zeroDenominator(field: "length"))
    }

    @Test func integerFieldsOutsideTheirRangeAreOutOfRange() {
        expectRejected(prologue + "note 0 1 128 100\n", line: 3, .outOfRange(field: "key", range: "0-127", found: "128"))
        expectRejected(prologue + "note 0 1 -1 100\n", line: 3, .outOfRange(field: "key", range: "0-127", found: "-1"))
        expectRejected(prologue + "note 0 1 60 0\n", line: 3, .outOfRange(field: "velocity", range: "1-127", found: "0"))
        expectRejected(prologue + "note 0 1 60 128\n", line: 3, .outOfRange(field: "velocity", range: "1-127", found: "128"))
        expectRejected(prologue + "note 0 1 60 100 0\n", line: 3, .outOfRange(field: "channel", range: "1-16", found: "0"))
        expectRejected(prologue + "note 0 1 60 100 17\n", line: 3, .outOfRange(field: "channel", range: "1-16", found: "17"))
        expectRejected(
            prologue + "note 0 1 99999999999999999999 100\n", line: 3,
            .outOfRange(field: "key", range: "0-127", found: "99999999999999999999"))
    }

    @Test func integerFieldsWrittenAsAnythingButDigitsAreNotAnInteger() {
        expectRejected(prologue + "note 0 1 60 C4\n", line: 3, .notAnInteger(field: "velocity", text: "C4"))
        expectRejected(prologue + "note 0 1 60 ff\n", line: 3, .notAnInteger(field: "velocity", text: "ff"))
        expectRejected(prologue + "note 0 1 60 100 one\n", line: 3, .notAnInteger(field: "channel", text: "one"))
        expectRejected(prologue + "note 0 1 +60 100\n", line: 3, .notAnInteger(field: "key", text: "+60"))
        expectRejected(prologue + "note 0 1 60.0 100\n", line: 3, .notAnInteger(field: "key", text: "60.0"))
        expectRejected(prologue + "note 0 1 60 1/2\n", line: 3, .notAnInteger(field: "velocity", text: "1/2"))
        expectRejected(prologue + "note 0 1 60 100 2.5\n", line: 3, .notAnInteger(field: "channel", text: "2.5"))
    }

    @Test func lengthZeroIsLengthNotPositive() {
        expectRejected("tactus-pattern 1\nlength 0\n", line: 2, .lengthNotPositive)
        expectRejected("tactus-pattern 1\nlength 0/5\n", line: 2, .lengthNotPositive)
        expectRejected("tactus-pattern 1\nlength 0.000\n", line: 2, .lengthNotPositive)
    }

    @Test func secondLengthIsDuplicateLengthPointingAtTheFirst() {
        expectRejected(
            "tactus-pattern 1\n\nlength 4\nnote 0 1 60 100\nlength 4\n", line: 5, .duplicateLength(firstLine: 3))
    }

    @Test func patternWithoutLengthIsMissingLengthAfterTheLastLine() {
        // There is no line to blame: the error points just past the last line.
        expectRejected("tactus-pattern 1\nnote 0 1 60 100\n", line: 3, .missingLength)
        expectRejected("tactus-pattern 1\nnote 0 1 60 100", line: 3, .missingLength)
    }

    @Test func noteStartingAtOrAfterTheLengthIsStartNotBeforeLength() {
        expectRejected(prologue + "note 0 1 60 100\nnote 4 1 60 100\n", line: 4, .startNotBeforeLength)
        // With the length after the notes, the first offending note in text order is blamed.
        expectRejected(
            "tactus-pattern 1\nnote 0 1 60 100\nnote 5 1 60 100\nnote 7/2 1 60 100\nnote 4 1 60 100\nlength 7/2\n",
            line: 3, .startNotBeforeLength)
    }

    @Test func zeroDurationIsDurationNotPositive() {
        expectRejected(prologue + "note 0 0 60 100\n", line: 3, .durationNotPositive)
        expectRejected(prologue + "note 0 0/7 60 100\n", line: 3, .durationNotPositive)
        expectRejected(prologue + "note 0 0.0 60 100\n", line: 3, .durationNotPositive)
    }

    @Test func the65537thNoteIsTooManyNotesOnItsOwnLine() {
        var text = prologue
        text.reserveCapacity(65_537 * 20)
        for _ in 0..<65_537 { text += "note 0 1 60 100\n" }
        // Line 1 is the header, line 2 the length; note i (1-based) is on line i + 2.
        expectRejected(text, line: 65_537 + 2, .tooManyNotes)
    }

    @Test func bytesThatAreNotUTF8AreInvalidUTF8OnTheirLine() {
        let good = Array(prologue.utf8)
        let cases: [[UInt8]] = [
            [0xFF],  // never valid
            [0xC3],  // a two-byte sequence cut short (by the end, or by a line end)
            [0xE2, 0x99],  // a three-byte sequence cut short
            [0xC0, 0xAF],  // overlong "/"
            [0xE0, 0x80, 0xAF],  // overlong three-byte
            [0xED, 0xA0, 0x80],  // a UTF-16 surrogate
            [0xF4, 0x90, 0x80, 0x80],  // above U+10FFFF
            [0x80],  // a lone continuation byte
        ]
        for bad in cases {
            let bytes = good + Array("note 0 1 60 100 # ".utf8) + bad
            #expect(rejection(bytes: bytes) == PatternError(line: 3, reason: .invalidUTF8), "bytes \(bad) at the end")
            let more = bytes + Array("\nnote 0 1 60 100\n".utf8)
            #expect(rejection(bytes: more) == PatternError(line: 3, reason: .invalidUTF8), "bytes \(bad) mid-text")
        }
        // Valid multi-byte text in a comment is fine.
        #expect(rejection(prologue + "# ½ ♩ 𝅘𝅥 é\nnote 0 1 60 100\n") == nil)
    }

    // docs/pattern-format.md, "Note names": keys in scientific pitch notation.
    @Test func keysWrittenAsNoteNamesAreTheirMIDINumbers() throws {
        let names = ["C-1": 0, "C#-1": 1, "Db-1": 1, "A0": 21, "F#2": 42, "Bb3": 58, "B#3": 60, "C4": 60, "Cb4": 59,
                     "A4": 69, "E5": 76, "G9": 127, "Gb9": 126,
                     // Either case for the letter; `b` after a letter is always the flat; the
                     // octave is the letter's, whatever the accidental (issue 33).
                     "c4": 60, "c#4": 61, "f#3": 54, "eb2": 39, "bb3": 58, "b3": 59, "cb4": 59, "e#4": 65, "E#4": 65,
                     "c-1": 0, "g9": 127, "a4": 69, "db-1": 1]
        for (name, key) in names {
            let p = try #require(accepted(prologue + "note 0 1 \(name) 100\n"), "\(name)")
            #expect(p.notes.map(\.key) == [UInt8(key)], "\(name)")
        }
    }

    @Test func noteNamesOutsideCMinus1ToG9AreNoteNameOutOfRange() {
        expectRejected(prologue + "note 0 1 G#9 100\n", line: 3, .noteNameOutOfRange("G#9"))
        expectRejected(prologue + "note 0 1 Cb-1 100\n", line: 3, .noteNameOutOfRange("Cb-1"))
        expectRejected(prologue + "note 0 1 C10 100\n", line: 3, .noteNameOutOfRange("C10"))
    }

    // `EB2`: the flat is a lowercase b only (`BB3` would read two ways).
    @Test(arguments: ["H4", "h4", "C", "c", "C#", "c#", "Cx4", "C4.0", "Bbb3", "bbb3", "EB2", "BB3", "C+1", "C--1", "C1000"])
    func keysThatAreNeitherNumberNorNameAreNotAKey(text: String) {
        expectRejected(prologue + "note 0 1 \(text) 100\n", line: 3, .notAKey(text))
    }

    @Test func aKeyMessageNamesBothSpellings() {
        #expect(rejection(prologue + "note 0 1 H4 100\n")?.message
            == "line 3: key 'H4' is not a MIDI note number 0-127 or a note name like C4, F#2 or Bb3")
        #expect(rejection(prologue + "note 0 1 G#9 100\n")?.message == "line 3: key 'G#9' is outside C-1 to G9 (MIDI notes 0-127)")
    }

    @Test func noteNamesWrittenBackAreSharpsWithTheirOctave() {
        #expect((0...127).map { NoteName.name(UInt8($0)) }.prefix(13) == ["C-1", "C#-1", "D-1", "D#-1", "E-1", "F-1", "F#-1", "G-1", "G#-1", "A-1", "A#-1", "B-1", "C0"])
        #expect(NoteName.name(60) == "C4")
        #expect(NoteName.name(54) == "F#3")
        #expect(NoteName.name(127) == "G9")
        // Every name reads back as its key.
        for key in UInt8(0)...127 {
            let name = Array(NoteName.name(key).utf8)
            #expect(name.withUnsafeBufferPointer { NoteName.read($0) } == .key(key))
        }
    }

    /// Fails to compile when a reason is added, so that the list above is revisited.
    @Test func everyReasonHasATest() {
        func name(_ reason: PatternError.Reason) -> String {
            switch reason {
            case .missingHeader: "missingHeader"
            case .unsupportedVersion: "unsupportedVersion"
            case .duplicateHeader: "duplicateHeader"
            case .unknownStatement: "unknownStatement"
            case .wrongFieldCount: "wrongFieldCount"
            case .invalidNumber: "invalidNumber"
            case .negativeBeat: "negativeBeat"
            case .beatValueTooLarge: "beatValueTooLarge"
            case .tooManyDecimalDigits: "tooManyDecimalDigits"
            case .fractionPartTooLarge: "fractionPartTooLarge"
            case .zeroDenominator: "zeroDenominator"
            case .outOfRange: "outOfRange"
            case .notAnInteger: "notAnInteger"
            case .notAKey: "notAKey"
            case .noteNameOutOfRange: "noteNameOutOfRange"
            case .lengthNotPositive: "lengthNotPositive"
            case .duplicateLength: "duplicateLength"
            case .missingLength: "missingLength"
            case .startNotBeforeLength: "startNotBeforeLength"
            case .durationNotPositive: "durationNotPositive"
            case .tooManyNotes: "tooManyNotes"
            case .invalidUTF8: "invalidUTF8"
            // Version 2: each is pinned with its line by PatternFormat2Tests.errorTable.
            case .unknownStatementVersion2, .lengthInVersion2, .noteOutsideLane, .missingLane, .badLaneName, .duplicateLane,
                .unknownLaneOption, .duplicateLaneOption, .swingRatioOutOfRange, .swingGridNotPositive, .duplicateSeed,
                .probabilityOutOfRange, .needsVersion2, .startNotBeforeLaneLength, .tooManyLanes, .cycleTooLong,
                .tooManyCycleNotes, .swingTooFine:
                "version 2"
            // Version 3: pinned by PatternFormat3Tests and by docs/pattern-format.md's table (scripts/readme-check).
            case .needsVersion3, .unknownStatementVersion3, .mustPrecedePatterns, .mustPrecedeSong, .duplicateStatement,
                .unknownSwitchOption, .duplicateSwitchOption, .badSwitchGrid, .badSwitchChoice, .badTrigger, .duplicateTrigger,
                .badPatternName, .duplicatePattern, .unknownPatternOption, .duplicatePatternOption, .patternWithoutLane,
                .laneOutsidePattern, .noteBeforeLane, .badSongEnd, .playBeforeSong, .songWithoutEntry, .unknownPlayPattern,
                .tooManyPatterns, .tooManyLanesInPattern, .tooManySongEntries, .inPattern, .tooManyTotalCycleNotes, .songTooLong,
                .songDenominatorTooLarge, .editingNeedsOnePattern:
                "version 3"
            // Controllers: pinned by ControllerFormatTests and by docs/pattern-format.md's table.
            case .controllerOutOfRange, .programRamp, .pointStartNotBeforeLaneLength, .duplicatePoint, .controllerBeforeLane,
                .rampStepNotPositive, .badLock, .duplicateLock, .tooManyControllerPoints, .tooManyCycleControllerEvents,
                .tooManyTotalCycleControllerEvents:
                "controllers"
            }
        }
        // One small trigger per reason (the detailed tests above pin the lines).
        let triggers: [String] = [
            "length 4", "tactus-pattern 9", prologue + "tactus-pattern 1", prologue + "bar 1",
            prologue + "note 0", prologue + "note ? 1 60 100", prologue + "note -1 1 60 100",
            "tactus-pattern 1\nlength 2000000", prologue + "note 0.1234567891 1 60 100",
            prologue + "note 0 1/4294967296 60 100", prologue + "note 0 1/0 60 100",
            prologue + "note 0 1 200 100", prologue + "note 0 1 6.5 100", "tactus-pattern 1\nlength 0",
            prologue + "length 4", "tactus-pattern 1", prologue + "note 9 1 60 100",
            prologue + "note 0 0 60 100", prologue + "note 0 1 H4 100", prologue + "note 0 1 G#9 100",
        ]
        var seen = Set(triggers.compactMap { rejection($0).map { name($0.reason) } })
        if let e = rejection(bytes: Array(prologue.utf8) + [0xFF]) { seen.insert(name(e.reason)) }
        var many = prologue
        for _ in 0...Pattern.maximumNoteCount { many += "note 0 1 1 1\n" }
        if let e = rejection(many) { seen.insert(name(e.reason)) }
        #expect(seen.count == 22, "reasons produced: \(seen.sorted())")
    }
}

@Suite("Pattern parser: layout, exact values and limits")
struct PatternParserFormatTests {
    @Test func commentsMayFollowAnyStatementAndStandAlone() throws {
        let text = """
            # leading comment
            tactus-pattern 1 # the header
            length 4#no space before the comment
              # indented comment
            note 0 1/2 60 100 # trailing
            note 1 1 62 90 3# channel then comment
            """
        let p = try #require(accepted(text))
        #expect(p == Pattern(length: q(4), notes: [
            PatternNote(start: q(0), duration: q(1, 2), key: 60, velocity: 100),
            PatternNote(start: q(1), duration: q(1), key: 62, velocity: 90, channel: 3),
        ]))
    }

    // docs/pattern-format.md, "Comments": a # right after a field's note letter is a sharp.
    @Test func aHashRightAfterANoteLetterIsASharpAndElsewhereAComment() throws {
        let text = """
            tactus-pattern 1
            length 4#comment right after a number
            note 0 1 F#3 100 # F sharp, then a comment
            note 1 1 C#4 90#comment right after the velocity
            # note 2 1 D#4 100 (all comment)
            note 2 1 60 100 2#A#4
            """
        let p = try #require(accepted(text))
        #expect(p.length == q(4))
        #expect(p.notes.map(\.key) == [54, 61, 60])
        #expect(p.notes.map(\.channel) == [1, 1, 2])
        // A letter that does not start its field is not a note letter: the # starts a comment.
        expectRejected("tactus-pattern 1\nlength 4\nnote 0 1 60 100 AB#x\n", line: 3, .notAnInteger(field: "channel", text: "AB"))
        // A note letter as the last character before the # at a field start: `C#` alone is no key.
        expectRejected("tactus-pattern 1\nlength 4\nnote 0 1 C# 100\n", line: 3, .notAKey("C#"))
        // Lowercase letters too (issue 33: `c#4` was read as `c` and a comment).
        let lower = try #require(accepted("tactus-pattern 1\nlength 4\nnote 0 1 c#4 100 # c sharp\nnote 1 1 f#3 90#x\nnote 2 1 eb2 80;note 3 1 bb3 70\n"))
        #expect(lower.notes.map(\.key) == [61, 54, 39, 58])
        expectRejected("tactus-pattern 1\nlength 4\nnote 0 1 c# 100\n", line: 3, .notAKey("c#"))
        // A letter after `h` (not a note) before a # is a comment, as before.
        expectRejected("tactus-pattern 1\nlength 4\nnote 0 1 60 100 h#x\n", line: 3, .notAnInteger(field: "channel", text: "h"))
    }

    @Test func aPromptReadsCommentsByTheSameRule() {
        #expect(PatternParser.commentStart(in: Array("add 0 1 F#3 100 # x".utf8)) == 16)
        #expect(PatternParser.commentStart(in: Array("length 4#x".utf8)) == 8)
        #expect(PatternParser.commentStart(in: Array("add 0 1 60 100;F#3".utf8)) == 18)
        #expect(PatternParser.commentStart(in: Array("no comment".utf8)) == 10)
        #expect(PatternParser.commentStart(in: Array("add 0 1 c#4 100 # x".utf8)) == 16)
        #expect(PatternParser.commentStart(in: Array("add 0 1 c4 100;c#4".utf8)) == 18)
    }

    // docs/pattern-format.md: ";" separates statements on a line (jalv.gtk3's one-line text field).
    @Test func semicolonsSeparateStatementsOnOneLine() throws {
        let p = try #require(accepted("tactus-pattern 1; length 4;note 0 1 C4 100 ;; note 1 1 E4 90; # c; note 2 1 G4 80\n"))
        #expect(p.length == q(4))
        #expect(p.notes.map(\.key) == [60, 64])
        // Errors name the line, whichever statement of it is wrong.
        expectRejected("tactus-pattern 1; length 4; note 0 1 60\n", line: 1,
            .wrongFieldCount(statement: "note", expected: "START DURATION KEY VELOCITY [CHANNEL]", found: 3))
        expectRejected("tactus-pattern 1\nlength 4; note 0 1 60 100; note 1 1 60 0\n", line: 2,
            .outOfRange(field: "velocity", range: "1-127", found: "0"))
        // A missing length after a one-line pattern is one line past it.
        expectRejected("tactus-pattern 1; note 0 1 60 100", line: 2, .missingLength)
    }

    @Test func blankLinesTabsAndRepeatedSpacesSeparateNothing() throws {
        let text = "\n\ntactus-pattern\t1\n\n\t\n  length   4  \nnote\t0\t\t1/2 60\t100\n\n"
        let p = try #require(accepted(text))
        #expect(p == Pattern(length: q(4), notes: [PatternNote(start: q(0), duration: q(1, 2), key: 60, velocity: 100)]))
    }

    @Test func crlfLineEndsParseAndKeepLineNumbers() throws {
        let p = try #require(accepted("tactus-pattern 1\r\nlength 4\r\nnote 0 1 60 100 2\r\n"))
        #expect(p.notes == [PatternNote(start: q(0), duration: q(1), key: 60, velocity: 100, channel: 2)])
        #expect(rejection("tactus-pattern 1\r\nlength 4\r\n\r\nnote 0 1 60 0\r\n")?.line == 4)
    }

    @Test func leadingByteOrderMarkIsIgnored() throws {
        let p = try #require(accepted("\u{FEFF}tactus-pattern 1\nlength 4\nnote 0 1 60 100\n"))
        #expect(p.length == q(4))
        #expect(p.notes.count == 1)
        let viaBytes = try PatternParser.parse(bytes: [0xEF, 0xBB, 0xBF] + Array("tactus-pattern 1\nlength 3\n".utf8))
        #expect(viaBytes == Pattern(length: q(3)))
    }

    @Test func lengthMayComeAfterTheNotes() throws {
        let p = try #require(accepted("tactus-pattern 1\nnote 5/2 1 60 100\nnote 0 1 61 100\nlength 3\n"))
        #expect(p.length == q(3))
        #expect(p.notes.map(\.key) == [60, 61])
    }

    @Test func notesKeepTextOrderAndMayOverlap() throws {
        let p = try #require(accepted(prologue + "note 3 2 60 100\nnote 0 8 60 100\nnote 3 2 60 100\nnote 1 1 10 5\n"))
        #expect(p.notes.map(\.start) == [q(3), q(0), q(3), q(1)])
        #expect(p.notes.map(\.key) == [60, 60, 60, 10])
    }

    @Test func channelDefaultsToOne() throws {
        let p = try #require(accepted(prologue + "note 0 1 60 100\nnote 1 1 60 100 16\n"))
        #expect(p.notes.map(\.channel) == [1, 16])
    }

    @Test func beatValuesAreExactRationals() throws {
        let p = try #require(accepted(prologue + """
            note 1/3 0.1 60 100
            note 3.500 6/4 60 100
            note 0.125 2/6 60 100
            note 0 1.000000001 60 100
            note 0 4/2 60 100

            """))
        #expect(p.notes[0].start == q(1, 3))
        #expect(p.notes[0].start.numerator == 1 && p.notes[0].start.denominator == 3)
        #expect(p.notes[0].duration.numerator == 1 && p.notes[0].duration.denominator == 10)
        #expect(p.notes[1].start == q(7, 2))
        #expect(p.notes[1].start.numerator == 7 && p.notes[1].start.denominator == 2)
        #expect(p.notes[1].duration.numerator == 3 && p.notes[1].duration.denominator == 2)
        #expect(p.notes[2].start.numerator == 1 && p.notes[2].start.denominator == 8)
        #expect(p.notes[2].duration.numerator == 1 && p.notes[2].duration.denominator == 3)
        #expect(p.notes[3].duration.numerator == 1_000_000_001 && p.notes[3].duration.denominator == 1_000_000_000)
        #expect(p.notes[4].duration.numerator == 2 && p.notes[4].duration.denominator == 1)
        // 0.1 is not the binary double nearest to 0.1: three tenths make exactly 3/10.
        #expect(p.notes[0].duration != q(3_602_879_701_896_397, 36_028_797_018_963_968))
    }

    @Test func oneMillionBeatsIsTheLargestBeatValue() throws {
        let p = try #require(accepted(
            "tactus-pattern 1\nlength 1000000\nnote 999999.999999999 1000000 60 100\nnote 0 2000000/2 60 100\nnote 0 1000000.000000000 60 100\n"))
        #expect(p.length == q(1_000_000))
        #expect(p.notes[0].start == q(999_999_999_999_999, 1_000_000_000))
        #expect(p.notes.allSatisfy { $0.duration == q(1_000_000) })
        expectRejected("tactus-pattern 1\nlength 1000000.000000001\n", line: 2, .beatValueTooLarge(field: "length"))
        expectRejected(prologue + "note 0 1000000.000000001 60 100\n", line: 3, .beatValueTooLarge(field: "duration"))
    }

    @Test func nineDecimalPlacesAreAcceptedAndTenAreNot() throws {
        let p = try #require(accepted(prologue + "note 0.123456789 0.000000001 60 100\n"))
        #expect(p.notes[0].start == q(123_456_789, 1_000_000_000))
        #expect(p.notes[0].duration == q(1, 1_000_000_000))
        expectRejected(prologue + "note 0.1234567891 1 60 100\n", line: 3, .tooManyDecimalDigits(field: "start"))
        expectRejected(prologue + "note 0 0.0000000001 60 100\n", line: 3, .tooManyDecimalDigits(field: "duration"))
    }

    @Test func fractionPartsUpTo2147483647AreAcceptedAnd2147483648IsNot() throws {
        let p = try #require(accepted(
            prologue + "note 1/2147483647 2147483647/2147483647 60 100\nnote 0 2147483647/4096 60 100\n"))
        #expect(p.notes[0].start == q(1, 2_147_483_647))
        #expect(p.notes[0].duration == q(1))
        #expect(p.notes[1].duration == q(2_147_483_647, 4096))
        expectRejected(prologue + "note 0 2147483648/4096 60 100\n", line: 3, .fractionPartTooLarge(field: "duration"))
        expectRejected(prologue + "note 1/2147483648 1 60 100\n", line: 3, .fractionPartTooLarge(field: "start"))
    }

    @Test func exactly65536NotesAreAccepted() throws {
        var text = "tactus-pattern 1\nlength 1\n"
        text.reserveCapacity(65_536 * 20)
        for i in 0..<Pattern.maximumNoteCount { text += "note 0 1 \(i % 128) 1\n" }
        let p = try #require(accepted(text))
        #expect(p.notes.count == 65_536)
    }

    @Test func messageIsLineThenReason() throws {
        let e = try #require(rejection(prologue + "\n\nnote 0 1 60 0\n"))
        #expect(e.message == "line 5: velocity must be 1-127, found 0")
        #expect(e.message == "line 5: " + e.reasonText)
        let dup = try #require(rejection("tactus-pattern 1\nlength 4\nlength 2\n"))
        #expect(dup.message == "line 3: length is given twice (first on line 2)")
        let header = try #require(rejection("length 4\n"))
        #expect(header.message == "line 1: the first statement must be 'tactus-pattern 1', 'tactus-pattern 2' or 'tactus-pattern 3'")
        // A pattern built in code has no line: just the reason.
        #expect(PatternError(line: 0, reason: .lengthNotPositive).message == "length must be greater than 0")
    }

    @Test func theSpecExampleParsesToItsNotes() throws {
        let p = try #require(accepted(specExample))
        #expect(p == Pattern(length: q(4), notes: [
            PatternNote(start: q(0), duration: q(1, 2), key: 60, velocity: 100),
            PatternNote(start: q(1, 3), duration: q(1, 3), key: 64, velocity: 90, channel: 2),
            PatternNote(start: q(7, 2), duration: q(1), key: 67, velocity: 127),
        ]))
    }

    @Test func parseWriteParseIsAFixedPointForTheSpecExample() throws {
        let first = try PatternParser.parse(specExample)
        let written = PatternWriter.text(for: first)
        let second = try PatternParser.parse(written)
        #expect(second == first)
        #expect(PatternWriter.text(for: second) == written)
    }

    @Test func writerSpellsValuesShortestExact() {
        #expect(PatternWriter.beatText(q(4)) == "4")
        #expect(PatternWriter.beatText(q(7, 2)) == "3.5")
        #expect(PatternWriter.beatText(q(1, 3)) == "1/3")
        #expect(PatternWriter.beatText(q(1, 512)) == "0.001953125")
        #expect(PatternWriter.beatText(q(1, 1024)) == "1/1024")
        #expect(PatternWriter.beatText(q(1, 1_000_000_000)) == "0.000000001")
        #expect(PatternWriter.beatText(q(3, 20)) == "0.15")
    }
}

/// Random valid patterns survive writing and reading back unchanged.
@Suite("Pattern writer/parser round trip")
struct PatternRoundTripTests {
    /// A random beat value in `[0, below)` (or `(0, below]` when `positive`), spelled
    /// in one of the three forms: integers, decimals of up to nine places, fractions.
    private static func beat(below bound: BeatRational, positive: Bool, using rng: inout SplitMix64) -> BeatRational {
        let limit = bound.approximateValue
        while true {
            let candidate: BeatRational
            switch Int.random(in: 0..<4, using: &rng) {
            case 0:
                candidate = q(Int64.random(in: 0...Int64(limit.rounded(.up)), using: &rng))
            case 1:
                let places = Int.random(in: 1...9, using: &rng)
                var scale: Int64 = 1
                for _ in 0..<places { scale *= 10 }
                let whole = Int64.random(in: 0...Int64(limit), using: &rng)
                candidate = q(whole * scale + Int64.random(in: 0..<scale, using: &rng), scale)
            case 2:
                let small: [Int64] = [3, 7, 12, 9, 11, 24, 96, 1920]
                let den = small[Int.random(in: 0..<small.count, using: &rng)]
                let maxNum = min(Int64(limit * Double(den)) + 1, PatternLimits.fractionPartLimit - 1)
                candidate = q(Int64.random(in: 0...maxNum, using: &rng), den)
            default:
                // Large denominators, up to the format's limit.
                let den = Int64.random(in: 2..<PatternLimits.fractionPartLimit, using: &rng)
                let maxNum = min(Int64((limit * Double(den)).rounded(.down)), PatternLimits.fractionPartLimit - 1)
                candidate = q(Int64.random(in: 0...max(maxNum, 0), using: &rng), den)
            }
            if positive ? (candidate > .zero && !(bound < candidate)) : candidate < bound { return candidate }
        }
    }

    private static func randomPattern(using rng: inout SplitMix64) -> Pattern {
        let lengthBound = [q(1, 64), q(1), q(4), q(17, 3), q(1000), q(1_000_000)][Int.random(in: 0..<6, using: &rng)]
        let length = beat(below: lengthBound, positive: true, using: &rng)
        let noteCount = Int.random(in: 0...12, using: &rng)
        var notes: [PatternNote] = []
        for _ in 0..<noteCount {
            let start = beat(below: length, positive: false, using: &rng)
            let duration = beat(below: [q(1, 8), q(1), q(16), q(1_000_000)][Int.random(in: 0..<4, using: &rng)],
                                positive: true, using: &rng)
            notes.append(PatternNote(
                start: start, duration: duration, key: UInt8.random(in: 0...127, using: &rng),
                velocity: UInt8.random(in: 1...127, using: &rng), channel: UInt8.random(in: 1...16, using: &rng)))
        }
        return Pattern(length: length, notes: notes)
    }

    /// `validationError()` applies the fraction-part limit too, so a pattern built
    /// in code that passes it always writes text the parser accepts (the text a
    /// snapshot keeps for state saves).
    @Test(arguments: [(Int64(1), Int64(2_147_483_648)), (2_147_483_649, 4096)])
    func patternsThatPassValidationCanBeWrittenAndReadBack(numerator: Int64, denominator: Int64) {
        let pattern = Pattern(length: q(1_000_000), notes: [
            PatternNote(start: q(numerator, denominator), duration: q(1), key: 60, velocity: 100),
        ])
        let text = PatternWriter.text(for: pattern)
        #expect(pattern.validationError() != nil || rejection(text) == nil, "\(text)")
    }

    @Test func randomValidPatternsRoundTripThroughText() throws {
        var rng = SplitMix64(seed: 0x7AC7_0051)
        // Guards against a generator that stops producing one of the spellings.
        var spellings: Set<String> = []
        for i in 0..<2_000 {
            let pattern = Self.randomPattern(using: &rng)
            #expect(pattern.validationError() == nil)
            let text = PatternWriter.text(for: pattern)
            for note in pattern.notes {
                let t = PatternWriter.beatText(note.start) + " " + PatternWriter.beatText(note.duration)
                if t.contains("/") { spellings.insert("fraction") }
                if t.contains(".") { spellings.insert("decimal") }
                if note.channel != 1 { spellings.insert("channel") }
            }
            do {
                let back = try PatternParser.parse(text)
                #expect(back == pattern, "pattern \(i):\n\(text)")
                if back != pattern { return }
            } catch {
                Issue.record("pattern \(i) rejected: \(error.message)\n\(text)")
                return
            }
        }
        #expect(spellings == ["fraction", "decimal", "channel"])
    }
}
