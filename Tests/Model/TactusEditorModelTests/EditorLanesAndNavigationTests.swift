import Testing
import TactusEngine
import TactusModel
import TactusEditorModel
import TactusTestSupport

// The editor's view of a long pattern of many lanes: the time index that
// finds the notes a frame draws (against its plain reference), the stacked
// lanes and their hit testing, the mute buttons, the scrollbar, zoom to
// fit, the ruler's bars by the host's meter, and the display scale.

/// A version-2 pattern of three lanes: `a` (keys 60-64, 4 beats), `b` (key 36 alone, 2 beats), `c` (no notes, 8 beats).
private let threeLanes = """
    tactus-pattern 2
    lane a length 4
    note 0 1 60 100
    note 1 1 64 90
    lane b length 2 channel 10
    note 0 1/2 36 80
    lane c length 8
    """

/// An editor of `text` in the test view (850 x 400), every lane stacked.
private func stacked(_ text: String) throws -> PianoRollEditor {
    var e = try editor(text)
    _ = e.setShowsAllLanes(true)
    return e
}

@Suite("Note time index")
struct NoteTimeIndexTests {
    @Test("the index finds exactly the notes the plain walk finds, in text order, on random patterns and spans")
    func equalsPlainPath() throws {
        var gen = RandomSession(seed: 0x1D5)
        var queries = 0
        for _ in 0..<300 {
            let text = gen.chance(0.5) ? gen.pattern(maxNotes: 200) : gen.lanePattern()
            let doc = try EditorDocument(parsing: Array(text.utf8))
            let index = NoteTimeIndex(doc)
            for _ in 0..<40 {
                let lane = gen.int(0...doc.lanes.count)  // one past the last, too
                let first = gen.unit() * 20 - 2
                let last = first + gen.pick([0, gen.unit() * 0.2, gen.unit() * 5, 100])
                let span = gen.pick([0, 0.01, 0.5, gen.unit() * 3])
                let fast = index.notes(inLane: lane, from: first, through: last, minimumSpan: span)
                let plain = doc.notes(inLane: lane, from: first, through: last, minimumSpan: span)
                #expect(fast == plain, "lane \(lane) \(first)...\(last) span \(span) of\n\(text)")
                queries += 1
            }
        }
        #expect(queries == 12_000)
    }

    @Test("a long note that starts early is found wherever the span lies in it; many notes are passed by blocks")
    func longNotesAndBlocks() throws {
        var text = "tactus-pattern 1\nlength 2000\nnote 0 1500 40 100\n"
        for i in 0..<2000 { text += "note \(i) 1/2 \(50 + i % 20) 90\n" }
        let doc = try document(text)
        let index = NoteTimeIndex(doc)
        let found = index.notes(inLane: 0, from: 1200, through: 1203.5)
        #expect(found == doc.notes(inLane: 0, from: 1200, through: 1203.5))
        #expect(found == [0, 1201, 1202, 1203, 1204])  // the long note and the notes at beats 1200-1203 (1199's ends before)
        #expect(index.notes(inLane: 0, from: 1600, through: 1601) == doc.notes(inLane: 0, from: 1600, through: 1601))
        #expect(index.notes(inLane: 0, from: 5000, through: 6000).isEmpty)
    }
}

@Suite("Lanes stacked")
struct LaneStackTests {
    @Test("each lane gets a band of its keys (at least an octave), one under the other")
    func bands() throws {
        let doc = try document(threeLanes)
        let bands = LaneStack.bands(of: doc, keyHeight: 4)
        #expect(bands.map(\.lane) == [0, 1, 2])
        #expect(bands[0].lowKey == 57 && bands[0].highKey == 68)  // 60-64 widened to 12 keys
        #expect(bands[1].lowKey == 31 && bands[1].highKey == 42)  // 36 alone
        #expect(bands[2].lowKey == 60 && bands[2].highKey == 71)  // no notes: the octave from C4
        #expect(bands[0].top == 0 && bands[1].top == 48 + LaneStack.gap && bands[2].top == 2 * (48 + LaneStack.gap))
        #expect(LaneStack.fittingKeyHeight(bands, in: 340) == 9)  // (340 - 9) / 36 rows
    }

