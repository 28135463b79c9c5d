import CLV2UI
import TactusEngine
import TactusModel
import TactusEditorModel

/// Draws the controller strip under the velocity strip (`PianoRollEditor`'s
/// `ControllerStrip`): the chosen controller's name (a menu opens on it),
/// what it sends in one pass of the lane as steps (the engine's ramp
/// samples, `ControllerCycle.laneSteps`, never computed here), a bend
/// around its centre line, its points (ramp points as diamonds, the
/// selected one outlined, its value written), and the menu when open; the
/// `CC` switch left of the velocity strip; and a lock's value over a note
/// under the pointer.
///
/// The steps are drawn one pixel column at a time (a column's lowest and
/// highest value as one vertical line), so a ramp of thousands of steps
/// costs what the strip's width costs. UI thread; O(steps in view + points
/// + width) per frame.
enum ControllerStripPainter {
    static func draw(_ editor: PianoRollEditor, steps: [ControllerCycle.Step], on cr: OpaquePointer) {
        let g = editor.geometry
        if g.controllerTop - g.gridBottom >= 14 {
            // The switch that shows or hides the strip.
            let on = editor.showsControllerStrip
            if on { PianoRollPainter.color(cr, 0.3, 0.45, 0.7) } else { PianoRollPainter.color(cr, 0.22, 0.22, 0.26) }
            PianoRollPainter.rect(cr, 2, g.gridBottom + 2, 26, 13)
            PianoRollPainter.color(cr, 0.95, 0.95, 0.95)
            PianoRollPainter.text(cr, "CC", x: 6, y: g.gridBottom + 12, size: 10)
        }
        guard g.controllerHeight > 0 else { return }
        let top = g.controllerTop, bottom = g.scrollbarTop
        let left = g.gridLeft, right = g.width
        PianoRollPainter.color(cr, 0.1, 0.1, 0.12)
        PianoRollPainter.rect(cr, 0, top, g.width, bottom - top)
        PianoRollPainter.color(cr, 0.16, 0.16, 0.19)
        PianoRollPainter.rect(cr, left, top + 1, right - left, bottom - top - 1)

        // The name (a menu opens on it).
        let laneChannel = editor.document.defaultChannel(ofLane: editor.laneIndex)
        let chosen = editor.chosenController
        PianoRollPainter.color(cr, 0.22, 0.32, 0.5)
        PianoRollPainter.rect(cr, 2, top + 3, left - 6, 16)
        PianoRollPainter.color(cr, 0.95, 0.95, 0.95)
        let name = chosen.map { $0.label(laneChannel: laneChannel) } ?? Array("add...".utf8)
        cairo_save(cr)
        cairo_rectangle(cr, 0, top, left - 4, bottom - top)
        cairo_clip(cr)
        PianoRollPainter.text(cr, name + Array(" \u{25BE}".utf8), x: 5, y: top + 15, size: 10)
        cairo_restore(cr)

        cairo_save(cr)
        cairo_rectangle(cr, left, top, right - left, bottom - top)
        cairo_clip(cr)
        let length = editor.lane.length.approximateValue
        let loopX = g.x(forBeat: length)
        if let c = chosen {
            if c.kind == .bend {
                // The centre line: no bend.
                PianoRollPainter.color(cr, 0.45, 0.45, 0.5)
                PianoRollPainter.rect(cr, left, g.y(forControllerValue: 0, of: .bend).rounded(.down), right - left, 1)
            }
            drawSteps(steps, kind: c.kind, geometry: g, length: length, on: cr)
            drawPoints(editor, kind: c.kind, on: cr)
        }
        if loopX < right {
            PianoRollPainter.color(cr, 0, 0, 0, 0.35)
            PianoRollPainter.rect(cr, Swift.max(loopX, left), top, right - Swift.max(loopX, left), bottom - top)
        }
        cairo_restore(cr)
        if editor.controllerMenuOpen { drawMenu(editor, on: cr) }
    }

