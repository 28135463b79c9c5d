import Testing
import TactusEngine
import TactusModel
import TactusEditorModel

// The controller strip under the piano roll (issue 30), driven as a UI
// drives it, at exact pixels of `testGeometry` with the strip shown: it
// spans y 328-400 (values from the base at y 396 to the peak at y 332), so
// a value v of a 0-127 controller is at y = 396 - 64 v / 127.

private let sweep = """
    tactus-pattern 3
    # a filter sweep
    lane bass length 4 ramp-step 1/2
    note 0 1/2 36 100
    cc 74 0 10   # closed
    cc 74 2 127 ramp
    note 1 1/2 36 90 cc74=110

    """

private func stripEditor(_ text: String) throws -> PianoRollEditor {
    var e = try editor(text)
    _ = e.setShowsControllerStrip(true)
    return e
}

private func yValue(_ v: Int) -> Double { 396 - 64 * Double(v) / 127 }

/// A press and a release at one place: a click.
@discardableResult
private func click(_ e: inout PianoRollEditor, x: Double, y: Double, _ button: MouseButton) -> EditorEffects {
    _ = e.press(x: x, y: y, button: button)
    return e.release(x: x, y: y)
}

@Suite("Piano roll editor: the controller strip")
struct ControllerStripTests {
    @Test("the strip shows the lane's first controller, and its steps are the engine's ramp samples")
    func stepsAreTheEngines() throws {
        let e = try stripEditor(sweep)
        #expect(e.geometry.controllerHeight == PianoRollEditor.controllerStripHeight)
        #expect(e.chosenController == ControllerChoice(kind: .control(74), channel: 1))
        let steps = e.chosenControllerSteps()
        #expect(steps.map { $0.beat } == [0, 0.5, 1, 1.5, 2])
        // floor(10 + 117 g / 2 + 1/2) at g = 1/2, 1, 3/2 (§10.2), then the end.
        #expect(steps.map { $0.value } == [10, 39, 69, 98, 127])
        // The same values the engine's cycle sends.
        let cycle = ControllerCycle.events(e.document.pattern())!
        #expect(cycle.map { $0.value } == steps.map { $0.value })
    }

    @Test("a click adds a point on the grid with the value under the pointer; only its line is new; undo takes it back")
    func clickAdds() throws {
        var e = try stripEditor(sweep)
        let done = click(&e, x: 350, y: yValue(64), .left)
        #expect(done.commit)
        #expect(string(e.text()) == sweep.replacingOccurrences(of: "cc74=110\n", with: "cc74=110\ncc 74 3 64\n"))
        #expect(textMatches(e.document))
        #expect(e.selectedPoint == 2)
        _ = e.undo()
        #expect(string(e.text()) == sweep)
    }

    @Test("dragging a point moves its beat on the grid and its value; only those fields change")
    func dragMoves() throws {
        var e = try stripEditor(sweep)
        _ = e.press(x: 250, y: yValue(127), button: .left)
        #expect(e.selectedPoint == 1)
        _ = e.drag(x: 290, y: yValue(100))
        let done = e.release(x: 290, y: yValue(100))
        #expect(done.commit)
        // Beat 2.4 lands on the nearest sixteenth, 5/2.
        let moved = "cc 74 \(PatternWriter.beatText(frac(5, 2))) 100 ramp"
        #expect(string(e.text()) == sweep.replacingOccurrences(of: "cc 74 2 127 ramp", with: moved))
        #expect(textMatches(e.document))
    }

    @Test("a point cannot be dragged onto another of its controller's beats")
    func noDuplicates() throws {
        var e = try stripEditor(sweep)
        _ = e.press(x: 250, y: yValue(127), button: .left)
        _ = e.drag(x: 50, y: yValue(127))
        _ = e.release(x: 50, y: yValue(127))
        #expect(e.document.controllers[1].start != .zero)
        #expect(textMatches(e.document))
    }

    @Test("a right click deletes the point; its comment-free line goes")
    func rightClickDeletes() throws {
        var e = try stripEditor(sweep)
        let done = click(&e, x: 250, y: yValue(127), .right)
        #expect(done.commit)
        #expect(string(e.text()) == sweep.replacingOccurrences(of: "cc 74 2 127 ramp\n", with: ""))
        // A point with a comment: the comment stays.
        _ = click(&e, x: 50, y: yValue(10), .right)
        #expect(string(e.text()) == sweep.replacingOccurrences(of: "cc 74 2 127 ramp\n", with: "").replacingOccurrences(of: "cc 74 0 10   # closed", with: "# closed"))
        #expect(e.document.controllers.isEmpty)
        #expect(textMatches(e.document))
    }

    @Test("r toggles the selected point's ramp, one undo step each")
    func rampKey() throws {
        var e = try stripEditor(sweep)
        _ = click(&e, x: 250, y: yValue(127), .left)
        let off = e.key(.character("r"))
        #expect(off.commit)
        #expect(string(e.text()) == sweep.replacingOccurrences(of: "cc 74 2 127 ramp", with: "cc 74 2 127"))
        #expect(e.chosenControllerSteps().map { $0.value } == [10, 127])
        _ = e.key(.character("r"))
        #expect(string(e.text()) == sweep)
        _ = e.undo()
        #expect(string(e.text()).contains("cc 74 2 127\n"))
    }

