import Testing
import TactusEngine
import TactusModel
import TactusEditorModel

// EditorDocument: the pattern being edited, read from text and written back
// keeping what the person wrote (issue 19: "Rewriting the text must not throw
// away the user's comments").

private let laneExample = """
    tactus-pattern 2
    seed 7
    # drums first
    lane kick length 4 channel 10   # the kick
    note 0 1/4 36 110
    note 5/2 1/4 C2 90 prob=1/2     # ghost
    lane hats length 3/2 swing 2/3 1/4
    note 0 1/8 42 80 10
    lane empty length 2 follow C3 in 2
    lane bass length 7 follow 48
    note 0 1/2 36 100
    # the end

    """

@Suite("Editor document: reading and writing back")
struct EditorDocumentTextTests {
    @Test("an unedited text is written back byte for byte (v1, v2, BOM and CR LF, one line, no final line end)")
    func untouchedTextIsKept() throws {
        let texts: [[UInt8]] = [
            DefaultPattern.bytes,
            bytes(laneExample),
            [0xEF, 0xBB, 0xBF] + bytes("tactus-pattern 1\r\n# a comment\r\nnote 7/4 1/512 60 100 1\r\nnote 0.50 1/1024 61 90 16   # trailing\r\nnote 1/3\t2/6 62 80\r\nlength 8/2\r\n"),
            bytes("tactus-pattern 1; length 4; note 0 1 C4 100;; note 1 1 62 90;"),
            bytes("tactus-pattern 1\nlength 4\nnote 0 1 F#3 100 # F sharp\n\n   \n#end"),
        ]
        for text in texts {
            let doc = try EditorDocument(parsing: text)
            #expect(doc.text() == text)
            #expect(doc.notice == nil)
            #expect(textMatches(doc))
        }
    }

    @Test("notes get ids 1, 2, ... in text order, lanes and options as written")
    func readsNotesAndLanes() throws {
        let doc = try document(laneExample)
        #expect(doc.version == 2)
        #expect(doc.seed == 7)
        #expect(doc.notes.map(\.id) == [1, 2, 3, 4])
        #expect(doc.notes.map(\.lane) == [0, 0, 1, 3])
        #expect(doc.notes.map(\.channel) == [10, 10, 10, 1])
        #expect(doc.notes[1].key == 36 && doc.notes[1].probability == frac(1, 2))
        #expect(doc.lanes.map { string($0.name) } == ["kick", "hats", "empty", "bass"])
        #expect(doc.lanes[1].swingRatio == frac(2, 3) && doc.lanes[2].followRoot == 48 && doc.lanes[2].followChannel == 2)
        #expect(doc.notes(inLane: 0).map(\.id) == [1, 2])
        #expect(doc.note(3)?.key == 42)
        #expect(doc.note(99) == nil)
        #expect(doc.nextID == 5)
        let v1 = try document("tactus-pattern 1\nlength 7/2\n")
        #expect(v1.lanes.count == 1 && string(v1.lanes[0].name) == "main" && v1.lanes[0].length == frac(7, 2))
    }

    @Test("text that is not a pattern is refused with the parser's error")
    func refusesBadText() {
        guard case .failure(let error) = EditorDocument.load(bytes("tactus-pattern 1\nlength 4\nnote 0 1 60 0\n")) else {
            Issue.record("accepted")
            return
        }
        #expect(error.message == "line 3: velocity must be 1-127, found 0")
    }
}

@Suite("Editor document: edits keep the text")
struct EditorDocumentEditTests {
    @Test("a moved note keeps its line: only the changed field is rewritten, spacing and comment stay")
    func movedNoteKeepsItsLine() throws {
        var doc = try EditorDocument(parsing: DefaultPattern.bytes)
        _ = try doc.moveNote(id(doc, 1), start: frac(3, 2), key: 55).get()
        let expected = string(DefaultPattern.bytes).replacing(
            "note 1     1/4  55  90      # G3 on beat 2", with: "note 1.5     1/4  55  90      # G3 on beat 2")
        #expect(string(doc.text()) == expected)
        #expect(textMatches(doc))
    }

