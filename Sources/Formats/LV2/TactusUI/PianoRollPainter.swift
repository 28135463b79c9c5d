import CLV2UI
import TactusEngine
import TactusModel
import TactusEditorModel

/// Draws the piano roll of a `PianoRollEditor` on an image surface: the top
/// line (the view's switch, the lane tabs, the snap grid, the status), the
/// ruler counting bars by the host's meter with the loop marker, the
/// keyboard strip (one lane) or the lanes' headers with their mute buttons
/// (every lane stacked), the grid, the notes coloured by velocity (selected
/// ones outlined, sounding ones lit), the velocity strip, the playhead and
/// the scrollbar.
///
/// Only the notes in view are drawn, found with a `NoteTimeIndex`; notes
/// and velocity stems are written as pixels (`PixelCanvas`), the rest with
/// cairo. Everything is laid out in logical pixels (the model's), drawn at
/// `scale` device pixels each (`ui:scaleFactor`).
///
/// Stateless; UI thread; O(notes shown + grid lines shown + log n) per frame.
enum PianoRollPainter {
    /// The top line's height: the view's switch, lane tabs, the snap grid, the status. The ruler is below it.
    static var tabsHeight: Double { 20 }
    /// The ruler's own height, below the top line.
    static var rulerHeight: Double { 20 }
    /// The scrollbar's height, at the bottom.
    static var scrollbarHeight: Double { 12 }

    /// What the top line holds at a point.
    enum TopLineItem: Equatable {
        /// The switch between every lane stacked and one lane at a time.
        case viewSwitch
        case lane(Int)
    }

    /// What is at `x` on the top line (laid out as `draw` lays it out).
    static func topLineItem(atX x: Double, in editor: PianoRollEditor) -> TopLineItem? {
        var left = 4.0
        if editor.document.lanes.count > 1 {
            let w = tabWidth(switchLabel(editor))
            if x >= left && x < left + w { return .viewSwitch }
            left += w + 8
        }
        guard !editor.isStacked else { return nil }
        for (index, lane) in editor.document.lanes.enumerated() {
            let w = tabWidth(lane.name)
            if x >= left && x < left + w { return .lane(index) }
            left += w + 4
        }
        return nil
    }

    private static func tabWidth(_ name: [UInt8]) -> Double { Double(name.count) * 7 + 12 }

    private static func switchLabel(_ editor: PianoRollEditor) -> [UInt8] {
        Array((editor.showsAllLanes ? "all lanes" : "one lane").utf8)
    }

