import Testing
import TactusEngine
import TactusModel
import TactusEditorModel

// The piano roll's state machine, driven as a UI drives it, at exact pixels
// of `testGeometry` (beat b at x = 50 + 100 b, key k's row around y(k)).

private let oneNote = "tactus-pattern 1\nlength 4\nnote 1 1/2 60 100   # the one\n"

@Suite("Piano roll editor: mouse")
struct PianoRollEditorMouseTests {
    @Test("dragging a note's body moves it on the grid and by rows; the release commits one undo step")
    func dragToMove() throws {
        var e = try editor(oneNote)
        let press = e.press(x: 175, y: y(60), button: .left)
        #expect(press.audition == EditorAudition(key: 60, velocity: 100, channel: 1))
        #expect(press.commit == false)
        #expect(e.selection.ids == [1])
        // +0.6 beat: the start 1.6 lands on the nearest sixteenth, 1.5; two rows up.
        let moving = e.drag(x: 235, y: y(62))
        #expect(moving.redraw && !moving.commit)
        #expect(moving.audition == EditorAudition(key: 62, velocity: 100, channel: 1))
        #expect(e.document.notes[0].start == frac(3, 2) && e.document.notes[0].key == 62)
        let done = e.release(x: 235, y: y(62))
        #expect(done.commit && done.audition == nil)
        #expect(string(e.text()) == "tactus-pattern 1\nlength 4\nnote 1.5 1/2 62 100   # the one\n")
        #expect(e.canUndo)
    }

