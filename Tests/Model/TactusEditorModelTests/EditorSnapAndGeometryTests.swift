import Testing
import TactusEngine
import TactusModel
import TactusEditorModel

@Suite("Snap grid")
struct SnapGridTests {
    @Test("steps in beats (a quarter note is a beat), labels and the cycle")
    func stepsLabelsCycle() {
        #expect(SnapGrid.quarter.step == frac(1))
        #expect(SnapGrid.eighth.step == frac(1, 2))
        #expect(SnapGrid.sixteenth.step == frac(1, 4))
        #expect(SnapGrid.eighthTriplet.step == frac(1, 3))
        #expect(SnapGrid.sixteenthTriplet.step == frac(1, 6))
        #expect(SnapGrid.off.step == nil)
        #expect(SnapGrid.off.resolution == frac(1, 96))
        #expect(SnapGrid.allCases.map { string($0.label) } == ["1/4", "1/8", "1/16", "1/8T", "1/16T", "off"])
        var g = SnapGrid.quarter
        var seen: [SnapGrid] = []
        for _ in 0..<6 {
            seen.append(g)
            #expect(g.next.previous == g)
            g = g.next
        }
        #expect(seen == SnapGrid.allCases && g == .quarter)
    }

    @Test("every grid: nearest line, line at or before, from exact beats and from pointer beats")
    func snapEveryGrid() {
        // (grid, beat, nearest, floor)
        let cases: [(SnapGrid, BeatRational, BeatRational, BeatRational)] = [
            (.quarter, frac(13, 10), frac(1), frac(1)),
            (.quarter, frac(3, 2), frac(2), frac(1)),  // a tie goes to the later line
            (.quarter, frac(17, 10), frac(2), frac(1)),
            (.eighth, frac(7, 10), frac(1, 2), frac(1, 2)),
            (.eighth, frac(8, 10), frac(1), frac(1, 2)),
            (.sixteenth, frac(3, 10), frac(1, 4), frac(1, 4)),
            (.sixteenth, frac(9, 10), frac(1), frac(3, 4)),
            (.eighthTriplet, frac(1, 2), frac(2, 3), frac(1, 3)),
            (.eighthTriplet, frac(2, 5), frac(1, 3), frac(1, 3)),
            (.sixteenthTriplet, frac(1, 4), frac(1, 3), frac(1, 6)),
            (.sixteenthTriplet, frac(23, 10), frac(7, 3), frac(13, 6)),
            (.off, frac(1, 7), frac(1, 7), frac(1, 7)),
        ]
        for (grid, beat, nearest, floor) in cases {
            #expect(grid.snap(beat) == nearest, "\(grid) \(beat)")
            #expect(grid.floor(beat) == floor, "\(grid) \(beat)")
            #expect(grid.nearest(beat.approximateValue) == nearest || grid == .off, "\(grid) \(beat)")
            #expect(grid.floor(beat.approximateValue + 1e-9) == floor || grid == .off, "\(grid) \(beat)")
        }
        // Off: pointer beats land on 1/96 beat.
        #expect(SnapGrid.off.nearest(0.3) == frac(29, 96))
        #expect(SnapGrid.off.floor(0.3) == frac(28, 96))
        #expect(SnapGrid.off.nearest(2.0) == frac(2))
        #expect(SnapGrid.quarter.nearest(-0.4) == .zero)
        #expect(SnapGrid.sixteenth.nearest(.nan) == .zero)
        #expect(SnapGrid.sixteenth.nearest(1e300) == frac(2_000_000))
    }

    @Test("grid lines to draw")
    func lines() {
        #expect(SnapGrid.eighthTriplet.lines(from: 0.1, through: 1) == [frac(1, 3), frac(2, 3), frac(1)])
        #expect(SnapGrid.quarter.lines(from: 0, through: 2.5) == [frac(0), frac(1), frac(2)])
        #expect(SnapGrid.off.lines(from: 0, through: 2).isEmpty)
        #expect(SnapGrid.sixteenth.lines(from: 0, through: 1000, limit: 10).count == 10)
    }
}

@Suite("Piano roll geometry")
struct PianoRollGeometryTests {
    @Test("beats and keys to pixels and back")
    func mapping() {
        let g = testGeometry()
        #expect(g.x(forBeat: 2.5) == 300)
        #expect(g.beat(forX: 300) == 2.5)
        #expect(g.y(forKey: 72) == 20 && g.y(forKey: 60) == 140)
        #expect(g.key(forY: 20) == 72 && g.key(forY: 29.9) == 72 && g.key(forY: 30) == 71 && g.key(forY: 145) == 60)
        #expect(g.gridBottom == 360 && g.wholeKeyRows == 34 && g.visibleKeys == 39...72)
        #expect(g.lastVisibleBeat == 8)
        #expect(g.y(forVelocity: 127) == 363 && g.y(forVelocity: 0) == 397)
        #expect(g.velocity(forY: 363) == 127 && g.velocity(forY: 397) == 1 && g.velocity(forY: 380) == 64)
        var top = g
        top.topKey = 3
        #expect(top.key(forY: 70) == nil)  // below key 0
    }

