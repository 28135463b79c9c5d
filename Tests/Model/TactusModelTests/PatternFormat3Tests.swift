import Testing
import TactusEngine
import TactusModel

// Pattern format "Version 3": patterns, switch, triggers, song; the writer's round trip.

private func arrangement(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> Arrangement? {
    do {
        return try PatternParser.arrangement(text)
    } catch {
        Issue.record("unexpected rejection: \(error.message)", sourceLocation: sourceLocation)
        return nil
    }
}

private func rejection(_ text: String) -> PatternError? {
    do {
        _ = try PatternParser.arrangement(text)
        return nil
    } catch {
        return error
    }
}

private let song = """
    tactus-pattern 3
    seed 7
    switch at bars 2 phase keep notes ring grace 1/8
    trigger program in 16
    trigger note C2
    trigger cc 20 in 3

    pattern intro program 0
    lane drums length 4 channel 10
    note 0 1/4 36 110
    lane pad length 8 channel 2
    note 0 8 48 70 prob=1/2

    pattern groove program 1 bank 0 3 channel 5
    lane drums length 4 channel 10
    note 0 1/4 36 120
    note 3 1/4 42 80
    lane bass length 3/2 follow 36 in 2
    note 0 1/2 36 100

    pattern fill
    lane drums length 1 channel 10
    note 0 1/8 38 90

    song hold
    play intro 2
    play groove 3
    play fill
    """

@Suite("Pattern format version 3")
struct PatternFormat3Tests {
    @Test("a text of three patterns: names, programs, lanes per pattern, switch, triggers and song as written")
    func readsEverything() throws {
        let a = try #require(arrangement(song))
        #expect(a.version == 3 && a.hasPatternLines)
        #expect(a.patterns.map { String(decoding: $0.name, as: UTF8.self) } == ["intro", "groove", "fill"])
        #expect(a.patterns[0].program == PatternProgram(program: 0))
        #expect(a.patterns[1].program == PatternProgram(program: 1, bankMSB: 0, bankLSB: 3, channel: 5))
        #expect(a.patterns[2].program == nil)
        #expect(a.patterns.map { $0.pattern.lanes.count } == [2, 2, 1])
        #expect(a.patterns.map { $0.pattern.length } == [BeatRational(8), BeatRational(12), BeatRational(1)])
        #expect(a.patterns.allSatisfy { $0.pattern.seed == 7 })
        #expect(a.patterns[1].pattern.notes.map { $0.lane } == [0, 0, 1])
        #expect(a.switchRule == SwitchRule(at: .bars(2), keepsPhase: true, notesRing: true, grace: BeatRational(numerator: 1, denominator: 8)!))
        #expect(a.triggers == PatternTriggers(programChannel: 16, noteKey: 36, noteChannel: 0, controller: 20, controllerChannel: 3))
        #expect(a.song == Song(end: .hold, entries: [.init(pattern: 0, passes: 2), .init(pattern: 1, passes: 3), .init(pattern: 2)]))
        // 2 × 8 + 3 × 12 + 1 × 1 beats.
        #expect(a.songLength == BeatRational(53))
        // `parse` gives the first pattern, as a version-2 pattern.
        #expect(try PatternParser.parse(song) == a.patterns[0].pattern)
    }

    @Test("the writer's text parses back to an equal arrangement, and writes itself again unchanged")
    func roundTrip() throws {
        let texts = [
            song,
            "tactus-pattern 3\nlane a length 4\nnote 0 1 60 100\n",
            "tactus-pattern 3\nlane a length 4\nnote 0 1 60 100\nsong stop\nplay main 3\n",
            "tactus-pattern 3\nswitch at now\npattern a\nlane x length 3\npattern b program 127 bank 127\nlane x length 5\nnote 1 1 C4 1 16\n",
            "tactus-pattern 3\nswitch at end phase restart notes cut grace 0\npattern a\nlane x length 1\n",
        ]
        for text in texts {
            let a = try #require(arrangement(text))
            let written = PatternWriter.text(for: a)
            let again = try #require(arrangement(written))
            #expect(again == a, "\(written)")
            #expect(PatternWriter.text(for: again) == written)
        }
        // Versions 1 and 2 are written as they were.
        for text in ["tactus-pattern 1\nlength 4\nnote 0 1 60 100\n", "tactus-pattern 2\nlane a length 4\nnote 0 1 60 100\n"] {
            let a = try #require(arrangement(text))
            #expect(a.patterns.count == 1 && !a.needsVersion3)
            #expect(PatternWriter.text(for: a) == PatternWriter.text(for: try PatternParser.parse(text)))
        }
    }

    @Test("a version-3 text without pattern lines is one pattern main that plays as its version-2 body")
    func bodyOfVersion2() throws {
        let body = "seed 3\nlane a length 4 swing 2/3 1/2\nnote 0 1 60 100 prob=1/3\nlane b length 3\nnote 1 1/2 62 90\n"
        let v2 = try PatternParser.parse("tactus-pattern 2\n" + body)
        let v3 = try #require(arrangement("tactus-pattern 3\n" + body))
        #expect(v3.patterns.count == 1 && v3.patterns[0].name == NamedPattern.mainName && !v3.hasPatternLines)
        #expect(v3.patterns[0].pattern == v2)
    }

    @Test("the editor edits one pattern of a text of several, and keeps the rest; a lone version-3 body it edits")
    func editorKeepsTheOtherPatterns() throws {
        let doc = try EditorDocument(parsing: Array(song.utf8), pattern: 1)
        #expect(doc.patternNames.count == 3 && doc.patternIndex == 1 && doc.text() == Array(song.utf8))
        if case .failure(let error) = EditorDocument.load(Array("tactus-pattern 3\nlane a length 4\nnote 0 1 60 100\n".utf8)) {
            Issue.record("a version-3 text of one pattern was refused: \(error.message)")
        }
    }

    @Test("errors name the line and say what is wrong")
    func errors() {
        let cases: [(String, Int, String)] = [
            ("tactus-pattern 1\nlength 4\nsong loop\n", 3, "'song' needs 'tactus-pattern 3'"),
            ("tactus-pattern 2\nlane a length 4\ntrigger program\n", 3, "'trigger' needs 'tactus-pattern 3'"),
            ("tactus-pattern 3\npattern a\nlane x length 4\nseed 3\n", 4, "'seed' must come before the first 'pattern'"),
            ("tactus-pattern 3\npattern a\nlane x length 4\ntrigger program\n", 4, "'trigger' must come before the first 'pattern'"),
            ("tactus-pattern 3\nsong loop\nsong loop\n", 2, "the pattern has no 'lane' statement"),
            ("tactus-pattern 3\nlane x length 4\nsong loop\nplay main\nsong stop\n", 5, "song is given twice (first on line 3)"),
            ("tactus-pattern 3\nswitch phase\n", 2, "'phase' takes restart or keep, found ''"),
            ("tactus-pattern 3\nswitch notes bang\n", 2, "'notes' takes cut or ring, found 'bang'"),
            ("tactus-pattern 3\ntrigger cc 120\n", 2, "controller must be 0-119, found 120"),
            ("tactus-pattern 3\ntrigger program on 3\n", 2, "'trigger' takes program, note KEY or cc N, then [in C], found 'on'"),
            ("tactus-pattern 3\npattern a channel 0\n", 2, "channel must be 1-16, found 0"),
            ("tactus-pattern 3\npattern a program 1 program 2\n", 2, "pattern option 'program' is given twice"),
            ("tactus-pattern 3\npattern a\nnote 0 1 60 100\n", 3, "a note must follow a 'lane' line"),
            ("tactus-pattern 3\npattern a\nlane x length 4\n", 0, ""),
            ("tactus-pattern 3\npattern a\n", 3, "pattern 'a' has no lane"),
            ("tactus-pattern 3\npattern a\nlane x length 4\nsong loop\nlane y length 2\n", 5, "'lane' must come before 'song'"),
            ("tactus-pattern 3\npattern a\nlane x length 4\nsong loop\nplay a 10000\n", 5, "passes must be 1-9999, found 10000"),
            ("tactus-pattern 3\npattern a\nlane x length 1000000\nlane y length 999999\n", 4,
             "pattern 'a': the lanes realign only after more than 1000000 beats (lane 'y' of length 999999 does not fit the others)"),
            ("tactus-pattern 3\ntempo 120\n", 2,
             "unknown statement 'tempo' (expected 'seed', 'switch', 'trigger', 'pattern', 'lane', 'note', 'cc', 'bend', 'pressure', 'program', 'song' or 'play')"),
            ("tactus-pattern 4\n", 1, "unsupported pattern format version '4' (this reader knows versions 1, 2 and 3)"),
        ]
        for (text, line, reason) in cases {
            let error = rejection(text)
            if line == 0 {
                #expect(error == nil, "\(text)")
            } else {
                #expect(error?.line == line && error?.reasonText == reason, "\(text): \(error?.message ?? "accepted")")
            }
        }
    }

    @Test("10,000 patterns, a song of 100,000 entries, a song too long: refused with a message")
    func limits() {
        var many = "tactus-pattern 3\n"
        for i in 0..<10_000 { many += "pattern p\(i)\nlane x length 1\n" }
        let tooMany = rejection(many)
        #expect(tooMany?.line == 2 + 2 * 512 && tooMany?.reasonText == "the text has more than 512 patterns")

        var entries = "tactus-pattern 3\npattern a\nlane x length 1\nsong loop\n"
        for _ in 0..<100_000 { entries += "play a\n" }
        let tooLong = rejection(entries)
        #expect(tooLong?.line == 5 + 65_536 && tooLong?.reasonText == "the song has more than 65536 entries")

        // 65,536 entries of 9999 passes of a 1,000,000-beat cycle.
        var huge = "tactus-pattern 3\npattern a\nlane x length 1000000\nsong loop\n"
        for _ in 0..<500 { huge += "play a 9999\n" }
        let hugeError = rejection(huge)
        #expect(hugeError?.line == 4 && hugeError?.reasonText == "the song is longer than 4294967296 beats")

        var lanes = "tactus-pattern 3\npattern big\n"
        for i in 0..<65 { lanes += "lane l\(i) length 1\n" }
        #expect(rejection(lanes)?.reasonText == "pattern 'big' has more than 64 lanes")
    }
}
