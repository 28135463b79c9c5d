import Testing
import TactusEngine
import TactusModel
import TactusEditorModel

// The piano roll on a text of several patterns (issue 29, "Triggers and
// controls", the editor): one pattern's lanes edited, the rest of the text
// byte for byte; the pattern buttons and the song's row.

private let arrangementText = """
    tactus-pattern 3
    # a drum song
    seed 9
    switch at bars 2 phase keep
    trigger program
    pattern intro program 3   # the intro
    lane kit length 4 channel 10
    note 0 1/4 36 110   # kick
    note 2 1/4 38 100
    pattern groove
    lane kick length 4 channel 10
    note 0 1/4 36 115
    lane hats length 1/2 channel 10
    note 0 1/8 42 70 ; note 1/4 1/8 42 45
    pattern fill
    lane toms length 4 channel 10
    note 0 1/8 50 100
    song loop
    play intro 2
    play groove 6   # six bars
    play fill

    """

/// The lines of `a` that are not in `b` at the same place, and the reverse
/// (the texts are compared line by line; an added or removed line shifts the rest).
private func lines(_ t: [UInt8]) -> [String] {
    string(t).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
}

@Suite("Editor: several patterns")
struct EditorPatternsTests {
    @Test("each pattern of a text is edited alone: its notes and lanes, the others, the song and the comments kept byte for byte")
    func editsOnePattern() throws {
        let text = bytes(arrangementText)
        for index in 0..<3 {
            let doc = try EditorDocument(parsing: text, pattern: index)
            #expect(doc.textVersion == 3 && doc.version == 2 && doc.patternIndex == index)
            #expect(doc.patternNames.map(string) == ["intro", "groove", "fill"])
            #expect(doc.song?.entries.count == 3 && doc.switchRule.at == .bars(2))
            #expect(doc.text() == text)
        }
        var groove = try EditorDocument(parsing: text, pattern: 1)
        #expect(groove.lanes.map { string($0.name) } == ["kick", "hats"])
        #expect(groove.notes.count == 3 && groove.seed == 9)
        // Move the kick, change the second hat's velocity, add a note to each lane, lengthen the hats.
        var kick = groove.notes[0]
        kick.start = frac(1, 2)
        var hat = groove.notes[2]
        hat.velocity = 99
        #expect(throws: Never.self) { try groove.update([kick, hat]).get() }
        _ = try groove.addNote(lane: 0, start: frac(3), duration: frac(1, 4), key: 36, velocity: 90).get()
        _ = try groove.addNote(lane: 1, start: frac(1, 8), duration: frac(1, 16), key: 46, velocity: 50).get()
        #expect(throws: Never.self) { try groove.setLength(ofLane: 1, to: frac(1)).get() }
        let edited = groove.text()
        let arrangement = try PatternParser.arrangement(bytes: edited)
        let before = try PatternParser.arrangement(bytes: text)
        #expect(arrangement.patterns[0] == before.patterns[0] && arrangement.patterns[2] == before.patterns[2])
        #expect(arrangement.song == before.song && arrangement.switchRule == before.switchRule && arrangement.triggers == before.triggers)
        #expect(arrangement.patterns[1].pattern == groove.pattern())
        // Every line outside the groove's is as it was, in order.
        let old = lines(text), new = lines(edited)
        let grooveStart = old.firstIndex(of: "pattern groove")!, fillStart = old.firstIndex(of: "pattern fill")!
        #expect(Array(new[..<(grooveStart + 1)]) == Array(old[..<(grooveStart + 1)]))
        #expect(Array(new.suffix(old.count - fillStart)) == Array(old[fillStart...]))
        #expect(new.contains("note 0.5 1/4 36 115") && new.contains("note 0 1/8 42 70 ; note 1/4 1/8 42 99; note 0.125 0.0625 46 50"))
        #expect(new.contains("note 3 0.25 36 90") && new.contains("lane hats length 1 channel 10"))
        // The change the editor sends names only the groove's lines.
        let change = PatternChange.between(text, edited)
        #expect((try? change.apply(to: text).get()) == edited)
        // Deleting every note of the pattern keeps its lanes and the rest.
        groove.removeNotes(groove.notes.map { $0.id })
        let emptied = try PatternParser.arrangement(bytes: groove.text())
        #expect(emptied.patterns[1].pattern.notes.isEmpty && emptied.patterns[1].pattern.lanes.count == 2)
        #expect(emptied.patterns[0] == before.patterns[0] && emptied.song == before.song)
    }