    @Test("hit testing at exact pixels: note body and edges, grid, keyboard, ruler, loop marker, velocity stems")
    func hitTesting() throws {
        let doc = try document("tactus-pattern 1\nlength 4\nnote 1 1/2 60 100\nnote 1/4 1/96 64 90\n")
        let notes = doc.notes
        let g = testGeometry()
        func hit(_ x: Double, _ y: Double) -> PianoRollHit { g.hitTest(x: x, y: y, notes: notes, loopLength: frac(4)) }
        // The note spans x 150-200 on row y 140-150; edges are 5 pixels wide.
        #expect(hit(150, 145) == .note(id: 1, part: .startEdge))
        #expect(hit(154.9, 140) == .note(id: 1, part: .startEdge))
        #expect(hit(155, 149.9) == .note(id: 1, part: .body))
        #expect(hit(195, 145) == .note(id: 1, part: .body))
        #expect(hit(195.1, 145) == .note(id: 1, part: .endEdge))
        #expect(hit(200, 145) == .note(id: 1, part: .endEdge))
        #expect(hit(200.5, 145) == .grid(beat: 1.505, key: 60))
        #expect(hit(149.5, 145) == .grid(beat: 0.995, key: 60))
        #expect(hit(175, 139.9) == .grid(beat: 1.25, key: 61))
        #expect(hit(175, 150) == .grid(beat: 1.25, key: 59))
        // A 1/96-beat note is hit over 3 pixels (its drawn width): edges of 1 pixel.
        #expect(hit(75, 105) == .note(id: 2, part: .startEdge))
        #expect(hit(76.5, 105) == .note(id: 2, part: .body))
        #expect(hit(77.5, 105) == .note(id: 2, part: .endEdge))
        #expect(hit(78.5, 105) == .grid(beat: 0.285, key: 64))
        // Keyboard strip, ruler, loop marker (x 450, grabbed within 6 pixels).
        #expect(hit(10, 145) == .keyboard(key: 60))
        #expect(hit(49.9, 20) == .keyboard(key: 72))
        #expect(hit(444, 5) == .loopMarker)
        #expect(hit(456, 19.9) == .loopMarker)
        #expect(hit(456.5, 5) == .ruler(beat: 4.065))
        #expect(hit(10, 5) == .none)
        // Velocity strip: the stem at x 150 (note 1) and x 75 (note 2), 6 pixels each side.
        #expect(hit(156, 380) == .velocity(noteID: 1))
        #expect(hit(144, 399) == .velocity(noteID: 1))
        #expect(hit(157, 380) == .velocity(noteID: nil))
        #expect(hit(80, 360) == .velocity(noteID: 2))
        #expect(hit(10, 380) == .none)
        // Outside the view.
        #expect(hit(-1, 100) == .none && hit(850, 100) == .none && hit(100, 400) == .none && hit(.nan, 10) == .none)
    }

    @Test("overlapping notes: the later one in text order is on top")
    func topmostNote() throws {
        let doc = try document("tactus-pattern 1\nlength 4\nnote 0 2 60 100\nnote 1 2 60 100\n")
        let g = testGeometry()
        #expect(g.hitTest(x: 175, y: 145, notes: doc.notes, loopLength: frac(4)) == .note(id: 2, part: .body))
        #expect(g.hitTest(x: 125, y: 145, notes: doc.notes, loopLength: frac(4)) == .note(id: 1, part: .body))
    }

    @Test("zoom keeps the beat under the pointer; zoom and row height are bounded")
    func zoom() {
        var g = testGeometry()
        g.firstBeat = 2
        g.zoom(by: 2, around: 250)  // beat 4 under x 250
        #expect(g.pixelsPerBeat == 200)
        #expect(g.beat(forX: 250) == 4)
        g.zoom(by: 1e9, around: 250)
        #expect(g.pixelsPerBeat == 4096)
        g.zoom(by: 1e-9, around: 250)
        #expect(g.pixelsPerBeat == 0.01)  // a whole song (zoom to fit) in a narrow window
        #expect(g.firstBeat == 0)  // never before the loop start
        g.setKeyHeight(0)
        #expect(g.keyHeight == 3)
        g.zoom(by: .nan, around: 10)
        #expect(g.pixelsPerBeat == 0.01)
    }

    @Test("the view follows the pattern's keys")
    func fitKeys() throws {
        var g = testGeometry()  // 34 whole rows
        let doc = try document("tactus-pattern 1\nlength 4\nnote 0 1 36 100\nnote 1 1 50 100\n")
        g.fitKeys(of: doc.notes)
        #expect(g.topKey == 50 + (34 - 15) / 2)
        #expect(g.visibleKeys.contains(36) && g.visibleKeys.contains(50))
        let wide = try document("tactus-pattern 1\nlength 4\nnote 0 1 20 100\nnote 1 1 100 100\n")
        g.fitKeys(of: wide.notes)
        #expect(g.topKey == 100)
        g.fitKeys(of: [])
        #expect(g.topKey == 60 + 33 / 2)
        let low = try document("tactus-pattern 1\nlength 4\nnote 0 1 2 100\n")
        g.fitKeys(of: low.notes)
        #expect(g.topKey == 33)  // rows kept within key 0
        g.scroll(toShowKey: 70)
        #expect(g.topKey == 70)
        g.scroll(toShowKey: 0)
        #expect(g.topKey == 33)
    }
}
