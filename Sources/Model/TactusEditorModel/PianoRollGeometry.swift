import TactusEngine
import TactusModel

/// The piano roll's view: its size and layout in pixels, the zoom and the
/// scroll, and the mapping between pixels and beats and keys.
///
/// Layout, left to right and top to bottom: the keyboard strip
/// (`keyboardWidth` wide, the note names) left of the grid; the ruler
/// (`rulerHeight` high: beat numbers and the loop marker) above it; the
/// velocity strip (`velocityHeight` high) below it; the controller strip
/// (`controllerHeight` high, none when 0) below that; the scrollbar
/// (`scrollbarHeight` high, none when 0) at the bottom. In the grid, beats run
/// to the right from `firstBeat` at its left edge, `pixelsPerBeat` to a
/// beat; keys run down from `topKey` in the top row, `keyHeight` to a row.
///
/// Pixels are `Double`s with the origin at the view's top left; beats here are
/// `Double`s too (what a pixel means), made exact by a `SnapGrid`. Pure value
/// type; every method is O(1) except `hitTest` and `fitKeys` (O(notes)).
public struct PianoRollGeometry: Equatable, Sendable {
    /// The whole view, in pixels.
    public var width: Double
    public var height: Double
    /// The keyboard strip left of the grid.
    public var keyboardWidth: Double = 56
    /// The ruler above the grid.
    public var rulerHeight: Double = 22
    /// The velocity strip below the grid.
    public var velocityHeight: Double = 56
    /// The controller strip below the velocity strip (0: none; `PianoRollEditor` shows it).
    public var controllerHeight: Double = 0
    /// The horizontal scrollbar at the bottom, below the controller strip (0: none).
    public var scrollbarHeight: Double = 0
    /// How far from a note's end a press grabs the edge rather than the body
    /// (at most a third of the note's width).
    public var edgeGrabPixels: Double = 5
    /// How far from the loop marker (or a velocity stem) a press grabs it.
    public var markerGrabPixels: Double = 6
    /// The narrowest a note is drawn and hit, however short it is.
    public var minimumNoteWidth: Double = 3
    /// Zoom: pixels per beat, within `pixelsPerBeatRange`.
    public private(set) var pixelsPerBeat: Double = 96
    /// The height of a key's row, within `keyHeightRange`.
    public private(set) var keyHeight: Double = 12
    /// The beat at the grid's left edge, `>= 0`.
    public var firstBeat: Double = 0 {
        didSet { firstBeat = firstBeat.isFinite ? Swift.min(Swift.max(firstBeat, 0), 1_000_000) : 0 }
    }
    /// The key of the grid's top row, 0-127.
    public var topKey: Int = 84 {
        didSet { topKey = Swift.min(Swift.max(topKey, 0), 127) }
    }

