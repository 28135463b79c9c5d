import CLV2UI
import TactusEngine
import TactusModel
import TactusEditorModel

/// Draws the scene's rows of a text of several patterns, between the top
/// line and the ruler (laid out by `SceneLayout`): a button per pattern, its
/// ▶ to queue it and its name to edit it (the pattern edited underlined in
/// blue, the one playing lit green, the one queued blinking orange with the
/// beats left until it takes over); with a song, the song's switch and its
/// entries (the one playing lit).
///
/// Stateless; UI thread; O(patterns + entries shown) per frame.
enum ScenePainter {
    static var playing: (Double, Double, Double) { (0.2, 0.62, 0.32) }
    static var queued: (Double, Double, Double) { (0.95, 0.6, 0.15) }
    static var idle: (Double, Double, Double) { (0.2, 0.2, 0.24) }
    static var edited: (Double, Double, Double) { (0.3, 0.45, 0.7) }

    /// `beat`: the playhead's host beat (nil: unknown); `seconds`: now, for the blink while stopped.
    static func draw(
        _ layout: SceneLayout, document: EditorDocument, scene: PatternScene, beat: Double?, rolling: Bool, seconds: Double,
        scale: Double, on cr: OpaquePointer
    ) {
        cairo_save(cr)
        cairo_scale(cr, scale, scale)
        fill(cr, (0.09, 0.09, 0.1), 0, layout.top, layout.width, layout.height)
        let blinkOn = PatternScene.blinkIsOn(beat: beat, rolling: rolling, seconds: seconds)
        let rowTop = layout.top + 2, rowHeight = SceneLayout.patternRowHeight - 4
        for (i, name) in document.patternNames.enumerated() {
            guard let b = layout.patternButton(i) else { break }
            let isPlaying = scene.playing == i + 1
            let isQueued = scene.queued == i + 1
            let body = isPlaying ? playing : (isQueued && blinkOn ? queued : idle)
            fill(cr, body, b.x, rowTop, b.width, rowHeight)
            // The ▶ that queues the pattern.
            fill(cr, (0.13, 0.13, 0.16), b.x, rowTop, SceneLayout.playWidth, rowHeight)
            if isPlaying { PianoRollPainter.color(cr, 0.55, 1.0, 0.6) } else { PianoRollPainter.color(cr, 0.8, 0.8, 0.85) }
            let mid = rowTop + rowHeight / 2
            cairo_move_to(cr, b.x + 5, mid - 5)
            cairo_line_to(cr, b.x + 14, mid)
            cairo_line_to(cr, b.x + 5, mid + 5)
            cairo_close_path(cr)
            cairo_fill(cr)
            if i == document.patternIndex { fill(cr, edited, b.x + SceneLayout.playWidth, rowTop + rowHeight - 3, b.width - SceneLayout.playWidth, 3) }
            var label = name
            if isQueued, let left = scene.beatsLeft(atBeat: beat) { label += Array(" \(left)".utf8) }
            cairo_save(cr)
            cairo_rectangle(cr, b.x + SceneLayout.playWidth, rowTop, b.width - SceneLayout.playWidth - 2, rowHeight)
            cairo_clip(cr)
            if isPlaying || (isQueued && blinkOn) { PianoRollPainter.color(cr, 0.05, 0.05, 0.05) } else { PianoRollPainter.color(cr, 0.95, 0.95, 0.95) }
            PianoRollPainter.text(cr, label, x: b.x + SceneLayout.playWidth + 4, y: rowTop + 14, size: 11)
            cairo_restore(cr)
        }
        guard let song = document.song, let s = layout.songSwitch else {
            cairo_restore(cr)
            return
        }
        let songTop = layout.top + SceneLayout.patternRowHeight + 1, songHeight = SceneLayout.songRowHeight - 3
        fill(cr, scene.songOn ? playing : idle, s.x, songTop, s.width, songHeight)
        if scene.songOn { PianoRollPainter.color(cr, 0.05, 0.05, 0.05) } else { PianoRollPainter.color(cr, 0.8, 0.8, 0.85) }
        PianoRollPainter.text(cr, scene.songOn ? "song on" : "song off", x: s.x + 6, y: songTop + 12, size: 10)
        let current = scene.songOn && scene.songEntry > 0 ? scene.songEntry - 1 : nil
        for e in layout.songEntries(current: current) {
            let entry = song.entries[e.entry]
            let lit = current == e.entry
            fill(cr, lit ? playing : idle, e.x, songTop, e.width, songHeight)
            var label = document.patternNames[entry.pattern]
            if entry.passes > 1 { label += Array(" ×\(entry.passes)".utf8) }
            cairo_save(cr)
            cairo_rectangle(cr, e.x, songTop, e.width - 2, songHeight)
            cairo_clip(cr)
            if lit { PianoRollPainter.color(cr, 0.05, 0.05, 0.05) } else { PianoRollPainter.color(cr, 0.85, 0.85, 0.88) }
            PianoRollPainter.text(cr, label, x: e.x + 4, y: songTop + 12, size: 10)
            cairo_restore(cr)
        }
        cairo_restore(cr)
    }

    private static func fill(_ cr: OpaquePointer, _ c: (Double, Double, Double), _ x: Double, _ y: Double, _ w: Double, _ h: Double) {
        PianoRollPainter.color(cr, c.0, c.1, c.2)
        PianoRollPainter.rect(cr, x, y, w, h)
    }
}