    /// The values sent, held from step to step across the pass (the last
    /// step's value before the first), one column of pixels at a time.
    static func drawSteps(_ steps: [ControllerCycle.Step], kind: ControllerKind, geometry g: PianoRollGeometry, length: Double, on cr: OpaquePointer) {
        guard let last = steps.last else { return }
        let from = Swift.max(0, g.firstBeat), to = Swift.min(length, g.lastVisibleBeat)
        guard to > from else { return }
        // The first step after `from`: a binary search (steps are sorted by beat).
        var low = 0, high = steps.count
        while low < high {
            let mid = (low + high) / 2
            if steps[mid].beat <= from { low = mid + 1 } else { high = mid }
        }
        var value = low > 0 ? steps[low - 1].value : last.value
        var x = g.x(forBeat: from)
        var y = g.y(forControllerValue: value, of: kind)
        let base = kind == .bend ? g.y(forControllerValue: 0, of: .bend) : g.controllerBase
        cairo_move_to(cr, x, base)
        cairo_line_to(cr, x, y)
        var column = Int(x.rounded(.down))
        var i = low
        while i < steps.count, steps[i].beat < to {
            let sx = g.x(forBeat: steps[i].beat)
            let sy = g.y(forControllerValue: steps[i].value, of: kind)
            let c = Int(sx.rounded(.down))
            if c != column {
                cairo_line_to(cr, sx, y)
                column = c
            }
            cairo_line_to(cr, sx, sy)
            x = sx
            y = sy
            value = steps[i].value
            i += 1
            // Many steps in one column: only the column's last value goes on.
            while i < steps.count, steps[i].beat < to, Int(g.x(forBeat: steps[i].beat).rounded(.down)) == column {
                let vy = g.y(forControllerValue: steps[i].value, of: kind)
                cairo_line_to(cr, sx, vy)
                y = vy
                i += 1
            }
        }
        let endX = g.x(forBeat: to)
        cairo_line_to(cr, endX, y)
        // The area under the steps (from the centre line for a bend), then the line itself.
        cairo_line_to(cr, endX, base)
        cairo_close_path(cr)
        PianoRollPainter.color(cr, 0.35, 0.75, 0.55, 0.25)
        cairo_fill_preserve(cr)
        PianoRollPainter.color(cr, 0.45, 0.9, 0.65)
        cairo_set_line_width(cr, 1)
        cairo_stroke(cr)
    }

    static func drawPoints(_ editor: PianoRollEditor, kind: ControllerKind, on cr: OpaquePointer) {
        let g = editor.geometry
        let visible = g.firstBeat - 1...g.lastVisibleBeat + 1
        for i in editor.chosenPoints {
            let p = editor.document.controllers[i]
            let beat = p.start.approximateValue
            guard visible.contains(beat) else { continue }
            let x = g.x(forBeat: beat), y = g.y(forControllerValue: p.value, of: kind)
            PianoRollPainter.color(cr, 0.95, 0.85, 0.35)
            if p.ramp {
                cairo_move_to(cr, x, y - 4)
                cairo_line_to(cr, x + 4, y)
                cairo_line_to(cr, x, y + 4)
                cairo_line_to(cr, x - 4, y)
                cairo_close_path(cr)
            } else {
                cairo_rectangle(cr, x - 3, y - 3, 6, 6)
            }
            if editor.selectedPoint == i {
                cairo_fill_preserve(cr)
                PianoRollPainter.color(cr, 1, 1, 1)
                cairo_set_line_width(cr, 1.5)
                cairo_stroke(cr)
                let label = "\(p.value) at \(PatternWriter.beatText(p.start))" + (p.ramp ? " ramp" : "")
                PianoRollPainter.color(cr, 0.95, 0.95, 0.95)
                PianoRollPainter.text(cr, label, x: x + 6, y: Swift.max(g.controllerTop + 11, Swift.min(y - 5, g.scrollbarTop - 3)), size: 10)
            } else {
                cairo_fill(cr)
            }
        }
    }

    static func drawMenu(_ editor: PianoRollEditor, on cr: OpaquePointer) {
        let items = editor.controllerMenuItems
        let o = editor.controllerMenuOrigin
        let h = PianoRollEditor.menuItemHeight, w = PianoRollEditor.menuWidth
        PianoRollPainter.color(cr, 0.08, 0.08, 0.1)
        PianoRollPainter.rect(cr, o.x - 1, o.y - 1, w + 2, Double(items.count) * h + 2)
        var hovered = -1
        if case .controllerMenuItem(let i) = editor.hover { hovered = i }
        for (i, item) in items.enumerated() {
            let y = o.y + Double(i) * h
            if i == hovered { PianoRollPainter.color(cr, 0.3, 0.45, 0.7) } else if item.adds { PianoRollPainter.color(cr, 0.2, 0.2, 0.24) } else { PianoRollPainter.color(cr, 0.24, 0.3, 0.4) }
            PianoRollPainter.rect(cr, o.x, y, w, h - 1)
            PianoRollPainter.color(cr, 0.95, 0.95, 0.95)
            PianoRollPainter.text(cr, item.label, x: o.x + 5, y: y + h - 4, size: 10)
        }
    }

    /// A lock's values (`cc74=110`) beside the note under the pointer, when it has locks.
    static func drawLockLabel(_ editor: PianoRollEditor, on cr: OpaquePointer) {
        guard case .note(let id, _) = editor.hover, let note = editor.document.note(id), !note.locks.isEmpty else { return }
        let g = editor.bandGeometry(note.lane) ?? editor.geometry
        let box = g.rectangle(of: note)
        var label: [UInt8] = []
        for (i, lock) in note.locks.enumerated() { label += Array(((i > 0 ? " " : "") + lock.text).utf8) }
        let x = Swift.max(g.gridLeft, box.x), y = Swift.max(g.gridTop + 12, box.y - 2)
        PianoRollPainter.color(cr, 0.08, 0.08, 0.1, 0.9)
        PianoRollPainter.rect(cr, x, y - 11, Double(label.count) * 6 + 8, 14)
        PianoRollPainter.color(cr, 0.95, 0.6, 0.15)
        PianoRollPainter.text(cr, label, x: x + 4, y: y, size: 10)
    }
}