    @Test("a press in a band edits that lane: a note lands in it, at the band's key")
    func pressInBand() throws {
        var e = try stacked(threeLanes)
        #expect(e.isStacked && e.geometry.gridLeft == 120)
        let b = try #require(e.bandGeometry(1))
        #expect(e.lane(atY: b.y(forKey: 36) + 1) == 1)
        // Lane b's only note: grabbed where it is drawn.
        let note = try #require(e.document.notes.first { $0.lane == 1 })
        let r = b.rectangle(of: note)
        #expect(e.hitTest(x: r.x + r.width / 2, y: r.y + r.height / 2) == .note(id: note.id, part: .body))
        // A click on an empty cell of lane b's band adds a note there, in lane b.
        let y = b.y(forKey: 38) + b.keyHeight / 2
        _ = e.press(x: e.geometry.x(forBeat: 1.1), y: y, button: .left)
        let effects = e.release(x: e.geometry.x(forBeat: 1.1), y: y)
        #expect(effects.commit && e.laneIndex == 1)
        #expect(string(e.text()).contains("lane b length 2 channel 10\nnote 0 1/2 36 80\nnote 1 0.25 38 100\n"))
    }

    @Test("a drag in a band moves the note by that band's rows, however the bands change meanwhile")
    func dragInBand() throws {
        var e = try stacked(threeLanes)
        let b = try #require(e.bandGeometry(0))
        let note = try #require(e.document.notes.first { $0.key == 64 })
        let r = b.rectangle(of: note)
        let start = (x: r.x + r.width / 2, y: r.y + r.height / 2)
        _ = e.press(x: start.x, y: start.y, button: .left)
        _ = e.drag(x: start.x, y: start.y - 3 * b.keyHeight)
        _ = e.drag(x: start.x, y: start.y - 6 * b.keyHeight)  // past the band's top row: rows go on
        _ = e.release(x: start.x, y: start.y - 6 * b.keyHeight)
        #expect(e.document.note(note.id)?.key == 70)
        #expect(e.bands[0].lowKey == 60 && e.bands[0].highKey == 71)  // the band followed once the drag was over
    }

    @Test("the mute button of a lane's header toggles the plugin's mute for it; version 1 has none")
    func muteButtons() throws {
        var e = try stacked(threeLanes)
        let m = try #require(e.muteButton(ofLane: 2))
        #expect(e.hitTest(x: m.x + 2, y: m.y + 2) == .laneMute(lane: 2))
        #expect(e.hitTest(x: 10, y: m.y + 2) == .laneHeader(lane: 2))
        let on = e.press(x: m.x + 2, y: m.y + 2, button: .left)
        #expect(on.mute == LaneMute(lane: 2, muted: true) && e.laneMutes == 4 && !on.commit)
        #expect(e.release(x: m.x + 2, y: m.y + 2) == .none)
        let off = e.key(EditorKey(.character(UInt8(ascii: "m"))))
        #expect(off.mute == LaneMute(lane: 2, muted: false) && e.laneMutes == 0)
        // What the plugin says (its control ports, through the host) is what the buttons show.
        #expect(e.setMuted(0, true) == .redraw && e.laneMutes == 1)
        var one = try editor("tactus-pattern 1\nlength 4\nnote 0 1 60 100\n")
        #expect(one.toggleMute(0) == .none && one.muteButton(ofLane: 0) == nil)
    }

    /// Forty lanes, lane n playing key 40 + n.
    static let fortyLanes = "tactus-pattern 2\n" + (1...40).map { "lane l\($0) length 4\nnote 0 1 \(40 + $0) 100\n" }.joined()

    @Test("the plugin's lane mutes parameter (a restored session's lanes 10 and 40) is shown, and a click on lane 12 keeps them (issue 29)")
    func restoredMutesPastEight() throws {
        var e = try stacked(Self.fortyLanes)
        let restored: UInt64 = 1 << 9 | 1 << 39
        #expect(e.setParameterMutes(restored) == .redraw)
        #expect(e.mutes.isMuted(9) && e.mutes.isMuted(39) && !e.mutes.isMuted(11) && e.laneMutes == restored)
        // Lane 12's M: the parameter goes out whole, lanes 10 and 40 still in it.
        let twelve = e.toggleMute(11)
        #expect(twelve.mute == LaneMute(lane: 11, muted: true, parameter: restored | 1 << 11) && twelve.redraw)
        #expect(e.laneMutes == restored | 1 << 11)
        // Lane 10's M unmutes lane 10 alone.
        #expect(e.toggleMute(9).mute == LaneMute(lane: 9, muted: false, parameter: 1 << 39 | 1 << 11))
        // The plugin's echo (or a state restored meanwhile) is what shows.
        #expect(e.setParameterMutes(1 << 39) == .redraw && e.laneMutes == 1 << 39)
        #expect(e.setParameterMutes(1 << 39) == .none)
        // Lanes 1-8: the port; a lane of them the parameter mutes is shown muted, and its M
        // unmutes it in both (the port to 0, the parameter without it).
        #expect(e.setMuted(0, true) == .redraw && e.laneMutes == 1 << 39 | 1)
        #expect(e.toggleMute(2).mute == LaneMute(lane: 2, muted: true, parameter: nil))
        _ = e.setParameterMutes(1 << 39 | 1 << 5)
        #expect(e.mutes.isMuted(5))
        #expect(e.toggleMute(5).mute == LaneMute(lane: 5, muted: false, parameter: 1 << 39))
        #expect(!e.mutes.isMuted(5) && e.mutes.ports == 0b101)
    }