    @Test("a lane length that breaks the song's limits is refused; a new lane in a text of patterns is refused")
    func limits() throws {
        var doc = try EditorDocument(parsing: bytes("tactus-pattern 3\npattern a\nlane x length 4\npattern b\nlane y length 4\nsong loop\nplay a 9999\n"))
        // 9999 passes of a 500,000-beat lane pass the song's 2^32 beats.
        guard case .failure(.breaksFormat(let e)) = doc.setLength(ofLane: 0, to: frac(500_000)) else {
            Issue.record("a song past 2^32 beats was taken")
            return
        }
        #expect(e.reasonText.contains("song"))
        #expect(doc.lanes[0].length == frac(4))
        guard case .failure = doc.setLane(PatternLane(name: Array("new".utf8), length: frac(4))) else {
            Issue.record("a lane was appended after the song")
            return
        }
    }

    @Test("the editor shows another pattern without an undo step, keeps it across a new text by name, and undoes per edit")
    func selectAndUndo() throws {
        var e = PianoRollEditor(document: try document(arrangementText), width: 800, height: 400)
        #expect(e.document.patternIndex == 0)
        #expect(e.selectPattern(2).redraw)
        #expect(e.document.patternIndex == 2 && e.lane.name == bytes("toms") && !e.canUndo)
        #expect(e.text() == bytes(arrangementText))
        // An edit in the fill, then one in the intro.
        e = raisedByKeys(e)
        let afterFill = e.text()
        #expect(afterFill != bytes(arrangementText))
        _ = e.selectPattern(0)
        e = raisedByKeys(e)
        #expect(e.document.patternIndex == 0)
        // Each undo goes back to the state before its edit, the pattern shown then with it.
        #expect(e.undo().commit)
        #expect(e.text() == afterFill && e.document.patternIndex == 0)
        #expect(e.undo().commit)
        #expect(e.text() == bytes(arrangementText) && e.document.patternIndex == 2)
        // A new text (a preset) that still has `fill`: the fill stays shown.
        _ = e.selectPattern(2)
        let renamed = lines(bytes(arrangementText)).map { line in
            line == "pattern intro program 3   # the intro" ? "pattern opening program 3" : line == "play intro 2" ? "play opening 2" : line
        }.joined(separator: "\n")
        #expect(throws: Never.self) { try e.replace(with: bytes(renamed)).get() }
        #expect(e.document.patternIndex == 2 && e.text() == bytes(renamed))
        let single = "tactus-pattern 2\nlane a length 4\nnote 0 1 60 100\n"
        #expect(throws: Never.self) { try e.replace(with: bytes(single)).get() }
        #expect(e.document.patternIndex == 0 && e.document.patternNames.count == 1)
    }

    /// The notes of the lane shown raised by a semitone (Ctrl+A, Up): one undo step.
    private func raisedByKeys(_ editor: PianoRollEditor) -> PianoRollEditor {
        var e = editor
        _ = e.key(EditorKey(.character(UInt8(ascii: "a")), modifiers: .control))
        #expect(e.key(EditorKey(.up)).commit)
        return e
    }

    @Test("mute buttons only for the pattern that plays (the mute controls address its lanes)")
    func mutesFollowThePlayingPattern() throws {
        var e = PianoRollEditor(document: try document(arrangementText), width: 800, height: 400)
        _ = e.selectPattern(1)
        #expect(e.isStacked && e.muteButton(ofLane: 0) == nil && e.toggleMute(0) == .none)
        _ = e.setScene(PatternScene(playing: 2))
        #expect(e.muteButton(ofLane: 0) != nil)
        #expect(e.toggleMute(1).mute == LaneMute(lane: 1, muted: true))
        _ = e.setScene(PatternScene(playing: 1, queued: 2, switchBeat: 8))
        #expect(e.muteButton(ofLane: 0) == nil)
    }