    /// From a whole song in a narrow window (`zoomToFit`: 2,000 bars of 4/4 in 80 pixels) to 1/96 beat over 40 pixels.
    public static var pixelsPerBeatRange: ClosedRange<Double> { 0.01...4096 }
    public static var keyHeightRange: ClosedRange<Double> { 3...64 }

    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }

    /// Sets the zoom, kept within `pixelsPerBeatRange`.
    public mutating func setPixelsPerBeat(_ value: Double) {
        pixelsPerBeat = PianoRollGeometry.clamp(value, PianoRollGeometry.pixelsPerBeatRange)
    }

    /// Sets the height of a row, kept within `keyHeightRange`.
    public mutating func setKeyHeight(_ value: Double) {
        keyHeight = PianoRollGeometry.clamp(value, PianoRollGeometry.keyHeightRange)
    }

    // MARK: Regions

    /// The grid's left edge (the keyboard strip's right edge).
    public var gridLeft: Double { keyboardWidth }
    /// The grid's top edge (the ruler's bottom edge).
    public var gridTop: Double { rulerHeight }
    /// The grid's bottom edge (the velocity strip's top edge).
    public var gridBottom: Double { Swift.max(rulerHeight, height - velocityHeight - controllerHeight - scrollbarHeight) }
    /// The scrollbar's top edge (the controller strip's bottom edge).
    public var scrollbarTop: Double { height - scrollbarHeight }
    /// The controller strip's top edge (the velocity strip's bottom edge).
    public var controllerTop: Double { Swift.max(gridBottom, scrollbarTop - controllerHeight) }
    public var gridWidth: Double { Swift.max(0, width - keyboardWidth) }
    public var gridHeight: Double { gridBottom - gridTop }

    /// How many rows fit the grid whole (at least 1).
    public var wholeKeyRows: Int {
        Swift.max(1, Int(PianoRollGeometry.clamp(gridHeight / keyHeight, 0...1000).rounded(.down)))
    }

    /// The keys with a row at least partly in view, lowest first.
    public var visibleKeys: ClosedRange<Int> {
        let rows = Int(PianoRollGeometry.clamp(gridHeight / keyHeight, 0...1000).rounded(.up))
        return Swift.max(0, topKey - rows + 1)...topKey
    }

    /// The beat at the grid's right edge.
    public var lastVisibleBeat: Double { firstBeat + gridWidth / pixelsPerBeat }

    /// The beats across the grid, from its left edge to its right edge.
    public var visibleBeats: ClosedRange<Double> { firstBeat...Swift.max(firstBeat, lastVisibleBeat) }

    // MARK: Mapping

    /// The x of a beat.
    public func x(forBeat beat: Double) -> Double { gridLeft + (beat - firstBeat) * pixelsPerBeat }

    /// The beat at x (not snapped, not clamped).
    public func beat(forX x: Double) -> Double { firstBeat + (x - gridLeft) / pixelsPerBeat }

    /// The y of the top of a key's row.
    public func y(forKey key: Int) -> Double { gridTop + Double(topKey - key) * keyHeight }

    /// The key of the row at y (the grid's rows continued above and below
    /// it), nil outside 0-127.
    public func key(forY y: Double) -> Int? {
        let k = unclampedKey(forY: y)
        return (0...127).contains(k) ? k : nil
    }

    /// The key of the row at y, beyond 0-127 too (for drags past the edges).
    public func unclampedKey(forY y: Double) -> Int {
        let rows = PianoRollGeometry.clamp((y - gridTop) / keyHeight, -1000...1000).rounded(.down)
        return topKey - Int(rows)
    }

    /// The velocity strip's bars stand on `velocityBase` and reach up to
    /// `velocityTop` at velocity 127 (3 pixels inside the strip).
    public var velocityBase: Double { controllerTop - 3 }
    public var velocityTop: Double { gridBottom + 3 }

    /// The y of the top of a velocity bar.
    public func y(forVelocity velocity: UInt8) -> Double {
        velocityBase - Double(velocity) / 127 * Swift.max(0, velocityBase - velocityTop)
    }

    /// The controller strip's values stand between `controllerBase` (the
    /// lowest value) and `controllerPeak` (the highest), 4 pixels inside it.
    public var controllerBase: Double { scrollbarTop - 4 }
    public var controllerPeak: Double { controllerTop + 4 }

    /// The y of a controller's value: 0 at the base and 127 at the peak; a
    /// bend around the middle (its centre line, no bend), 8192 to a half.
    public func y(forControllerValue value: Int16, of kind: ControllerKind) -> Double {
        let span = Swift.max(0, controllerBase - controllerPeak)
        if kind == .bend { return controllerBase - span / 2 - Double(value) / 8192 * span / 2 }
        return controllerBase - Double(value) / 127 * span
    }

    /// The value a press at y in the controller strip sets, within the kind's range.
    public func controllerValue(forY y: Double, of kind: ControllerKind) -> Int16 {
        let span = controllerBase - controllerPeak
        guard span > 0, y.isFinite else { return kind == .bend ? 0 : 64 }
        let fraction = PianoRollGeometry.clamp((controllerBase - y) / span, 0...1)
        if kind == .bend { return Int16(PianoRollGeometry.clamp(((fraction - 0.5) * 2 * 8192).rounded(), -8192...8191)) }
        return Int16((fraction * 127).rounded())
    }

    /// The velocity a press at y in the velocity strip sets, 1-127.
    public func velocity(forY y: Double) -> UInt8 {
        let span = velocityBase - velocityTop
        guard span > 0, y.isFinite else { return 64 }
        let v = ((velocityBase - y) / span * 127).rounded()
        return UInt8(PianoRollGeometry.clamp(v, 1...127))
    }

    /// Where a note is drawn: left, top, width (at least
    /// `minimumNoteWidth`), height.
    public func rectangle(of note: EditorNote) -> (x: Double, y: Double, width: Double, height: Double) {
        let left = x(forBeat: note.start.approximateValue)
        let right = x(forBeat: note.approximateEnd)
        return (left, y(forKey: Int(note.key)), Swift.max(minimumNoteWidth, right - left), keyHeight)
    }

    /// The geometry of one lane's band in the stacked view (`LaneBand`): the
    /// same beats across, `keyHeight` to a row, `topKey` in the band's top row
    /// at y `top`, the grid ending at `bottom` (no ruler above it, no velocity
    /// strip or scrollbar below it: the view's own geometry has those).
    public func band(top: Double, bottom: Double, topKey: Int, keyHeight: Double) -> PianoRollGeometry {
        var g = self
        g.rulerHeight = top
        g.height = Swift.max(top, bottom)
        g.velocityHeight = 0
        g.controllerHeight = 0
        g.scrollbarHeight = 0
        g.keyHeight = keyHeight.isFinite && keyHeight > 0 ? keyHeight : self.keyHeight
        g.topKey = topKey
        return g
    }

    // MARK: Changing the view

    /// Zooms the beats by `factor` (> 1 zooms in), keeping the beat under x
    /// where it is (as far as `firstBeat >= 0` allows).
    public mutating func zoom(by factor: Double, around x: Double) {
        guard factor.isFinite, factor > 0, x.isFinite else { return }
        let anchor = beat(forX: x)
        setPixelsPerBeat(pixelsPerBeat * factor)
        firstBeat = anchor - (x - gridLeft) / pixelsPerBeat
    }

    /// Zooms and scrolls so that beats `0...beats` fill the grid's width
    /// (as far as `pixelsPerBeatRange` allows), beat 0 at its left edge.
    public mutating func fitBeats(_ beats: Double) {
        guard beats.isFinite, beats > 0, gridWidth > 0 else { return }
        setPixelsPerBeat(gridWidth / beats)
        firstBeat = 0
    }

    /// Scrolls so that `key` and the keys around it are in view when they are not.
    public mutating func scroll(toShowKey key: Int) {
        let rows = wholeKeyRows
        if key > topKey { topKey = key }
        if key < topKey - rows + 1 { topKey = key + rows - 1 }
    }

    /// Scrolls vertically so that the keys of `notes` are in view, centred;
    /// when they do not all fit, the highest are shown. Without notes, C4
    /// (60) is centred.
    public mutating func fitKeys(of notes: [EditorNote]) {
        var low = 127
        var high = 0
        for note in notes {
            low = Swift.min(low, Int(note.key))
            high = Swift.max(high, Int(note.key))
        }
        if notes.isEmpty { low = 60; high = 60 }
        let rows = wholeKeyRows
        let span = high - low + 1
        var top = span <= rows ? high + (rows - span) / 2 : high
        // Keep the rows within 0-127 when they fit.
        if rows <= 128 { top = Swift.max(top, rows - 1) }
        topKey = top
    }

    // MARK: Hit testing

    /// What is under (x, y), given the notes of the lane shown (in text
    /// order: a later note is drawn over an earlier one, so it is the one
    /// hit) and the lane's loop length. O(notes).
    public func hitTest(x: Double, y: Double, notes: [EditorNote], loopLength: BeatRational) -> PianoRollHit {
        guard x.isFinite, y.isFinite, x >= 0, y >= 0, x < width, y < height else { return .none }
        if y < gridTop {
            guard x >= gridLeft else { return .none }
            if abs(x - self.x(forBeat: loopLength.approximateValue)) <= markerGrabPixels { return .loopMarker }
            return .ruler(beat: beat(forX: x))
        }
        if y >= gridBottom {
            guard x >= gridLeft else { return .none }
            var best: UInt32?
            var bestDistance = markerGrabPixels
            for note in notes {
                let d = abs(x - self.x(forBeat: note.start.approximateValue))
                if d <= bestDistance {
                    best = note.id
                    bestDistance = d
                }
            }
            return .velocity(noteID: best)
        }
        guard let key = key(forY: y) else { return .none }
        if x < gridLeft { return .keyboard(key: UInt8(key)) }
        var i = notes.count - 1
        while i >= 0 {
            let note = notes[i]
            i -= 1
            guard Int(note.key) == key else { continue }
            let r = rectangle(of: note)
            guard x >= r.x, x <= r.x + r.width else { continue }
            let edge = Swift.min(edgeGrabPixels, r.width / 3)
            if x - r.x < edge { return .note(id: note.id, part: .startEdge) }
            if r.x + r.width - x < edge { return .note(id: note.id, part: .endEdge) }
            return .note(id: note.id, part: .body)
        }
        return .grid(beat: beat(forX: x), key: UInt8(key))
    }

    static func clamp(_ v: Double, _ range: ClosedRange<Double>) -> Double {
        guard v.isFinite else { return v > 0 ? range.upperBound : range.lowerBound }
        return Swift.min(Swift.max(v, range.lowerBound), range.upperBound)
    }
}