    @Test("l shows one lane at a time, and all of them again; a pattern of one lane is never stacked")
    func toggleView() throws {
        var e = try stacked(threeLanes)
        _ = e.key(EditorKey(.character(UInt8(ascii: "l"))))
        #expect(!e.isStacked && e.geometry.gridLeft == 50)
        _ = e.key(EditorKey(.character(UInt8(ascii: "l"))))
        #expect(e.isStacked && e.geometry.gridLeft == 120)
        let single = try stacked("tactus-pattern 2\nlane only length 4\nnote 0 1 60 100\n")
        #expect(single.showsAllLanes && !single.isStacked && single.geometry.gridLeft == 50)
    }

    @Test("the wheel scrolls the stack, within its height")
    func stackScroll() throws {
        var text = "tactus-pattern 2\n"
        for i in 0..<12 { text += "lane l\(i) length 4\nnote 0 1 \(30 + i * 5) 100\n" }
        var e = try stacked(text)
        e.setStackKeyHeight(4)
        let most = LaneStack.height(of: e.bands) - e.geometry.gridHeight
        #expect(most > 0)
        _ = e.wheel(x: 300, y: 200, deltaX: 0, deltaY: 3)
        #expect(e.stackScroll == 120)
        _ = e.wheel(x: 300, y: 200, deltaX: 0, deltaY: 100)
        #expect(e.stackScroll == most)
        let last = try #require(e.bandGeometry(11))
        #expect(e.lane(atY: last.gridTop + 1) == 11)
    }
}

@Suite("Navigating a long pattern")
struct NavigationTests {
    private let long = "tactus-pattern 1\nlength 400\nnote 0 1 60 100\nnote 399 1 62 100\n"

    @Test("z zooms to fit the whole pattern; Home and the scrollbar come back to its start")
    func zoomToFit() throws {
        var e = try editor(long)
        _ = e.key(EditorKey(.character(UInt8(ascii: "z"))))
        #expect(e.geometry.firstBeat == 0 && abs(e.geometry.lastVisibleBeat - 400) < 1e-9)
        #expect(e.geometry.pixelsPerBeat == 2)
    }

    @Test("the scrollbar: its thumb shows the part in view; dragging it scrolls; a press on the track centres that place")
    func scrollbar() throws {
        var e = try editor(long)
        e.geometry.scrollbarHeight = 10
        // 8 beats of 400 in view: the thumb is 8 pixels (the least) at the left of the 800-pixel track.
        #expect(e.scrollbarBeats == 400)
        let thumb = try #require(e.scrollbarThumb())
        #expect(thumb.x == 50 && abs(thumb.width - 16) < 1e-9)
        let y = e.geometry.scrollbarTop + 5
        #expect(e.hitTest(x: 55, y: y) == .scrollbar(beat: 2.5, onThumb: true))
        _ = e.press(x: 55, y: y, button: .left)
        _ = e.drag(x: 255, y: y)
        #expect(e.release(x: 255, y: y) == .redraw)
        #expect(abs(e.geometry.firstBeat - 100) < 1e-9)  // 200 pixels of an 800-pixel track for 400 beats
        _ = e.press(x: 450, y: y, button: .left)  // the middle of the track: beat 200 to the middle of the view
        _ = e.release(x: 450, y: y)
        #expect(abs(e.geometry.firstBeat - 196) < 1e-9)
        #expect(e.document.notes.count == 2)  // nothing edited
    }