    @Test("the scene's rows: a button per pattern (its play mark queues, its name edits), the song's switch and entries")
    func sceneLayout() throws {
        let doc = try document(arrangementText)
        let layout = SceneLayout(top: 20, width: 600, document: doc)
        #expect(layout.isShown && layout.height == SceneLayout.patternRowHeight + SceneLayout.songRowHeight)
        let b = try #require(layout.patternButton(1))
        #expect(layout.hit(x: b.x + 5, y: 30, currentEntry: nil) == .queue(1))
        #expect(layout.hit(x: b.x + 40, y: 30, currentEntry: nil) == .edit(1))
        #expect(layout.hit(x: 10, y: 20 + SceneLayout.patternRowHeight + 5, currentEntry: nil) == .songSwitch)
        let entries = layout.songEntries(current: nil)
        #expect(entries.map { $0.entry } == [0, 1, 2])
        #expect(layout.hit(x: entries[2].x + 3, y: 20 + SceneLayout.patternRowHeight + 5, currentEntry: nil) == .songEntry(2))
        #expect(layout.hit(x: 10, y: 19, currentEntry: nil) == nil)
        // A text of one pattern has no rows.
        #expect(!SceneLayout(top: 20, width: 600, document: try document("tactus-pattern 2\nlane a length 4\n")).isShown)
        // A long song scrolls to the entry playing.
        let long = "tactus-pattern 3\npattern a\nlane x length 1\npattern b\nlane y length 1\nsong loop\n"
            + String(repeating: "play a\nplay b\n", count: 200)
        let many = SceneLayout(top: 20, width: 600, document: try document(long))
        let shown = many.songEntries(current: 300)
        #expect(shown.contains { $0.entry == 300 } && shown.count < 400)
        // The beats left to a queued switch, counted in.
        let scene = PatternScene(playing: 1, queued: 2, switchBeat: 8)
        #expect(scene.beatsLeft(atBeat: 4.0) == 4 && scene.beatsLeft(atBeat: 7.5) == 1 && scene.beatsLeft(atBeat: nil) == nil)
        #expect(PatternScene(playing: 1).beatsLeft(atBeat: 4) == nil)
    }

    @Test("the playhead counts from the origin the plugin says (issue 29): after phase restart at beat 6 of a 4-beat pattern, host beat 7 is its beat 1")
    func origin() {
        // An editor that opens after the switch: its first scene message carries the origin.
        let opened = PatternScene(songOn: false).updated(with: PatternScene(playing: 2, origin: 6))
        #expect(opened.playing == 2 && opened.origin == 6 && !opened.songOn)  // the song control stays the host's
        #expect(opened.laneBeat(atHostBeat: 7, length: 4) == 1)
        #expect(PatternScene(playing: 2).laneBeat(atHostBeat: 7, length: 4) == 3)  // what origin 0 would draw
        // A lane of 3 beats in it, a fractional origin (a switch at beat 6.5, `now`).
        #expect(PatternScene(playing: 2, origin: 6.5).laneBeat(atHostBeat: 10, length: 3) == 0.5)
        // Before the origin (a host that jumped back): still in the loop.
        #expect(opened.laneBeat(atHostBeat: 5, length: 4) == 3)
        #expect(opened.laneBeat(atHostBeat: .nan, length: 4) == nil && opened.laneBeat(atHostBeat: 7, length: 0) == nil)
        // A song entry's start, as the plugin says it (entry 3 of a looping song, its second pass).
        let song = PatternScene().updated(with: PatternScene(playing: 3, songEntry: 3, origin: 72))
        #expect(song.laneBeat(atHostBeat: 73, length: 8) == 1)
        #expect(PatternScene(origin: .infinity).origin == 0)
    }

    @Test("a large text of several patterns: an edit of one changes only its lines, quickly")
    func largeText() throws {
        var text = "tactus-pattern 3\n"
        for p in 0..<4 {
            text += "pattern p\(p)\nlane a length 512\n"
            for i in 0..<4000 { text += "note \(i / 8) 1/8 \(40 + (i + p) % 40) \(50 + i % 70)\n" }
        }
        let original = bytes(text)
        var doc = try EditorDocument(parsing: original, pattern: 2)
        #expect(doc.notes.count == 4000)
        var n = doc.notes[1234]
        n.key = 100
        #expect(throws: Never.self) { try doc.update([n]).get() }
        let edited = doc.text()
        let change = PatternChange.between(original, edited)
        #expect(change.encoded.count < 200)
        let a = try PatternParser.arrangement(bytes: edited), b = try PatternParser.arrangement(bytes: original)
        #expect(a.patterns[0] == b.patterns[0] && a.patterns[1] == b.patterns[1] && a.patterns[3] == b.patterns[3])
        #expect(a.patterns[2].pattern.notes[1234].key == 100)
    }
}