    @Test("a click without travel moves nothing and commits nothing")
    func clickIsNotADrag() throws {
        var e = try editor("tactus-pattern 1\nlength 4\nnote 1/7 1/2 60 100\n")
        _ = e.press(x: x(1.0 / 7) + 20, y: y(60), button: .left)
        do { let r = e.drag(x: x(1.0 / 7) + 22, y: y(60) + 2); #expect(r == .none) }
        let done = e.release(x: x(1.0 / 7) + 22, y: y(60) + 2)
        #expect(!done.commit)
        #expect(e.document.notes[0].start == frac(1, 7))
        #expect(!e.canUndo)
    }

    @Test("selected notes move together and stop at the loop's end and start")
    func groupMoveStops() throws {
        var e = try editor("tactus-pattern 1\nlength 4\nnote 1 1/2 60 100\nnote 3 1/2 64 100\n")
        _ = e.press(x: 175, y: y(60), button: .left)
        _ = e.release(x: 175, y: y(60))
        _ = e.press(x: 375, y: y(64), button: .left, modifiers: .shift)
        _ = e.release(x: 375, y: y(64))
        #expect(e.selection.ids == [1, 2])
        // Two beats right would put the second note at 5: the group stops with it at 3.75.
        _ = e.press(x: 175, y: y(60), button: .left)
        _ = e.drag(x: 375, y: y(60))
        #expect(e.document.notes.map(\.start) == [frac(7, 4), frac(15, 4)])
        // Five beats left: the first note stops at 0.
        _ = e.drag(x: -325, y: y(60))
        #expect(e.document.notes.map(\.start) == [frac(0), frac(2)])
        // Up past key 127: the group stops with the higher note at 127.
        _ = e.drag(x: 175, y: -2000)
        #expect(e.document.notes.map(\.key) == [123, 127])
        do { let r = e.release(x: 175, y: -2000); #expect(r.commit) }
        #expect(textMatches(e.document))
    }

    @Test("dragging an edge resizes: the end or the start lands on the grid, a note keeps at least a step")
    func resize() throws {
        var e = try editor(oneNote)
        // The end edge (x 196-200): +0.64 beat, the end 2.14 lands on 2.25.
        _ = e.press(x: 198, y: y(60), button: .left)
        _ = e.drag(x: 262, y: y(60))
        #expect(e.document.notes[0].duration == frac(5, 4))
        _ = e.drag(x: 0, y: y(60))
        #expect(e.document.notes[0].duration == frac(1, 4))
        do { let r = e.release(x: 0, y: y(60)); #expect(r.commit) }
        #expect(e.lastDuration == frac(1, 4))
        #expect(string(e.text()) == "tactus-pattern 1\nlength 4\nnote 1 0.25 60 100   # the one\n")
        // The start edge (x 150-154): left a quarter beat, the end stays at 1.25.
        _ = e.press(x: 151, y: y(60), button: .left)
        _ = e.drag(x: 126, y: y(60))
        #expect(e.document.notes[0].start == frac(3, 4) && e.document.notes[0].duration == frac(1, 2))
        // Right past the end: the note keeps a sixteenth.
        _ = e.drag(x: 600, y: y(60))
        #expect(e.document.notes[0].start == frac(1) && e.document.notes[0].duration == frac(1, 4))
        _ = e.release(x: 600, y: y(60))
        #expect(textMatches(e.document))
    }

    @Test("a click on empty grid adds a note in the cell clicked, the drag that follows sets its end")
    func drawNote() throws {
        var e = try editor(oneNote)
        let press = e.press(x: x(2.3), y: y(64), button: .left)
        #expect(press.audition == EditorAudition(key: 64, velocity: 100, channel: 1))
        #expect(e.document.notes.count == 2)
        let added = e.document.notes[1]
        #expect(added.start == frac(9, 4) && added.duration == frac(1, 4) && added.velocity == 100 && added.id == 2)
        #expect(e.selection.ids == [2])
        _ = e.drag(x: x(3.1), y: y(64))
        #expect(e.document.notes[1].duration == frac(3, 4))
        do { let r = e.release(x: x(3.1), y: y(64)); #expect(r.commit) }
        #expect(string(e.text()) == "tactus-pattern 1\nlength 4\nnote 1 1/2 60 100   # the one\nnote 2.25 0.75 64 100\n")
        // The next note gets the last duration and velocity touched.
        _ = e.press(x: x(1.2), y: y(60), button: .left)  // the first note: 1/2 beat, velocity 100
        _ = e.release(x: x(1.2), y: y(60))
        _ = e.press(x: x(0.1), y: y(67), button: .left)
        _ = e.release(x: x(0.1), y: y(67))
        #expect(e.document.notes[2].start == .zero && e.document.notes[2].duration == frac(1, 2))
        // Beyond the loop's end nothing is added.
        _ = e.press(x: x(4.5), y: y(60), button: .left)
        do { let r = e.release(x: x(4.5), y: y(60)); #expect(!r.commit) }
        #expect(e.document.notes.count == 3)
    }

    @Test("new notes land on every grid, and the grid off gives 1/96 beat")
    func drawOnEveryGrid() throws {
        let expected: [(SnapGrid, BeatRational)] = [
            (.quarter, frac(2)), (.eighth, frac(5, 2)), (.sixteenth, frac(5, 2)), (.eighthTriplet, frac(7, 3)), (.sixteenthTriplet, frac(5, 2)),
            (.off, frac(247, 96)),
        ]
        for (grid, start) in expected {
            var e = try editor("tactus-pattern 1\nlength 4\n", snap: grid)
            _ = e.press(x: x(2.58), y: y(60), button: .left)
            _ = e.release(x: x(2.58), y: y(60))
            #expect(e.document.notes[0].start == start, "\(grid)")
            #expect(e.document.notes[0].duration == (grid.step ?? frac(1, 4)), "\(grid)")
            #expect(textMatches(e.document))
        }
    }

    @Test("with the grid off a note moves by 1/96-beat steps and keeps its offset")
    func moveOffGrid() throws {
        var e = try editor("tactus-pattern 1\nlength 4\nnote 1/7 1/2 60 100\n", snap: .off)
        _ = e.press(x: x(1.0 / 7) + 20, y: y(60), button: .left)
        _ = e.drag(x: x(1.0 / 7) + 70, y: y(60))
        #expect(e.document.notes[0].start == frac(9, 14))
        _ = e.release(x: x(1.0 / 7) + 70, y: y(60))
        #expect(string(e.text()) == "tactus-pattern 1\nlength 4\nnote 9/14 1/2 60 100\n")
    }

    @Test("right click deletes a note; a right drag erases every note it passes")
    func erase() throws {
        var e = try editor("tactus-pattern 1\nlength 4\nnote 0 1/2 60 100\nnote 1 1/2 60 100\nnote 2 1/2 60 100 # c\n")
        _ = e.press(x: x(0.25), y: y(60), button: .right)
        #expect(e.document.notes.count == 2)
        _ = e.drag(x: x(1.25), y: y(60))
        _ = e.drag(x: x(2.25), y: y(60))
        #expect(e.document.notes.isEmpty)
        let done = e.release(x: x(2.25), y: y(60))
        #expect(done.commit)
        #expect(string(e.text()) == "tactus-pattern 1\nlength 4\n# c\n")
        #expect(e.notice.map(string) == "the comment on line 3 stays, on a line of its own: its note was deleted")
        // One undo step brings all three back.
        do { let r = e.undo(); #expect(r.commit) }
        #expect(e.document.notes.count == 3)
        #expect(string(e.text()) == "tactus-pattern 1\nlength 4\nnote 0 1/2 60 100\nnote 1 1/2 60 100\nnote 2 1/2 60 100 # c\n")
    }

    @Test("velocity: Control-drag on a note, or a press and drag in the velocity strip")
    func velocity() throws {
        var e = try editor("tactus-pattern 1\nlength 4\nnote 1 1/2 60 100\nnote 2 1/2 62 90\n")
        _ = e.press(x: 175, y: y(60), button: .left, modifiers: .control)
        _ = e.drag(x: 175, y: y(60) - 20)
        #expect(e.document.notes[0].velocity == 120)
        _ = e.drag(x: 180, y: y(60) - 200)
        #expect(e.document.notes[0].velocity == 127)
        #expect(e.document.notes[0].start == frac(1))
        do { let r = e.release(x: 180, y: y(60) - 200); #expect(r.commit) }
        #expect(e.lastVelocity == 127)
        // The strip: y 380 is velocity 64; paint across to the second stem at y 363 (127 - 0).
        _ = e.press(x: 152, y: 380, button: .left)
        #expect(e.document.notes[0].velocity == 64)
        _ = e.drag(x: 251, y: 397)
        #expect(e.document.notes[1].velocity == 1)
        do { let r = e.release(x: 251, y: 397); #expect(r.commit) }
        #expect(string(e.text()) == "tactus-pattern 1\nlength 4\nnote 1 1/2 60 64\nnote 2 1/2 62 1\n")
    }

    @Test("the loop marker sets the lane's length on the grid, never below the last note's start")
    func loopMarker() throws {
        var e = try editor(oneNote)
        _ = e.press(x: 450, y: 10, button: .left)
        _ = e.drag(x: 330, y: 10)  // 2.8 -> 2.75
        #expect(e.lane.length == frac(11, 4))
        _ = e.drag(x: 60, y: 10)  // 0.1: stops at the first sixteenth after the note at 1
        #expect(e.lane.length == frac(5, 4))
        _ = e.drag(x: 1270, y: 10)  // 12.2 -> 12.25
        do { let r = e.release(x: 1270, y: 10); #expect(r.commit) }
        #expect(string(e.text()) == "tactus-pattern 1\nlength 12.25\nnote 1 1/2 60 100   # the one\n")
        do { let r = e.undo(); #expect(r.commit) }
        #expect(e.lane.length == frac(4))
    }

    @Test("Shift-drag on empty grid draws a rubber band that selects the notes it touches")
    func rubberBand() throws {
        var e = try editor("tactus-pattern 1\nlength 4\nnote 0 1/2 60 100\nnote 1 1/2 62 100\nnote 3 1/2 64 100\n")
        _ = e.press(x: x(0.6), y: y(59), button: .left, modifiers: .shift)
        _ = e.drag(x: x(2), y: y(63))
        #expect(e.selectionRectangle == SelectionRectangle(firstBeat: 0.6, lastBeat: 2, lowKey: 59, highKey: 63))
        #expect(e.selection.ids == [2])
        // Back over the first note: the band selects what it touches now.
        _ = e.drag(x: x(0.4), y: y(63))
        #expect(e.selection.ids == [1])
        do { let r = e.release(x: x(0.4), y: y(63)); #expect(!r.commit) }
        #expect(e.selectionRectangle == nil)
    }

    @Test("the keyboard strip sounds a key; the middle button drags the view")
    func keyboardAndPan() throws {
        var e = try editor(oneNote)
        do { let r = e.press(x: 10, y: y(65), button: .left); #expect(r.audition == EditorAudition(key: 65, velocity: 100, channel: 1)) }
        do { let r = e.release(x: 10, y: y(65)); #expect(!r.commit) }
        _ = e.press(x: 400, y: 200, button: .middle)
        _ = e.drag(x: 300, y: 220)
        #expect(e.geometry.firstBeat == 1 && e.geometry.topKey == 74)
        _ = e.release(x: 300, y: 220)
    }

    @Test("hover follows the pointer while no button is held")
    func hover() throws {
        var e = try editor(oneNote)
        do { let r = e.drag(x: 198, y: y(60)); #expect(r.redraw) }
        #expect(e.hover == .note(id: 1, part: .endEdge))
        do { let r = e.drag(x: 198, y: y(60)); #expect(r == .none) }
    }

    @Test("a press while a gesture is under way finishes it first")
    func missedRelease() throws {
        var e = try editor(oneNote)
        _ = e.press(x: 175, y: y(60), button: .left)
        _ = e.drag(x: 275, y: y(60))
        let next = e.press(x: 10, y: 10, button: .left)
        #expect(next.commit)
        #expect(e.document.notes[0].start == frac(2))
        #expect(e.canUndo)
    }
}

@Suite("Piano roll editor: keys, undo, lanes, a new pattern")
struct PianoRollEditorKeyTests {
    @Test("Delete and BackSpace delete the selection; Ctrl+A selects the lane")
    func delete() throws {
        var e = try editor("tactus-pattern 1\nlength 4\nnote 0 1 60 100\nnote 1 1 62 100\n")
        do { let r = e.key(EditorKey(.delete)); #expect(r == .none) }
        _ = e.key(.character("a", modifiers: .control))
        #expect(e.selection.ids == [1, 2])
        let effects = e.key(EditorKey(.backspace))
        #expect(effects.commit && effects.redraw)
        #expect(e.document.notes.isEmpty && e.selection.isEmpty)
    }

    @Test("undo and redo: Ctrl+Z, Ctrl+Shift+Z, Ctrl+Y; at most 200 steps")
    func undoRedo() throws {
        var e = try editor(oneNote)
        _ = e.key(.character("a", modifiers: .control))
        do { let r = e.key(EditorKey(.right)); #expect(r.commit) }
        #expect(e.document.notes[0].start == frac(5, 4))
        do { let r = e.key(.character("z", modifiers: .control)); #expect(r.commit) }
        #expect(e.document.notes[0].start == frac(1) && e.selection.ids == [1])
        do { let r = e.key(.character("Z", modifiers: [.control, .shift])); #expect(r.commit) }
        #expect(e.document.notes[0].start == frac(5, 4))
        _ = e.key(.character("z", modifiers: .control))
        do { let r = e.key(.character("y", modifiers: .control)); #expect(r.commit) }
        #expect(e.document.notes[0].start == frac(5, 4))
        do { let r = e.redo(); #expect(r == .none) }
        for _ in 0..<250 { _ = e.key(EditorKey(e.document.notes[0].start < frac(2) ? .right : .left)) }
        var undone = 0
        while e.canUndo {
            _ = e.undo()
            undone += 1
        }
        #expect(undone == 200)
    }

    @Test("big patterns keep fewer undo steps: the snapshots hold at most 2^20 notes together")
    func undoBudget() throws {
        var text = "tactus-pattern 1\nlength 4\n"
        for i in 0..<20_000 { text += "note \(i % 4) 1 \(i % 100) 100\n" }
        var e = try editor(text)
        _ = e.selectLane(0)
        _ = e.key(.character("a", modifiers: .control))
        for i in 0..<60 { _ = e.key(EditorKey(i % 2 == 0 ? .up : .down)) }
        var undone = 0
        while e.canUndo {
            _ = e.undo()
            undone += 1
        }
        #expect(undone == (1 << 20) / 20_000)
    }

    @Test("the pattern the plugin reports at opening replaces the document without an undo step")
    func openingPattern() throws {
        var e = try editor(oneNote)
        _ = e.key(.character("a", modifiers: .control))
        _ = e.key(EditorKey(.delete))
        #expect(e.canUndo)
        _ = try e.replace(with: bytes("tactus-pattern 1\nlength 2\nnote 0 1 60 100\n"), undoable: false).get()
        #expect(!e.canUndo && !e.canRedo)
        #expect(e.lane.length == frac(2))
    }

    @Test("arrows move the selection by a grid step or a semitone (Shift: an octave), refused at the edges")
    func arrows() throws {
        var e = try editor("tactus-pattern 1\nlength 4\nnote 0 1 60 100\n", snap: .eighthTriplet)
        _ = e.key(.character("a", modifiers: .control))
        do { let r = e.key(EditorKey(.left)); #expect(r == .none) }  // the start would be negative
        _ = e.key(EditorKey(.right))
        #expect(e.document.notes[0].start == frac(1, 3))
        let up = e.key(EditorKey(.up, modifiers: .shift))
        #expect(up.audition == EditorAudition(key: 72, velocity: 100, channel: 1))
        _ = e.key(EditorKey(.down))
        #expect(e.document.notes[0].key == 71)
        #expect(string(e.text()) == "tactus-pattern 1\nlength 4\nnote 1/3 1 71 100\n")
        _ = e.key(EditorKey(.escape))
        #expect(e.selection.isEmpty)
        // Without a selection the arrows scroll.
        _ = e.key(EditorKey(.right))
        _ = e.key(EditorKey(.up))
        #expect(e.geometry.firstBeat == 1 && e.geometry.topKey == 73)
    }

    @Test("g cycles the snap grid, f toggles following, + and - zoom")
    func viewKeys() throws {
        var e = try editor(oneNote)
        _ = e.key(.character("g"))
        #expect(e.snap == .eighthTriplet)
        _ = e.key(.character("G", modifiers: .shift))
        #expect(e.snap == .sixteenth)
        _ = e.key(.character("f"))
        #expect(e.followPlayhead)
        _ = e.key(.character("+"))
        #expect(e.geometry.pixelsPerBeat == 125)
        _ = e.key(.character("-"))
        #expect(e.geometry.pixelsPerBeat == 100)
        // Following: the page turns when the playhead leaves the view (8 beats wide).
        do { let r = e.playheadMoved(toBeat: 5); #expect(r == .none) }
        do { let r = e.playheadMoved(toBeat: 9.5); #expect(r.redraw) }
        #expect(e.geometry.firstBeat == 9)
    }

    @Test("Escape cancels a drag: the note goes back")
    func escapeCancels() throws {
        var e = try editor(oneNote)
        _ = e.press(x: 175, y: y(60), button: .left)
        _ = e.drag(x: 375, y: y(60))
        do { let r = e.key(.character("z", modifiers: .control)); #expect(r == .none) }  // editing keys wait for the release
        do { let r = e.key(EditorKey(.escape)); #expect(r.redraw && !r.commit) }
        #expect(e.document.notes[0].start == frac(1))
        do { let r = e.release(x: 375, y: y(60)); #expect(!e.isDragging && r == .none) }
        #expect(!e.canUndo)
    }

    @Test("lanes are tabs: Tab and PageDown go forward, Shift+Tab and PageUp back; edits go to the lane shown")
    func lanes() throws {
        var e = try editor("tactus-pattern 2\nlane kick length 4 channel 10\nnote 0 1 36 100\nlane bass length 3\nnote 1 1 60 90\n")
        #expect(e.laneNotes.map(\.id) == [1])
        _ = e.key(.character("a", modifiers: .control))
        _ = e.key(EditorKey(.tab))
        #expect(e.laneIndex == 1 && e.selection.isEmpty)
        #expect(e.laneNotes.map(\.id) == [2])
        #expect(e.hitTest(x: x(0.5), y: y(36)) == .none || e.hitTest(x: x(0.5), y: y(36)) != .note(id: 1, part: .body))
        e.geometry.topKey = 72
        _ = e.press(x: x(2), y: y(62), button: .left)
        _ = e.release(x: x(2), y: y(62))
        #expect(e.document.notes.map(\.lane) == [0, 1, 1])
        #expect(string(e.text()) == "tactus-pattern 2\nlane kick length 4 channel 10\nnote 0 1 36 100\nlane bass length 3\nnote 1 1 60 90\nnote 2 0.25 62 100\n")
        _ = e.key(EditorKey(.tab))
        #expect(e.laneIndex == 0)
        _ = e.key(EditorKey(.tab, modifiers: .shift))
        #expect(e.laneIndex == 1)
        _ = e.key(EditorKey(.pageUp))
        #expect(e.laneIndex == 0)
        // The kick lane's new notes are on its channel, written without it.
        e.geometry.topKey = 50
        _ = e.press(x: x(1), y: 145, button: .left)  // key 38, with key 50 in the top row
        _ = e.release(x: x(1), y: 145)
        #expect(e.document.notes.map(\.channel) == [10, 10, 1, 1])
        #expect(string(e.text()).contains("note 0 1 36 100\nnote 1 0.25 38 100\nlane bass"))
        // Undo comes back to the lane it was edited in.
        _ = e.selectLane(1)
        _ = e.undo()
        #expect(e.laneIndex == 0 && e.document.notes.count == 3)
        _ = e.key(EditorKey(.pageDown))
        #expect(e.laneIndex == 1)
    }

    @Test("a new pattern from the plugin: kept view and lane, one undo step; an echo changes nothing")
    func replace() throws {
        var e = try editor("tactus-pattern 2\nlane a length 4\nnote 0 1 60 100\nlane b length 2\nnote 0 1 64 100\n")
        _ = e.selectLane(1)
        _ = e.setSnap(.eighth)
        e.geometry.setPixelsPerBeat(50)
        _ = e.key(.character("a", modifiers: .control))
        // The echo of what the editor sent.
        _ = try e.replace(with: e.text()).get()
        #expect(!e.canUndo && e.selection.count == 1)
        let preset = "tactus-pattern 2\nlane x length 4\nlane b length 4\nnote 1 1 65 100\n"
        _ = try e.replace(with: bytes(preset)).get()
        #expect(e.laneIndex == 1 && string(e.lane.name) == "b")
        #expect(e.snap == .eighth && e.geometry.pixelsPerBeat == 50 && e.selection.isEmpty)
        #expect(e.document.notes[0].id > 2)
        #expect(string(e.text()) == preset)
        guard case .failure(let error) = e.replace(with: bytes("tactus-pattern 9\n")) else {
            Issue.record("accepted a bad pattern")
            return
        }
        #expect(error.message.hasPrefix("line 1: unsupported pattern format version '9'"))
        do { let r = e.undo(); #expect(r.commit) }
        #expect(e.document.notes.count == 2 && e.laneIndex == 1)
    }
}
