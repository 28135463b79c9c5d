import CLV2UI
import TactusCoreEmbedded

/// Draws the piano roll of a `PianoRollEditor` on any cairo context (an X11
/// window's, or an image surface's in a test): the lane tabs and status line,
/// the ruler with bar and beat numbers and the loop marker, the keyboard strip
/// with note names, the grid, the notes coloured by velocity (selected ones
/// outlined, sounding ones lit), the velocity strip and the playhead.
///
/// Stateless; UI thread; O(notes shown + grid lines shown) per frame.
enum PianoRollPainter {
    /// The top line's height: lane tabs, the snap grid, the status. The ruler is below it.
    static var tabsHeight: Double { 20 }

    /// Which lane tab is at `x` on the top line, if any (the tabs are laid out as `draw` lays them).
    static func lane(atX x: Double, in editor: PianoRollEditor) -> Int? {
        var left = 4.0
        for (index, lane) in editor.document.lanes.enumerated() {
            let w = tabWidth(lane.name)
            if x >= left && x < left + w { return index }
            left += w + 4
        }
        return nil
    }

    private static func tabWidth(_ name: [UInt8]) -> Double { Double(name.count) * 7 + 12 }

    /// `playheadBeat`: where the playhead is (global beats), nil when the plugin has not said;
    /// `rolling`: whether notes under it sound (they are lit).
    static func draw(_ editor: PianoRollEditor, playheadBeat: Double?, rolling: Bool, status: [UInt8], statusIsError: Bool, on cr: OpaquePointer) {
        let g = editor.geometry
        let lane = editor.document.lanes[editor.laneIndex]
        let length = lane.length.approximateValue
        // The playhead's place in this lane's loop (§3: a pass starts at global beat 0).
        var laneBeat: Double? = nil
        if let beat = playheadBeat, length > 0 {
            let r = beat - (beat / length).rounded(.down) * length
            laneBeat = r
        }

        color(cr, 0.12, 0.12, 0.14)
        cairo_paint(cr)

        // Key rows: black keys darker.
        let gridLeft = g.gridLeft, gridRight = g.width
        let gridTop = g.gridTop, gridBottom = g.gridBottom
        for key in g.visibleKeys {
            let y = g.y(forKey: key)
            if isBlack(key) { color(cr, 0.15, 0.15, 0.18) } else { color(cr, 0.19, 0.19, 0.22) }
            rect(cr, gridLeft, y, gridRight - gridLeft, g.keyHeight)
            if key % 12 == 0 {
                color(cr, 0.3, 0.3, 0.34)
                rect(cr, gridLeft, y + g.keyHeight - 1, gridRight - gridLeft, 1)
            }
        }

        // Past the loop's end: shaded, so the loop length reads at a glance.
        let loopX = g.x(forBeat: length)
        if loopX < gridRight {
            color(cr, 0.0, 0.0, 0.0, 0.35)
            rect(cr, max(loopX, gridLeft), gridTop, gridRight - max(loopX, gridLeft), gridBottom - gridTop)
        }

        // Grid lines: the snap grid faint, beats brighter, bars (4 beats) brightest.
        let visible = g.firstBeat...g.lastVisibleBeat
        if let step = editor.snap.step?.approximateValue, step * g.pixelsPerBeat >= 4 {
            color(cr, 0.24, 0.24, 0.28)
            for line in editor.snap.lines(from: visible.lowerBound, through: visible.upperBound) {
                let x = g.x(forBeat: line.approximateValue)
                if x >= gridLeft { rect(cr, x, gridTop, 1, gridBottom - gridTop) }
            }
        }
        var b = visible.lowerBound.rounded(.down)
        while b <= visible.upperBound {
            let x = g.x(forBeat: b)
            if x >= gridLeft {
                let bar = Int(b) % 4 == 0
                if bar { color(cr, 0.55, 0.55, 0.6) } else { color(cr, 0.36, 0.36, 0.4) }
                rect(cr, x, gridTop, 1, gridBottom - gridTop)
                // The ruler: bar.beat numbers, from 1 as musicians count.
                color(cr, 0.8, 0.8, 0.85)
                if bar || g.pixelsPerBeat >= 28 {
                    let beatNumber = Int(b)
                    text(cr, bar ? "\(beatNumber / 4 + 1)" : "\(beatNumber / 4 + 1).\(beatNumber % 4 + 1)", x: x + 3, y: gridTop - 5, size: 10)
                }
            }
            b += 1
        }

        // Notes of this lane: colour by velocity (dim blue to bright orange).
        for note in editor.laneNotes {
            let start = note.start.approximateValue
            let key = Int(note.key)
            guard g.visibleKeys.contains(key) else { continue }
            // Where the model hit-tests the note: drawn there, so that what is seen is what is grabbed.
            let box = g.rectangle(of: note)
            let x0 = box.x, x1 = box.x + box.width, y = box.y
            guard x1 >= gridLeft, x0 <= gridRight else { continue }
            let v = Double(note.velocity) / 127
            var sounding = false
            if rolling, let beat = laneBeat {
                let end = note.approximateEnd
                sounding = (beat >= start && beat < end) || (end > length && beat < end - length)
            }
            if sounding { color(cr, 1.0, 0.95, 0.55) } else { color(cr, 0.25 + 0.7 * v, 0.45 + 0.1 * v, 0.85 - 0.6 * v) }
            let left = max(x0, gridLeft)
            rect(cr, left + 1, y + 1, max(x1 - left - 2, 1), box.height - 2)
            if editor.selection.contains(note.id) {
                color(cr, 1, 1, 1)
                cairo_set_line_width(cr, 2)
                cairo_rectangle(cr, left + 1, y + 1, max(x1 - left - 2, 1), box.height - 2)
                cairo_stroke(cr)
            }
            // The velocity strip: one bar per note, its height the velocity.
            if x0 >= gridLeft {
                color(cr, 0.25 + 0.7 * v, 0.45 + 0.1 * v, 0.85 - 0.6 * v)
                let top = g.y(forVelocity: note.velocity)
                rect(cr, x0, top, 3, g.velocityBase - top)
            }
        }

        // A rubber band being dragged.
        if let band = editor.selectionRectangle {
            color(cr, 0.6, 0.8, 1.0, 0.2)
            let x0 = g.x(forBeat: band.firstBeat), x1 = g.x(forBeat: band.lastBeat)
            let y0 = g.y(forKey: band.highKey), y1 = g.y(forKey: band.lowKey) + g.keyHeight
            rect(cr, x0, y0, x1 - x0, y1 - y0)
        }

        // The loop marker (a handle to drag in the ruler).
        if loopX >= gridLeft && loopX <= gridRight {
            color(cr, 0.95, 0.6, 0.15)
            rect(cr, loopX - 1, gridTop - 14, 3, gridBottom - gridTop + 14)
            cairo_move_to(cr, loopX - 7, gridTop - 14)
            cairo_line_to(cr, loopX + 8, gridTop - 14)
            cairo_line_to(cr, loopX + 1, gridTop - 4)
            cairo_close_path(cr)
            cairo_fill(cr)
        }

        // The keyboard strip: note names on every C, lit keys while they sound.
        for key in g.visibleKeys {
            let y = g.y(forKey: key)
            if isBlack(key) { color(cr, 0.08, 0.08, 0.08) } else { color(cr, 0.88, 0.88, 0.86) }
            rect(cr, 0, y, g.keyboardWidth - 2, g.keyHeight - 1)
            if key % 12 == 0, g.keyHeight >= 7 {
                color(cr, 0.2, 0.2, 0.2)
                text(cr, NoteName.name(UInt8(key)), x: 3, y: y + g.keyHeight - 2, size: min(g.keyHeight, 11))
            }
        }

        // The playhead.
        if let beat = laneBeat {
            let x = g.x(forBeat: beat)
            if x >= gridLeft && x <= gridRight {
                color(cr, 1.0, 0.3, 0.25)
                rect(cr, x, gridTop, 2, gridBottom - gridTop)
            }
        }

        // The top line: lane tabs, the snap grid, and the status (an error or a notice).
        color(cr, 0.09, 0.09, 0.1)
        rect(cr, 0, 0, g.width, tabsHeight)
        var x = 4.0
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
        color(cr, 0.75, 0.75, 0.8)
        text(cr, Array("snap ".utf8) + editor.snap.label, x: x + 8, y: 14, size: 11)
        if !status.isEmpty {
            if statusIsError { color(cr, 1.0, 0.45, 0.4) } else { color(cr, 0.85, 0.8, 0.55) }
            text(cr, status, x: x + 80, y: 14, size: 11)
        }
    }

    private static func isBlack(_ key: Int) -> Bool {
        switch key % 12 {
        case 1, 3, 6, 8, 10: return true
        default: return false
        }
    }

    private static func color(_ cr: OpaquePointer, _ r: Double, _ g: Double, _ b: Double, _ a: Double = 1) {
        cairo_set_source_rgba(cr, r, g, b, a)
    }

    private static func rect(_ cr: OpaquePointer, _ x: Double, _ y: Double, _ w: Double, _ h: Double) {
        cairo_rectangle(cr, x, y, w, h)
        cairo_fill(cr)
    }

    private static func text(_ cr: OpaquePointer, _ s: String, x: Double, y: Double, size: Double) {
        text(cr, Array(s.utf8), x: x, y: y, size: size)
    }

    /// Text with cairo's toy API (no font files of our own; fontconfig picks a sans face).
    private static func text(_ cr: OpaquePointer, _ bytes: [UInt8], x: Double, y: Double, size: Double) {
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