    /// `index`: the editor's notes (built at its `generation`); `playheadBeat`:
    /// where the playhead is (global beats), nil when the plugin has not said;
    /// `rolling`: whether notes under it sound (they are lit); `image`: the
    /// surface `cr` draws on, `scale` device pixels to a logical one.
    static func draw(
        _ editor: PianoRollEditor, index: NoteTimeIndex, playheadBeat: Double?, rolling: Bool, status: [UInt8], statusIsError: Bool,
        image: OpaquePointer, scale: Double, controllerSteps: [ControllerCycle.Step] = [], on cr: OpaquePointer
    ) {
        let g = editor.geometry
        cairo_save(cr)
        cairo_scale(cr, scale, scale)
        color(cr, 0.12, 0.12, 0.14)
        cairo_paint(cr)

        let gridLeft = g.gridLeft, gridRight = g.width
        let gridTop = g.gridTop, gridBottom = g.gridBottom
        // The lanes in view, each with the geometry of its rows.
        var shown: [(lane: Int, geometry: PianoRollGeometry)] = []
        if editor.isStacked {
            for band in editor.bands {
                guard let bg = editor.bandGeometry(band.lane) else { continue }
                if bg.gridBottom + LaneStack.gap > gridTop && bg.gridTop < gridBottom { shown.append((band.lane, bg)) }
            }
        } else {
            shown.append((editor.laneIndex, g))
        }

        // Key rows (black keys darker), and each lane's loop: shaded past its end, its repeats marked.
        cairo_save(cr)
        cairo_rectangle(cr, gridLeft, gridTop, gridRight - gridLeft, gridBottom - gridTop)
        cairo_clip(cr)
        for (lane, lg) in shown {
            let top = lg.gridTop, bottom = lg.gridBottom
            let keys = lg.visibleKeys
            for key in keys {
                let y = lg.y(forKey: key)
                if y >= bottom { continue }
                if isBlack(key) { color(cr, 0.15, 0.15, 0.18) } else { color(cr, 0.19, 0.19, 0.22) }
                rect(cr, gridLeft, y, gridRight - gridLeft, Swift.min(lg.keyHeight, bottom - y))
                if key % 12 == 0, lg.keyHeight >= 4 {
                    color(cr, 0.3, 0.3, 0.34)
                    rect(cr, gridLeft, y + lg.keyHeight - 1, gridRight - gridLeft, 1)
                }
            }
            let length = editor.document.lanes[lane].length.approximateValue
            let loopX = g.x(forBeat: length)
            if loopX < gridRight {
                color(cr, 0.0, 0.0, 0.0, 0.35)
                rect(cr, Swift.max(loopX, gridLeft), top, gridRight - Swift.max(loopX, gridLeft), bottom - top)
                if editor.isStacked, length * g.pixelsPerBeat >= 6 {
                    // Where the lane's loop starts again.
                    color(cr, 0.95, 0.6, 0.15, 0.45)
                    var k = Swift.max(1, (g.firstBeat / length).rounded(.down))
                    while k * length <= g.lastVisibleBeat {
                        let x = g.x(forBeat: k * length)
                        if x >= gridLeft { rect(cr, x, top, 1, bottom - top) }
                        k += 1
                    }
                }
            }
        }
        cairo_restore(cr)

        // Grid lines: the snap grid faint, beats brighter, bars (by the host's meter) brightest.
        let visible = g.firstBeat...g.lastVisibleBeat
        if let step = editor.snap.step?.approximateValue, step * g.pixelsPerBeat >= 4 {
            color(cr, 0.24, 0.24, 0.28)
            for line in editor.snap.lines(from: visible.lowerBound, through: visible.upperBound) {
                let x = g.x(forBeat: line.approximateValue)
                if x >= gridLeft { rect(cr, x, gridTop, 1, gridBottom - gridTop) }
            }
        }
        let marks = BarRuler.marks(
            from: visible.lowerBound, through: visible.upperBound, beatsPerBar: editor.beatsPerBar, pixelsPerBeat: g.pixelsPerBeat)
        for mark in marks {
            let x = g.x(forBeat: mark.beat)
            guard x >= gridLeft else { continue }
            if mark.isBar { color(cr, 0.55, 0.55, 0.6) } else { color(cr, 0.36, 0.36, 0.4) }
            rect(cr, x, gridTop, 1, gridBottom - gridTop)
        }

        // The notes in view (of each lane shown) and the edited lane's velocity stems, as pixels.
        let minimumSpan = g.minimumNoteWidth / g.pixelsPerBeat
        let first = g.beat(forX: gridLeft - 1), last = g.beat(forX: gridRight + 1)
        if var canvas = PixelCanvas(surface: image, scale: scale) {
            let notes = editor.document.notes
            let white = PixelCanvas.colour(1, 1, 1)
            let lit = PixelCanvas.colour(1.0, 0.95, 0.55)
            let lockMark = PixelCanvas.colour(0.95, 0.6, 0.15)
            for (lane, lg) in shown {
                let length = editor.document.lanes[lane].length.approximateValue
                let laneBeat = playheadBeat.flatMap { PatternScene.beatInLoop($0, length: length) }
                canvas.clip(x: gridLeft, y: Swift.max(lg.gridTop, gridTop), width: gridRight - gridLeft,
                            height: Swift.min(lg.gridBottom, gridBottom) - Swift.max(lg.gridTop, gridTop))
                let keys = lg.visibleKeys
                let thin = lg.keyHeight < 6
                let stems = lane == editor.laneIndex
                for i in index.notes(inLane: lane, from: first, through: last, minimumSpan: minimumSpan) {
                    let note = notes[i]
                    let box = lg.rectangle(of: note)
                    let v = Double(note.velocity) / 127
                    let fill = PixelCanvas.colour(0.25 + 0.7 * v, 0.45 + 0.1 * v, 0.85 - 0.6 * v)
                    if keys.contains(Int(note.key)) {
                        var sounding = false
                        if rolling, let beat = laneBeat {
                            let start = note.start.approximateValue, end = note.approximateEnd
                            sounding = (beat >= start && beat < end) || (end > length && beat < end - length)
                        }
                        // Where the model hit-tests the note: drawn there, so that what is seen is what is grabbed.
                        // A pixel's gap around each note, where there is room for one.
                        let inset = thin ? 0.0 : 1.0
                        let left = Swift.max(box.x, gridLeft)
                        let insetX = box.x + box.width - left >= 6 ? inset : 0
                        let w = Swift.max(box.x + box.width - left - 2 * insetX, 1)
                        canvas.fill(x: left + insetX, y: box.y + inset, width: w, height: box.height - 2 * inset, colour: sounding ? lit : fill)
                        if editor.selection.contains(note.id) {
                            canvas.outline(x: left + insetX, y: box.y + inset, width: w, height: box.height - 2 * inset, thickness: 1, colour: white)
                        }
                        if !note.locks.isEmpty, box.x >= gridLeft {
                            // A lock (`ccN=V`): a mark in the note's top left corner; its value shows on hover.
                            let side = Swift.min(4, Swift.max(box.height - 2 * inset, 1))
                            canvas.fill(x: left + insetX, y: box.y + inset, width: Swift.min(side, w), height: side, colour: lockMark)
                        }
                    }
                    if stems {
                        // The velocity strip: one bar per note, its height the velocity.
                        if box.x >= gridLeft {
                            var stemCanvas = canvas
                            stemCanvas.clip(x: gridLeft, y: gridBottom, width: gridRight - gridLeft, height: g.controllerTop - gridBottom)
                            let top = g.y(forVelocity: note.velocity)
                            stemCanvas.fill(x: box.x, y: top, width: 3, height: g.velocityBase - top, colour: fill)
                        }
                    }
                }
            }
            canvas.end(image)
        }

        // A rubber band being dragged (in the edited lane's rows).
        let edited = editor.bandGeometry(editor.laneIndex) ?? g
        if let band = editor.selectionRectangle {
            color(cr, 0.6, 0.8, 1.0, 0.2)
            let x0 = g.x(forBeat: band.firstBeat), x1 = g.x(forBeat: band.lastBeat)
            let y0 = edited.y(forKey: band.highKey), y1 = edited.y(forKey: band.lowKey) + edited.keyHeight
            rect(cr, x0, y0, x1 - x0, y1 - y0)
        }

        // The loop marker of the edited lane (a handle to drag in the ruler), and each band's loop end.
        let loopX = g.x(forBeat: editor.lane.length.approximateValue)
        if loopX >= gridLeft && loopX <= gridRight {
            color(cr, 0.95, 0.6, 0.15)
            if editor.isStacked {
                rect(cr, loopX - 1, gridTop - 14, 3, 14)
            } else {
                rect(cr, loopX - 1, gridTop - 14, 3, gridBottom - gridTop + 14)
            }
            cairo_move_to(cr, loopX - 7, gridTop - 14)
            cairo_line_to(cr, loopX + 8, gridTop - 14)
            cairo_line_to(cr, loopX + 1, gridTop - 4)
            cairo_close_path(cr)
            cairo_fill(cr)
        }
        if editor.isStacked {
            cairo_save(cr)
            cairo_rectangle(cr, gridLeft, gridTop, gridRight - gridLeft, gridBottom - gridTop)
            cairo_clip(cr)
            for (lane, lg) in shown {
                let x = g.x(forBeat: editor.document.lanes[lane].length.approximateValue)
                guard x >= gridLeft && x <= gridRight else { continue }
                if lane == editor.laneIndex { color(cr, 0.95, 0.6, 0.15) } else { color(cr, 0.75, 0.5, 0.2) }
                rect(cr, x - (lane == editor.laneIndex ? 1 : 0), lg.gridTop, lane == editor.laneIndex ? 3 : 2, lg.gridBottom - lg.gridTop)
            }
            cairo_restore(cr)
        }

        // Left of the grid: the keyboard strip (note names on every C), or each lane's header.
        if editor.isStacked {
            cairo_save(cr)
            cairo_rectangle(cr, 0, gridTop, gridLeft, gridBottom - gridTop)
            cairo_clip(cr)
            for (lane, lg) in shown {
                let top = lg.gridTop, h = lg.gridBottom - lg.gridTop
                if lane == editor.laneIndex { color(cr, 0.22, 0.32, 0.5) } else { color(cr, 0.2, 0.2, 0.24) }
                rect(cr, 0, top, gridLeft - 2, h)
                let name = editor.document.lanes[lane].name
                if h >= 7 {
                    color(cr, 0.95, 0.95, 0.95)
                    cairo_save(cr)
                    cairo_rectangle(cr, 0, top, gridLeft - 26, h)
                    cairo_clip(cr)
                    text(cr, name, x: 4, y: top + Swift.min(h, 14) - 3, size: Swift.min(11, h - 1))
                    cairo_restore(cr)
                }
                if let m = editor.muteButton(ofLane: lane) {
                    let muted = editor.laneMutes & (1 << UInt64(lane)) != 0
                    if muted { color(cr, 0.95, 0.6, 0.15) } else { color(cr, 0.32, 0.32, 0.36) }
                    rect(cr, m.x, m.y, m.width, m.height)
                    if m.height >= 8 {
                        if muted { color(cr, 0.1, 0.1, 0.1) } else { color(cr, 0.85, 0.85, 0.85) }
                        text(cr, "M", x: m.x + 4, y: m.y + m.height - 3, size: Swift.min(10, m.height - 2))
                    }
                }
            }
            cairo_restore(cr)
        } else {
            for key in g.visibleKeys {
                let y = g.y(forKey: key)
                if isBlack(key) { color(cr, 0.08, 0.08, 0.08) } else { color(cr, 0.88, 0.88, 0.86) }
                rect(cr, 0, y, g.keyboardWidth - 2, g.keyHeight - 1)
                if key % 12 == 0, g.keyHeight >= 7 {
                    color(cr, 0.2, 0.2, 0.2)
                    text(cr, NoteName.name(UInt8(key)), x: 3, y: y + g.keyHeight - 2, size: Swift.min(g.keyHeight, 11))
                }
            }
        }

        // The playhead, in each lane's own loop (§3: a pass starts at global beat 0).
        if let beat = playheadBeat {
            for (lane, lg) in shown {
                guard let laneBeat = PatternScene.beatInLoop(beat, length: editor.document.lanes[lane].length.approximateValue) else { continue }
                let x = g.x(forBeat: laneBeat)
                guard x >= gridLeft && x <= gridRight else { continue }
                color(cr, 1.0, 0.3, 0.25)
                let top = Swift.max(lg.gridTop, gridTop), bottom = Swift.min(lg.gridBottom, gridBottom)
                if bottom > top { rect(cr, x, top, 2, bottom - top) }
            }
        }

        // The ruler: bar numbers (and bar.beat when there is room), from 1 as musicians count.
        color(cr, 0.12, 0.12, 0.14)
        rect(cr, 0, tabsHeight, gridLeft, gridTop - tabsHeight)
        color(cr, 0.8, 0.8, 0.85)
        for mark in marks where mark.labelled {
            let x = g.x(forBeat: mark.beat)
            guard x >= gridLeft else { continue }
            text(cr, mark.isBar ? "\(mark.bar)" : "\(mark.bar).\(mark.beatInBar)", x: x + 3, y: gridTop - 5, size: 10)
        }

        // The scrollbar: the track stands for the pattern, the thumb for the part in view.
        if g.scrollbarHeight > 0 {
            color(cr, 0.09, 0.09, 0.1)
            rect(cr, 0, g.scrollbarTop, g.width, g.scrollbarHeight)
            if let thumb = editor.scrollbarThumb() {
                color(cr, 0.2, 0.2, 0.24)
                rect(cr, gridLeft, g.scrollbarTop + 2, g.gridWidth, g.scrollbarHeight - 4)
                color(cr, 0.5, 0.5, 0.58)
                rect(cr, thumb.x, g.scrollbarTop + 2, thumb.width, g.scrollbarHeight - 4)
            }
        }

        ControllerStripPainter.draw(editor, steps: controllerSteps, on: cr)
        ControllerStripPainter.drawLockLabel(editor, on: cr)

        // The top line: the view's switch, the lane tabs (one lane at a time) or the lane
        // edited (every lane), the snap grid, and the status (an error or a notice).
        color(cr, 0.09, 0.09, 0.1)
        rect(cr, 0, 0, g.width, tabsHeight)
        var x = 4.0
        if editor.document.lanes.count > 1 {
            let label = switchLabel(editor)
            let w = tabWidth(label)
            color(cr, 0.35, 0.35, 0.2)
            rect(cr, x, 2, w, 16)
            color(cr, 0.95, 0.95, 0.8)
            text(cr, label, x: x + 6, y: 14, size: 11)
            x += w + 8
        }
        if editor.isStacked {
            color(cr, 0.95, 0.95, 0.95)
            let label = editor.lane.name
            text(cr, label, x: x + 2, y: 14, size: 11)
            x += tabWidth(label)
        } else {
            for (index, l) in editor.document.lanes.enumerated() {
                let selected = index == editor.laneIndex
                let label = l.name
                let w = tabWidth(label)
                if selected { color(cr, 0.3, 0.45, 0.7) } else { color(cr, 0.2, 0.2, 0.24) }
                rect(cr, x, 2, w, 16)
                color(cr, 0.95, 0.95, 0.95)
                text(cr, label, x: x + 6, y: 14, size: 11)
                x += w + 4
            }
        }
        color(cr, 0.75, 0.75, 0.8)
        text(cr, Array("snap ".utf8) + editor.snap.label, x: x + 8, y: 14, size: 11)
        if !status.isEmpty {
            if statusIsError { color(cr, 1.0, 0.45, 0.4) } else { color(cr, 0.85, 0.8, 0.55) }
            text(cr, status, x: x + 80, y: 14, size: 11)
        }
        cairo_restore(cr)
    }