    @Test("Shift+wheel scrolls in time, Control+wheel zooms on the pointer")
    func wheel() throws {
        var e = try editor(long)
        _ = e.wheel(x: 400, y: 100, deltaX: 0, deltaY: 2, modifiers: .shift)
        #expect(abs(e.geometry.firstBeat - 0.8) < 1e-9)
        let under = e.geometry.beat(forX: 400)
        _ = e.wheel(x: 400, y: 100, deltaX: 0, deltaY: -3, modifiers: .control)  // three notches up: in
        #expect(abs(e.geometry.beat(forX: 400) - under) < 1e-9 && abs(e.geometry.pixelsPerBeat - 195.3125) < 1e-9)
    }

    @Test("the ruler counts bars by the host's meter: 3/4, 7/8 as 3.5 beats, thinned out as the zoom narrows")
    func barsByMeter() {
        let threeFour = BarRuler.marks(from: 0, through: 7, beatsPerBar: 3, pixelsPerBeat: 100)
        #expect(threeFour.filter(\.isBar).map(\.beat) == [0, 3, 6])
        #expect(threeFour.filter(\.isBar).map(\.bar) == [1, 2, 3])
        #expect(threeFour.first { $0.beat == 4 } == BarRuler.Mark(beat: 4, bar: 2, beatInBar: 2, labelled: true))
        let sevenEight = BarRuler.marks(from: 0, through: 10, beatsPerBar: 3.5, pixelsPerBeat: 10)
        #expect(sevenEight.filter(\.isBar).map(\.beat) == [0, 3.5, 7])
        // 1 pixel a beat in 4/4: a line every 2 bars (8 px), a number every 16 bars (64 px).
        let narrow = BarRuler.marks(from: 0, through: 400, beatsPerBar: 4, pixelsPerBeat: 1)
        #expect(narrow.allSatisfy(\.isBar) && narrow.map(\.bar).prefix(3) == [1, 3, 5])
        #expect(narrow.filter(\.labelled).map(\.bar).prefix(3) == [1, 17, 33])
        #expect(BarRuler.sane(.nan) == 4 && BarRuler.sane(0) == 4 && BarRuler.sane(6) == 6)
    }

    @Test("the editor takes the host's meter from the playhead; a meter it cannot use counts as 4")
    func meter() throws {
        var e = try editor(long)
        #expect(e.beatsPerBar == 4)
        #expect(e.setBeatsPerBar(3) == .redraw && e.beatsPerBar == 3)
        #expect(e.setBeatsPerBar(3) == .none)
        _ = e.setBeatsPerBar(.infinity)
        #expect(e.beatsPerBar == 4)
    }
}

@Suite("Display scale")
struct DisplayScaleTests {
    @Test("ui:scaleFactor: absent or absurd is 1, beyond 0.5-4 is brought in; pointer pixels are divided")
    func scale() {
        #expect(DisplayScale(hostValue: nil).factor == 1)
        #expect(DisplayScale(hostValue: .nan).factor == 1 && DisplayScale(hostValue: 0).factor == 1 && DisplayScale(hostValue: -2).factor == 1)
        #expect(DisplayScale(hostValue: 2).factor == 2 && DisplayScale(hostValue: 9).factor == 4 && DisplayScale(hostValue: 0.1).factor == 0.5)
        #expect(DisplayScale(hostValue: 2).logical(301) == 150.5 && DisplayScale(hostValue: 1.5).device(720) == 1080)
    }

    @Test("at scale 2 a device point hits what the same logical point hits at scale 1, stacked or not")
    func hitsAtScale() throws {
        let scale = DisplayScale(hostValue: 2)
        var e = try stacked(threeLanes)
        for y in stride(from: 0.0, to: 400, by: 7) {
            for x in stride(from: 0.0, to: 850, by: 13) {
                let device = (x: x * scale.factor + 1, y: y * scale.factor + 1)  // inside the device pixel
                #expect(e.hitTest(x: scale.logical(device.x), y: scale.logical(device.y)).sameTarget(as: e.hitTest(x: x + 0.5, y: y + 0.5)))
            }
        }
        _ = e.setShowsAllLanes(false)
        e.geometry.topKey = 72
        #expect(e.hitTest(x: scale.logical(2 * x(0.5)), y: scale.logical(2 * y(60))) == .note(id: 1, part: .body))
    }
}

extension PianoRollHit {
    /// The same thing hit (a note and its part, a lane, a key; beats of empty places may differ within a pixel).
    fileprivate func sameTarget(as other: PianoRollHit) -> Bool {
        switch (self, other) {
        case (.grid(_, let a), .grid(_, let b)): return a == b
        case (.ruler, .ruler): return true
        case (.scrollbar(_, let a), .scrollbar(_, let b)): return a == b
        default: return self == other
        }
    }
}