    @Test("the menu lists the lane's controllers and adds others; a bend is drawn around its centre")
    func menuAddsBend() throws {
        var e = try stripEditor(sweep)
        _ = e.press(x: 10, y: 340, button: .left)
        #expect(e.controllerMenuOpen)
        let items = e.controllerMenuItems
        #expect(items.first?.label == bytes("cc 74"))
        guard let bend = items.firstIndex(where: { $0.label == bytes("add bend") }) else { Issue.record("no bend"); return }
        _ = e.chooseController(item: bend)
        #expect(e.chosenController == ControllerChoice(kind: .bend, channel: 1))
        // The middle of the strip is no bend.
        #expect(e.geometry.controllerValue(forY: 364, of: .bend) == 0)
        _ = click(&e, x: 150, y: 364, .left)
        #expect(string(e.text()).contains("bend 1 0\n"))
        #expect(textMatches(e.document))
    }

    @Test("a number typed in the menu adds that controller")
    func typedController() throws {
        var e = try stripEditor(sweep)
        _ = e.press(x: 10, y: 340, button: .left)
        _ = e.key(.character("2"))
        _ = e.key(.character("1"))
        _ = e.key(EditorKey(.enter))
        #expect(e.chosenController == ControllerChoice(kind: .control(21), channel: 1))
        #expect(!e.controllerMenuOpen)
    }

    @Test("the first point of a version-2 text makes it version 3; the notes keep their ids")
    func upgradesToVersion3() throws {
        var e = try stripEditor("tactus-pattern 2\nlane a length 4 channel 2\nnote 0 1 60 100\nlane b length 2\nnote 1 1 40 100\n")
        let ids = e.document.notes.map { $0.id }
        _ = e.press(x: 10, y: 340, button: .left)
        let cc1 = e.controllerMenuItems.firstIndex { $0.label == bytes("add cc 1") }!
        _ = e.chooseController(item: cc1)
        _ = click(&e, x: 150, y: yValue(64), .left)
        #expect(string(e.text()) == "tactus-pattern 3\nlane a length 4 channel 2\nnote 0 1 60 100\ncc 1 1 64\nlane b length 2\nnote 1 1 40 100\n")
        #expect(e.document.notes.map { $0.id } == ids)
        #expect(textMatches(e.document))
    }

    @Test("a dense ramp: thousands of steps come from the engine's computation")
    func denseRamp() throws {
        let e = try stripEditor("tactus-pattern 3\nlane a length 64 ramp-step 1/96\ncc 74 0 0\ncc 74 63 127 ramp\n")
        let steps = e.chosenControllerSteps()
        // The point at 0, then 63 × 96 samples of the ramp, its end included.
        #expect(steps.count == 1 + 63 * 96)
        #expect(steps.last?.value == 127 && steps.last?.beat == 63)
    }
}

@Suite("Editor document: controller points")
struct ControllerPointDocumentTests {
    private let twoPatterns = "tactus-pattern 3\npattern a\nlane x length 4\nnote 0 1 60 100\ncc 1 0 5\npattern b\nlane y length 4 channel 3\nnote 0 1 62 100\n# the end\n"

    @Test("a point added to a pattern of several goes after its lane's last statement; the other pattern stays byte for byte")
    func severalPatterns() throws {
        var a = try EditorDocument(parsing: bytes(twoPatterns), pattern: 0)
        guard case .success(let i) = a.addController(ControllerPoint(start: frac(1), kind: .bend, value: -100, channel: 1, lane: 0)) else {
            Issue.record("refused"); return
        }
        #expect(i == 1)
        #expect(string(a.text()) == twoPatterns.replacingOccurrences(of: "cc 1 0 5\n", with: "cc 1 0 5\nbend 1 -100\n"))
        var b = try EditorDocument(parsing: bytes(twoPatterns), pattern: 1)
        _ = b.addController(ControllerPoint(start: frac(1, 2), kind: .pressure, value: 7, channel: 3, lane: 0))
        #expect(string(b.text()) == twoPatterns.replacingOccurrences(of: "note 0 1 62 100\n", with: "note 0 1 62 100\npressure 0.5 7\n"))
        #expect(b.controllers.count == 1)
        let removed = b.removeController(0)
        #expect(removed)
        #expect(string(b.text()) == twoPatterns)
    }

    @Test("bad points are refused with the format's reasons, and nothing changes")
    func refused() throws {
        var d = try EditorDocument(parsing: bytes(twoPatterns), pattern: 0)
        let before = d.text()
        if case .success = d.addController(ControllerPoint(start: frac(0), kind: .control(1), value: 9, channel: 1, lane: 0)) { Issue.record("a duplicate was taken") }
        if case .success = d.addController(ControllerPoint(start: frac(1), kind: .control(1), value: 200, channel: 1, lane: 0)) { Issue.record("200 was taken") }
        if case .success = d.addController(ControllerPoint(start: frac(4), kind: .control(1), value: 9, channel: 1, lane: 0)) { Issue.record("beat 4 was taken") }
        _ = d.setControllerRamp(0, true)  // (a ramp from itself, a pass earlier)
        if case .success = d.moveController(0, start: frac(5), value: 1) { Issue.record("beat 5 was taken") }
        _ = d.setControllerRamp(0, false)
        #expect(d.text() == before)
    }
}