    @Test("each field is rewritten in the writer's spelling; a key written as a name stays a name")
    func fieldsInWriterSpelling() throws {
        var doc = try document("tactus-pattern 1\nlength 4\nnote 0    1/2  C4 100 2  # root\nnote 1 1 64 90\n")
        var a = doc.notes[0]
        a.start = frac(1, 3)
        a.duration = frac(1, 512)
        a.key = 61
        a.velocity = 7
        var b = doc.notes[1]
        b.key = 65
        _ = try doc.update([a, b]).get()
        #expect(string(doc.text()) == "tactus-pattern 1\nlength 4\nnote 1/3    0.001953125  C#4 7 2  # root\nnote 1 1 65 90\n")
        #expect(textMatches(doc))
        // Back to the written values: the line is as it was.
        a.start = .zero
        a.duration = frac(1, 2)
        a.key = 60
        a.velocity = 100
        _ = try doc.update([a]).get()
        #expect(string(doc.text()).hasPrefix("tactus-pattern 1\nlength 4\nnote 0    1/2  C4 100 2  # root\n"))
    }

    @Test("a deleted note's line goes; its comment stays on a line of its own and the notice says so")
    func deletedNoteComment() throws {
        var doc = try document("tactus-pattern 1\nlength 4\nnote 0 1 60 100   # the root\nnote 1 1 62 100\nnote 2 1 64 100\n")
        do { let r = doc.removeNote(id(doc, 0)); #expect(r) }
        #expect(string(doc.text()) == "tactus-pattern 1\nlength 4\n# the root\nnote 1 1 62 100\nnote 2 1 64 100\n")
        #expect(doc.notice.map(string) == "the comment on line 3 stays, on a line of its own: its note was deleted")
        do { let r = doc.removeNote(id(doc, 1)); #expect(r) }
        #expect(string(doc.text()) == "tactus-pattern 1\nlength 4\n# the root\nnote 1 1 62 100\n")
        #expect(doc.notice == nil)
        do { let r = doc.removeNote(12345); #expect(!r) }
        #expect(textMatches(doc))
    }

    @Test("several comments orphaned at once are counted in the notice")
    func severalOrphans() throws {
        var doc = try document("tactus-pattern 1\nlength 4\nnote 0 1 60 100 # a\nnote 1 1 62 100\nnote 2 1 64 100 # c\n")
        do { let r = doc.removeNotes([id(doc, 0), id(doc, 2)]); #expect(r == 2) }
        #expect(string(doc.text()) == "tactus-pattern 1\nlength 4\n# a\nnote 1 1 62 100\n# c\n")
        #expect(doc.notice.map(string) == "2 comments stay, each on a line of its own, from line 3 on: their notes were deleted")
    }

    @Test("a one-line pattern (jalv.gtk3's text field) stays one line: statements go and come with their ';'")
    func oneLinePattern() throws {
        var doc = try document("tactus-pattern 1; length 4; note 0 1 C4 100; note 1 1 62 90 # end")
        do { let r = doc.removeNote(id(doc, 0)); #expect(r) }
        #expect(string(doc.text()) == "tactus-pattern 1; length 4; note 1 1 62 90 # end")
        _ = try doc.addNote(lane: 0, start: frac(2), duration: frac(1, 2), key: 64, velocity: 100).get()
        #expect(string(doc.text()) == "tactus-pattern 1; length 4; note 1 1 62 90; note 2 0.5 64 100 # end")
        do { let r = doc.removeNote(id(doc, 0)); #expect(r) }
        do { let r = doc.removeNote(id(doc, 0)); #expect(r) }
        #expect(string(doc.text()) == "tactus-pattern 1; length 4 # end")
        _ = try doc.addNote(lane: 0, start: frac(0), duration: frac(1), key: 60, velocity: 90).get()
        #expect(string(doc.text()) == "tactus-pattern 1; length 4; note 0 1 60 90 # end")
        #expect(textMatches(doc))
    }

    @Test("CR LF and a byte-order mark stay; added lines end in CR LF")
    func crlfAndBOM() throws {
        let text = [0xEF, 0xBB, 0xBF] + bytes("tactus-pattern 1\r\nlength 4\r\nnote 0 1 60 100 # one\r\n")
        var doc = try EditorDocument(parsing: text)
        _ = try doc.addNote(lane: 0, start: frac(1), duration: frac(1), key: 62, velocity: 100).get()
        _ = try doc.setVelocity(id(doc, 0), 50).get()
        #expect(doc.text() == [0xEF, 0xBB, 0xBF] + bytes("tactus-pattern 1\r\nlength 4\r\nnote 0 1 60 50 # one\r\nnote 1 1 62 100\r\n"))
        #expect(textMatches(doc))
    }

    @Test("a text without a final line end gets none after an added last line")
    func noFinalLineEnd() throws {
        var doc = try document("tactus-pattern 1\nlength 4")
        _ = try doc.addNote(lane: 0, start: frac(0), duration: frac(1), key: 60, velocity: 100).get()
        #expect(string(doc.text()) == "tactus-pattern 1\nlength 4\nnote 0 1 60 100")
        #expect(textMatches(doc))
    }

    @Test("an added note goes after its lane's last note, or after the lane's line when it has none")
    func addedNotePlace() throws {
        var doc = try document(laneExample)
        let hat = try doc.addNote(lane: 1, start: frac(1, 2), duration: frac(1, 8), key: 46, velocity: 70, channel: 10).get()
        let empty = try doc.addNote(lane: 2, start: frac(1), duration: frac(1), key: 48, velocity: 100).get()
        let kick = try doc.addNote(lane: 0, start: frac(1), duration: frac(1, 4), key: 36, velocity: 100, channel: 10).get()
        #expect([hat, empty, kick] == [5, 6, 7])
        let expected = """
            tactus-pattern 2
            seed 7
            # drums first
            lane kick length 4 channel 10   # the kick
            note 0 1/4 36 110
            note 5/2 1/4 C2 90 prob=1/2     # ghost
            note 1 0.25 36 100
            lane hats length 3/2 swing 2/3 1/4
            note 0 1/8 42 80 10
            note 0.5 0.125 46 70 10
            lane empty length 2 follow C3 in 2
            note 1 1 48 100
            lane bass length 7 follow 48
            note 0 1/2 36 100
            # the end

            """
        #expect(string(doc.text()) == expected)
        #expect(doc.notes.map(\.id) == [1, 2, 7, 3, 5, 6, 4])
        #expect(doc.notes.map(\.lane) == [0, 0, 0, 1, 1, 2, 3])
        #expect(textMatches(doc))
        // Version 1 without notes: after the length line.
        var v1 = try document("tactus-pattern 1\n# header comment\nlength 4 # a bar\n# tail\n")
        _ = try v1.addNote(lane: 0, start: frac(0), duration: frac(1), key: 60, velocity: 100).get()
        #expect(string(v1.text()) == "tactus-pattern 1\n# header comment\nlength 4 # a bar\nnote 0 1 60 100\n# tail\n")
    }

    @Test("a new note's channel is left out when it is the lane's, prob= when 1")
    func newNoteChannel() throws {
        var doc = try document("tactus-pattern 2\nlane d length 4 channel 10\n")
        _ = try doc.addNote(lane: 0, start: frac(0), duration: frac(1), key: 36, velocity: 100).get()
        _ = try doc.addNote(lane: 0, start: frac(1), duration: frac(1), key: 38, velocity: 100, channel: 2).get()
        #expect(string(doc.text()) == "tactus-pattern 2\nlane d length 4 channel 10\nnote 0 1 36 100\nnote 1 1 38 100 2\n")
        #expect(doc.notes.map(\.channel) == [10, 2])
    }

    @Test("a changed loop length rewrites only the length field, lane options and comment stay")
    func lengthChange() throws {
        var v1 = try document("tactus-pattern 1\nlength 8/2   # one bar\nnote 0 1 60 100\n")
        _ = try v1.setLength(ofLane: 0, to: frac(3)).get()
        #expect(string(v1.text()) == "tactus-pattern 1\nlength 3   # one bar\nnote 0 1 60 100\n")
        var v2 = try document(laneExample)
        _ = try v2.setLength(ofLane: 1, to: frac(2)).get()
        #expect(string(v2.text()).contains("\nlane hats length 2 swing 2/3 1/4\n"))
        #expect(v2.pattern().length == frac(28))
        #expect(textMatches(v2))
    }
}

@Suite("Editor document: refused edits change nothing")
struct EditorDocumentRuleTests {
    private func rejected(_ result: Result<Void, EditRejection>) -> EditRejection? {
        if case .failure(let r) = result { return r }
        return nil
    }

    @Test("start outside the lane, duration 0, key or velocity out of range: the parser's reasons")
    func noteRules() throws {
        var doc = try document("tactus-pattern 1\nlength 4\nnote 0 1 60 100\n")
        let before = doc.text()
        let n = id(doc, 0)
        #expect(rejected(doc.moveNote(n, start: frac(4), key: 60))?.message == "note start must be less than the pattern length")
        #expect(rejected(doc.moveNote(n, start: frac(-1, 4), key: 60))?.message == "start must not be negative")
        #expect(rejected(doc.moveNote(n, start: frac(0), key: 128))?.message == "key must be 0-127, found 128")
        #expect(rejected(doc.resizeNote(n, duration: .zero))?.message == "note duration must be greater than 0")
        #expect(rejected(doc.resizeNote(n, duration: frac(1, 2_147_483_647 * 2 + 1)))?.message.hasSuffix("2^31 or more") == true)
        #expect(rejected(doc.setVelocity(n, 0))?.message == "velocity must be 1-127, found 0")
        #expect(rejected(doc.setVelocity(77, 10))?.message == "there is no note 77")
        if case .success = doc.addNote(lane: 0, start: frac(9), duration: frac(1), key: 60, velocity: 100) { Issue.record("added past the end") }
        if case .success = doc.addNote(lane: 1, start: frac(0), duration: frac(1), key: 60, velocity: 100) { Issue.record("added to no lane") }
        #expect(doc.text() == before)
        #expect(doc.notes.count == 1)
    }

    @Test("a group update is all or nothing")
    func allOrNothing() throws {
        var doc = try document("tactus-pattern 1\nlength 4\nnote 0 1 60 100\nnote 3 1 62 100\n")
        var a = doc.notes[0]
        var b = doc.notes[1]
        a.start = frac(1)
        b.start = frac(4)
        #expect(rejected(doc.update([a, b])) != nil)
        #expect(doc.notes[0].start == .zero)
    }

    @Test("the loop never shrinks past a note, and a version-2 length must keep the lanes' cycle within the limits")
    func lengthRules() throws {
        var doc = try document("tactus-pattern 1\nlength 4\nnote 0 1 60 100\nnote 3 1 62 100\nnote 3.5 1 62 100\n")
        #expect(rejected(doc.setLength(ofLane: 0, to: frac(3)))?.message == "2 notes start at or after that length; move or delete them first")
        #expect(rejected(doc.setLength(ofLane: 0, to: frac(7, 2)))?.message == "a note starts at or after that length; move or delete it first")
        #expect(rejected(doc.setLength(ofLane: 0, to: .zero))?.message == "length must be greater than 0")
        #expect(rejected(doc.setLength(ofLane: 0, to: frac(1_000_001)))?.message == "length is larger than 1000000 beats")
        #expect(doc.lastStart(inLane: 0) == frac(7, 2))
        _ = try doc.setLength(ofLane: 0, to: frac(15, 4)).get()
        var lanes = try document("tactus-pattern 2\nlane a length 4\nlane b length 3\n")
        #expect(
            rejected(lanes.setLength(ofLane: 1, to: frac(999_999, 1000)))?.message
                == "the lanes realign only after more than 1000000 beats (lane 'b' of length 999.999 does not fit the others)")
        #expect(lanes.lanes[1].length == frac(3))
        #expect(rejected(lanes.setLength(ofLane: 2, to: frac(1))) != nil)
    }

    @Test("no more than 65536 notes")
    func noteLimit() throws {
        var text = "tactus-pattern 1\nlength 4\n"
        text.reserveCapacity(70 * 65536)
        for _ in 0..<65536 { text += "note 0 1 60 100\n" }
        var doc = try document(text)
        guard case .failure(let r) = doc.addNote(lane: 0, start: frac(0), duration: frac(1), key: 60, velocity: 100) else {
            Issue.record("note 65537 accepted")
            return
        }
        #expect(r.message == "the pattern has more than 65536 notes")
        do { let r = doc.removeNotes(doc.notes.map(\.id)); #expect(r == 65536) }
        #expect(string(doc.text()) == "tactus-pattern 1\nlength 4\n")
    }

    @Test("ids stay with their notes through edits and are never reused")
    func stableIds() throws {
        var doc = try document("tactus-pattern 1\nlength 4\nnote 0 1 60 100\nnote 1 1 62 100\nnote 2 1 64 100\n")
        do { let r = doc.removeNote(2); #expect(r) }
        let added = try doc.addNote(lane: 0, start: frac(3), duration: frac(1), key: 67, velocity: 100).get()
        #expect(added == 4)
        #expect(doc.note(3)?.key == 64)
        #expect(doc.note(2) == nil)
        #expect(doc.index(ofNote: 4) == 2)
        let fresh = try EditorDocument(parsing: bytes("tactus-pattern 1\nlength 4\nnote 0 1 60 100\n"), firstID: 40)
        #expect(fresh.notes[0].id == 40 && fresh.nextID == 41)
    }
}

@Suite("Editor document: controllers and locks (pattern format 3)")
struct EditorDocumentControllerTests {
    private let text = """
        tactus-pattern 3
        lane bass length 4 channel 2 ramp-step 1/16   # the filter
        note 0 1 36 100 prob=1/2 cc74=110 cc1=3   # accent
        cc 74 0 20
        note 2 1 38 90 cc74=40
        cc 74 2 100 ramp
        bend 1 -8192 ramp
        lane drums length 1 channel 10
        note 0 1/4 36 120 cc7=127

        """

    @Test("a one-pattern version-3 text with controllers is edited; moving, resizing and re-velocitying a note keeps its locks, prob= and the controller lines")
    func editingKeepsControllers() throws {
        var doc = try EditorDocument(parsing: Array(text.utf8))
        #expect(doc.controllers.count == 3 && doc.notes[0].locks.count == 2)
        _ = try doc.moveNote(doc.notes[0].id, start: frac(1, 2), key: 40).get()
        _ = try doc.resizeNote(doc.notes[1].id, duration: frac(3, 2)).get()
        _ = try doc.setVelocity(doc.notes[2].id, 99).get()
        let written = string(doc.text())
        #expect(written == text
            .replacing("note 0 1 36 100 prob=1/2 cc74=110 cc1=3", with: "note 0.5 1 40 100 prob=1/2 cc74=110 cc1=3")
            .replacing("note 2 1 38 90 cc74=40", with: "note 2 1.5 38 90 cc74=40")
            .replacing("note 0 1/4 36 120 cc7=127", with: "note 0 1/4 36 99 cc7=127"))
        #expect(textMatches(doc))
        #expect(try PatternParser.parse(bytes: doc.text()).controllers == PatternParser.parse(text).controllers)
    }

    @Test("update writes a changed channel and prob= into the line, before the locks")
    func updateWritesChannelAndProbability() throws {
        var doc = try EditorDocument(parsing: Array(text.utf8))
        var a = doc.notes[0]
        a.channel = 5
        a.probability = BeatRational(1)
        var b = doc.notes[1]
        b.probability = frac(1, 4)
        b.channel = 3
        _ = try doc.update([a, b]).get()
        let written = string(doc.text())
        #expect(written.contains("note 0 1 36 100 5 cc74=110 cc1=3   # accent\n"))
        #expect(written.contains("note 2 1 38 90 3 prob=0.25 cc74=40\n"))
        #expect(textMatches(doc))
        #expect(doc.notes[0].locks == [ControllerLock(controller: 74, value: 110), ControllerLock(controller: 1, value: 3)])
    }

    @Test("a lane set again keeps its ramp-step; a lane's new channel names the channel of its notes before their locks")
    func laneKeepsRampStep() throws {
        var doc = try EditorDocument(parsing: Array(text.utf8))
        _ = try doc.setLane(PatternLane(name: Array("bass".utf8), length: frac(4), channel: 3)).get()
        let written = string(doc.text())
        #expect(written.contains("lane bass length 4 channel 3 ramp-step 0.0625"))
        #expect(written.contains("note 2 1 38 90 2 cc74=40"))
        #expect(textMatches(doc))
    }
}