    private static func isBlack(_ key: Int) -> Bool {
        switch key % 12 {
        case 1, 3, 6, 8, 10: return true
        default: return false
        }
    }

    static func color(_ cr: OpaquePointer, _ r: Double, _ g: Double, _ b: Double, _ a: Double = 1) {
        cairo_set_source_rgba(cr, r, g, b, a)
    }

    static func rect(_ cr: OpaquePointer, _ x: Double, _ y: Double, _ w: Double, _ h: Double) {
        cairo_rectangle(cr, x, y, w, h)
        cairo_fill(cr)
    }

    static func text(_ cr: OpaquePointer, _ s: String, x: Double, y: Double, size: Double) {
        text(cr, Array(s.utf8), x: x, y: y, size: size)
    }

    /// Text with cairo's toy API (no font files of our own; fontconfig picks a sans face).
    static func text(_ cr: OpaquePointer, _ bytes: [UInt8], x: Double, y: Double, size: Double) {
        guard size > 1 else { return }
        cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL)
        cairo_set_font_size(cr, size)
        cairo_move_to(cr, x, y)
        var zeroTerminated = bytes
        zeroTerminated.append(0)
        zeroTerminated.withUnsafeBufferPointer { b in
            b.baseAddress!.withMemoryRebound(to: CChar.self, capacity: b.count) { cairo_show_text(cr, $0) }
        }
    }
}
