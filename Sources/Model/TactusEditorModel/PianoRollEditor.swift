import TactusEngine
import TactusModel

/// The piano roll's editing state machine, independent of any UI toolkit: a
/// UI feeds it pointer and key events and draws what it holds; it answers
/// each event with the `EditorEffects` the UI must carry out.
///
/// **Mouse** (left button):
/// - on empty grid: adds a note at the grid line at or before the pointer
///   (the cell clicked), as long as the last note touched (one grid step,
///   1/4 beat with the grid off, until one is), at the last velocity touched
///   (100 at first), on the channel of the last note touched in the lane
///   (else the lane's last note's, else the lane's channel); the drag that
///   follows sets its end. With Shift: a rubber band that adds the notes it
///   touches to the selection.
/// - on a note's body: selects it (Shift: adds it to, or takes it out of,
///   the selection) and drags every selected note along: the grabbed note's
///   start lands on the grid (the grid off: moves by 1/96-beat steps), keys
///   follow by rows. The group stops at the lane's start and end (a start
///   stays `0 <= start < length`) and at keys 0 and 127.
/// - on a note's edge: resizes the selected notes by the same amount, the
///   grabbed edge landing on the grid; a note keeps at least one grid step
///   (or its own length, when shorter).
/// - with Control on a note: a vertical drag changes the selected notes'
///   velocities, one per pixel.
/// - in the velocity strip: sets the velocity of the note whose stem is
///   under the pointer from the pointer's height; dragging paints across stems.
/// - on the loop marker (in the ruler): the lane's length follows the
///   pointer on the grid. It cannot go below the first grid line after the
///   lane's last note start: the loop never shrinks past a note (notes are
///   never deleted by it; move or delete them first), as the prompt's
///   `length` refuses the same.
/// - on the keyboard strip: sounds the key.
/// - in the controller strip (under the velocity strip): adds, drags and,
///   with the right button, deletes controller points; `r` toggles a
///   point's ramp, `c` shows or hides the strip (`ControllerStrip.swift`).
///
/// Right button: deletes the note under the pointer, and every note the
/// drag then passes over. Middle button: drags the view. A drag counts only
/// once it passes `dragThresholdPixels`, so a click never moves a note.
///
/// **Keys** (`key(_:)`): Delete or BackSpace deletes the selection; Ctrl+Z
/// undoes, Ctrl+Shift+Z or Ctrl+Y redoes; `+` (or `=`) and `-` zoom;
/// `g` cycles the snap grid (Shift+G backwards); `f` toggles following the
/// playhead; Tab or PageDown shows the next lane, Shift+Tab or PageUp the
/// previous; Left and Right move the selection by a grid step (the view by
/// a beat when nothing is selected); Up and Down by a semitone (Shift: an
/// octave; the view when nothing is selected); Ctrl+A selects the lane's
/// notes; Escape cancels a drag and clears the selection; Home and End show
/// the loop's start and end; `z` zooms to fit the whole pattern; `l` shows
/// every lane stacked or one lane at a time; `m` mutes or unmutes the lane
/// (in the plugin). While a drag is under way only the keys that do not
/// edit (zoom, snap, follow, Escape) act.
///
/// **Every lane** (`showsAllLanes`, on at first; a pattern of one lane is
/// always shown alone): the lanes stacked top to bottom, each in a band of
/// the keys its notes use (`LaneStack`), its loop shaded past its own
/// length, its name and a mute button (version 2) in a header left of it.
/// A press in a band makes its lane the lane edited (`laneIndex`) and acts
/// there as in a lane shown alone; the ruler's loop marker and the velocity
/// strip are the edited lane's. The wheel scrolls the stack.
///
/// **Navigation.** Shift+wheel (or a horizontal wheel) scrolls in time,
/// Control+wheel zooms around the pointer, the scrollbar at the bottom
/// (`scrollbarThumb`) shows which part of the pattern is in view: drag its
/// thumb, or press its track to bring that place to the middle. The ruler
/// counts bars by the host's meter (`setBeatsPerBar`, `BarRuler`).
///
/// **Undo.** Each finished drag, click or key edit is one step (at most 200
/// kept, fewer for patterns of thousands of notes: `EditHistory`); a new
/// pattern from the plugin (`replace(with:)`) is one too, so a preset loaded
/// by mistake can be undone. Undo and redo restore the notes, the lanes and
/// the selection, and ask the UI to send the pattern.
///
/// **Commit.** `commit` is set when an edit is finished (a release, a key, an
/// undo), never during a drag: the UI then sends `text()` to the plugin.
///
/// Value type, UI thread only; allocates. Every event is O(n) in the notes
/// plus the document's check (`EditorDocument`).
public struct PianoRollEditor {
    /// The pattern being edited.
    public internal(set) var document: EditorDocument {
        didSet {
            generation &+= 1
            if gesture == nil { layoutBands() }
        }
    }
    /// Counts the document's changes: a UI rebuilds what it derives from the
    /// notes (a `NoteTimeIndex`) when this differs from the value it was built at.
    public private(set) var generation: UInt64 = 0
    /// Whether every lane is shown, stacked (else the lane `laneIndex` alone).
    public private(set) var showsAllLanes = true
    /// The stacked view's bands, one per lane (kept while a drag is under way).
    public private(set) var bands: [LaneBand] = []
    /// Pixels the stack is scrolled down by.
    public private(set) var stackScroll: Double = 0
    /// The stacked view's row height.
    public private(set) var stackKeyHeight: Double = 4
    /// The stacked view's header (name, mute button) left of each band,
    /// in place of the keyboard strip.
    public var laneHeaderWidth: Double = 120
    /// The keyboard strip's width when a lane is shown alone.
    public var keyboardStripWidth: Double
    /// The plugin's lane mutes as far as the editor knows: what its mute
    /// buttons show (`setMuted`, `setParameterMutes`, `toggleMute`).
    public private(set) var mutes = LaneMutes()
    /// The lanes shown muted (bit i: lane i).
    public var laneMutes: UInt64 { mutes.shown }
    /// Beats in a bar, as the host's meter says (4 until it does): the ruler counts bars by it.
    public private(set) var beatsPerBar: Double = 4
    /// What the plugin plays, as far as the editor knows (`setScene`).
    public private(set) var scene = PatternScene()
    /// The lane shown (lanes are tabs), an index into `document.lanes`.
    public private(set) var laneIndex: Int = 0
    /// The view. The UI sets its size (`resize`); the editor zooms and scrolls it.
    public var geometry: PianoRollGeometry
    /// The snap grid (1/16 at first).
    public private(set) var snap: SnapGrid = .sixteenth
    /// The selected notes (all in the lane shown).
    public private(set) var selection = NoteSelection()
    /// Whether the view scrolls to keep the playhead in sight (`playheadMoved`).
    public private(set) var followPlayhead = false
    /// What the pointer is over while no button is held (for the cursor's shape).
    public internal(set) var hover: PianoRollHit = .none
    /// The rubber band being drawn, if any.
    public private(set) var selectionRectangle: SelectionRectangle?
    /// The velocity new notes get: the last one touched or set (100 at first).
    public private(set) var lastVelocity: UInt8 = 100
    /// The duration new notes get: the last one touched or set (nil: one grid step).
    public private(set) var lastDuration: BeatRational?

    /// How far (pixels) the pointer must travel before a press becomes a drag.
    public static var dragThresholdPixels: Double { 3 }

    /// The controller strip (`ControllerStrip.swift`): the controller chosen
    /// in its menu (nil: the lane's first), shown or hidden by the person
    /// (nil: shown when the pattern has points), the point selected (an
    /// index into `document.controllers`), the menu and the number typed in it.
    public internal(set) var controllerChoice: ControllerChoice?
    public internal(set) var controllerStripSetting: Bool?
    public internal(set) var selectedPoint: Int?
    public internal(set) var controllerMenuOpen = false
    public internal(set) var controllerMenuDigits: [UInt8] = []

    var lastChannel: UInt8?
    var history = EditHistory()
    var gesture: Gesture?
    /// The state when the current gesture began: what undo returns to.
    var gestureStart: EditHistory.Snapshot?
    var pointerX: Double = 0
    var pointerY: Double = 0
    /// The key mapping of the lane a gesture works in, fixed at its press.
    var gestureGeometry: PianoRollGeometry?

    /// An editor of `document`, showing its first lane in a view of this
    /// size, scrolled to the lane's keys (every lane stacked, when it has
    /// several, their rows fitted to the view's height).
    public init(document: EditorDocument, width: Double, height: Double) {
        self.document = document
        geometry = PianoRollGeometry(width: width, height: height)
        keyboardStripWidth = geometry.keyboardWidth
        geometry.fitKeys(of: document.notes(inLane: 0))
        layoutBands()
        fitLanes()
    }

    // MARK: What the UI draws

    /// The lane shown.
    public var lane: PatternLane { document.lanes[laneIndex] }
    /// The notes of the lane shown, in text order (draw them in this order).
    public var laneNotes: [EditorNote] { document.notes(inLane: laneIndex) }
    /// The pattern text to send to the plugin.
    public func text() -> [UInt8] { document.text() }
    /// What the document has to say about the text's comments (see `EditorDocument.notice`).
    public var notice: [UInt8]? { document.notice }
    public var canUndo: Bool { !history.undoStack.isEmpty }
    public var canRedo: Bool { !history.redoStack.isEmpty }
    /// Whether a button is held (a gesture is under way).
    public var isDragging: Bool { gesture != nil }

    /// What is under (x, y): in the lane shown, or in the stacked view in
    /// the band of the lane `lane(atY:)` names.
    public func hitTest(x: Double, y: Double) -> PianoRollHit { locate(x: x, y: y).hit }

    /// Whether the lanes are stacked now: every lane is asked for and there are several.
    public var isStacked: Bool { showsAllLanes && document.lanes.count > 1 }

    /// The geometry of lane `lane`'s band in the stacked view (where its rows are now), nil when not stacked.
    public func bandGeometry(_ lane: Int) -> PianoRollGeometry? {
        guard isStacked, bands.indices.contains(lane) else { return nil }
        let b = bands[lane]
        let top = geometry.gridTop + b.top - stackScroll
        return geometry.band(top: top, bottom: top + b.height, topKey: b.highKey, keyHeight: b.keyHeight)
    }

    /// The lane whose band is at y in the stacked view (nil: not stacked, or
    /// between bands, or outside the grid).
    public func lane(atY y: Double) -> Int? {
        guard isStacked, y >= geometry.gridTop, y < geometry.gridBottom else { return nil }
        let offset = y - geometry.gridTop + stackScroll
        // Bands are in order: a binary search for the last one starting at or above y.
        var low = 0
        var high = bands.count
        while low < high {
            let mid = (low + high) / 2
            if bands[mid].top <= offset { low = mid + 1 } else { high = mid }
        }
        guard low > 0 else { return nil }
        let b = bands[low - 1]
        return offset < b.top + b.height ? b.lane : nil
    }

    /// Whether the mute controls address the lanes shown: they address the
    /// lanes of the pattern that plays (§7.6, pattern format "Version 3"), so
    /// in a text of several patterns only that pattern's lanes have mute buttons.
    public var mutesAddressLanesShown: Bool {
        document.version >= 2 && (document.patternNames.count <= 1 || scene.playing == document.patternIndex + 1)
    }

    /// The mute button in lane `lane`'s header (stacked view, version 2 or 3
    /// and the pattern that plays): left, top, width, height.
    public func muteButton(ofLane lane: Int) -> (x: Double, y: Double, width: Double, height: Double)? {
        guard mutesAddressLanesShown, lane < 64, let g = bandGeometry(lane) else { return nil }
        let h = Swift.min(14, Swift.max(g.gridBottom - g.gridTop, 4))
        return (geometry.gridLeft - 22, g.gridTop, 18, h)
    }

    /// The beats the scrollbar stands for: the lane shown (stacked: the
    /// longest lane), or further when the view is scrolled past it.
    public var scrollbarBeats: Double {
        var longest = lane.length.approximateValue
        if isStacked { for l in document.lanes { longest = Swift.max(longest, l.length.approximateValue) } }
        return Swift.max(longest, geometry.lastVisibleBeat)
    }

    /// The scrollbar's thumb (the part of `scrollbarBeats` in view): its left
    /// edge and width in pixels, at least 8 wide. Nil without a scrollbar.
    public func scrollbarThumb() -> (x: Double, width: Double)? {
        let g = geometry
        guard g.scrollbarHeight > 0, g.gridWidth > 0 else { return nil }
        let total = scrollbarBeats
        guard total > 0 else { return nil }
        let scale = g.gridWidth / total
        var x = g.gridLeft + g.firstBeat * scale
        var w = (g.lastVisibleBeat - g.firstBeat) * scale
        if w < 8 {
            x -= (8 - w) / 2
            w = 8
        }
        return (Swift.max(g.gridLeft, Swift.min(x, g.width - w)), w)
    }

    /// What is at (x, y), the lane it belongs to and the geometry that maps
    /// its keys (a band's in the stacked view).
    func locate(x: Double, y: Double) -> (hit: PianoRollHit, lane: Int, geometry: PianoRollGeometry) {
        let g = geometry
        guard x.isFinite, y.isFinite, x >= 0, y >= 0, x < g.width, y < g.height else { return (.none, laneIndex, g) }
        if g.scrollbarHeight > 0, y >= g.scrollbarTop {
            guard x >= g.gridLeft, let thumb = scrollbarThumb() else { return (.none, laneIndex, g) }
            let beat = (x - g.gridLeft) / g.gridWidth * scrollbarBeats
            return (.scrollbar(beat: beat, onThumb: x >= thumb.x && x <= thumb.x + thumb.width), laneIndex, g)
        }
        if let strip = controllerStripHit(x: x, y: y) { return (strip, laneIndex, g) }
        guard isStacked, y >= g.gridTop, y < g.gridBottom else {
            return (g.hitTest(x: x, y: y, notes: laneNotes, loopLength: lane.length), laneIndex, g)
        }
        guard let l = lane(atY: y), let band = bandGeometry(l) else { return (.none, laneIndex, g) }
        if x < g.gridLeft {
            if let m = muteButton(ofLane: l), x >= m.x, x < m.x + m.width, y >= m.y, y < m.y + m.height { return (.laneMute(lane: l), l, band) }
            return (.laneHeader(lane: l), l, band)
        }
        return (band.hitTest(x: x, y: y, notes: document.notes(inLane: l), loopLength: document.lanes[l].length), l, band)
    }

    /// The geometry that maps keys for the lane edited: the gesture's, else its band's, else the view's.
    var keyGeometry: PianoRollGeometry {
        gestureGeometry ?? bandGeometry(laneIndex) ?? geometry
    }

    // MARK: View

    /// The view's new size (the host resized the window).
    public mutating func resize(width: Double, height: Double) -> EditorEffects {
        geometry.width = PianoRollEditor.sane(width)
        geometry.height = PianoRollEditor.sane(height)
        setStackScroll(stackScroll)
        return .redraw
    }

    /// Shows lane `index` (clamped to the lanes there are): the selection is
    /// cleared and the view scrolls to the lane's keys.
    public mutating func selectLane(_ index: Int) -> EditorEffects {
        let cancelled = cancelGesture()
        let clamped = Swift.min(Swift.max(index, 0), document.lanes.count - 1)
        guard clamped != laneIndex else { return cancelled ? .redraw : .none }
        laneIndex = clamped
        selection.removeAll()
        lastChannel = nil
        forgetControllerChoice()
        geometry.fitKeys(of: laneNotes)
        scrollStack(toShowLane: laneIndex)
        return .redraw
    }

    /// The next lane, after the last the first.
    public mutating func nextLane() -> EditorEffects { selectLane((laneIndex + 1) % document.lanes.count) }

    /// Every lane stacked (true) or one lane at a time.
    public mutating func setShowsAllLanes(_ on: Bool) -> EditorEffects {
        guard on != showsAllLanes else { return .none }
        _ = cancelGesture()
        showsAllLanes = on
        applyLayoutMode()
        if isStacked {
            scrollStack(toShowLane: laneIndex)
        } else {
            geometry.fitKeys(of: laneNotes)
        }
        return .redraw
    }

    /// Zooms and scrolls so that the whole pattern is in view: the lane
    /// shown from its start to its end (stacked: the longest lane, and every
    /// band, as far as rows of `LaneStack.keyHeightRange` allow).
    public mutating func zoomToFit() -> EditorEffects {
        var longest = lane.length.approximateValue
        if isStacked {
            for l in document.lanes { longest = Swift.max(longest, l.length.approximateValue) }
            fitLanes()
            stackScroll = 0
        } else {
            geometry.fitKeys(of: laneNotes)
        }
        geometry.fitBeats(longest)
        return .redraw
    }

    /// The stacked view's rows sized so that every band fits the grid's
    /// height (within `LaneStack.keyHeightRange`).
    public mutating func fitLanes() {
        stackKeyHeight = LaneStack.fittingKeyHeight(bands, in: geometry.gridHeight)
        layoutBands()
        setStackScroll(stackScroll)
    }

    /// The stacked view's row height (within `LaneStack.keyHeightRange`).
    public mutating func setStackKeyHeight(_ pixels: Double) {
        stackKeyHeight = PianoRollGeometry.clamp(pixels, LaneStack.keyHeightRange)
        layoutBands()
        setStackScroll(stackScroll)
    }

    /// The host's meter (beats in a bar): the ruler counts bars by it. Values
    /// a ruler cannot use (not finite, below 1/16, above 1024) count as 4.
    public mutating func setBeatsPerBar(_ value: Double) -> EditorEffects {
        let sane = BarRuler.sane(value)
        guard sane != beatsPerBar else { return .none }
        beatsPerBar = sane
        return .redraw
    }

    /// What the plugin says of lane `lane`'s mute control port (lanes 0-7:
    /// its value, as the host passed it on).
    public mutating func setMuted(_ lane: Int, _ muted: Bool) -> EditorEffects {
        var next = mutes
        next.setPort(lane, muted)
        guard next != mutes else { return .none }
        mutes = next
        return .redraw
    }

    /// What the plugin says of its `urn:tactus:laneMutes` parameter (all 64
    /// lanes): adopted, so that the next click keeps the lanes it mutes.
    public mutating func setParameterMutes(_ bits: UInt64) -> EditorEffects {
        guard bits != mutes.parameter else { return .none }
        mutes.setParameter(bits)
        return .redraw
    }

    /// Mutes or unmutes lane `lane` in the plugin (version 2: mutes belong to
    /// lanes, §7.6); the effect says what to tell the plugin.
    public mutating func toggleMute(_ lane: Int) -> EditorEffects {
        guard mutesAddressLanesShown, document.lanes.indices.contains(lane), lane < 64,
            let change = mutes.set(lane, muted: !mutes.isMuted(lane))
        else { return .none }
        var effects = EditorEffects.redraw
        effects.mute = change
        return effects
    }

    /// Scrolls in time to `beat` at the grid's left edge, the thumb kept on a track of `total` beats.
    mutating func scrollThumb(to beat: Double, of total: Double) {
        let visible = geometry.lastVisibleBeat - geometry.firstBeat
        geometry.firstBeat = Swift.min(Swift.max(beat, 0), Swift.max(0, total - visible))
    }

    /// Scrolls the stack by `pixels` (down: positive), within its height.
    public mutating func setStackScroll(_ pixels: Double) {
        let most = Swift.max(0, LaneStack.height(of: bands) - geometry.gridHeight)
        stackScroll = pixels.isFinite ? Swift.min(Swift.max(pixels, 0), most) : 0
    }

    /// Scrolls the stack so that lane `lane`'s band is in view.
    mutating func scrollStack(toShowLane lane: Int) {
        guard bands.indices.contains(lane) else { return }
        let b = bands[lane]
        if b.top < stackScroll { setStackScroll(b.top) }
        else if b.top + b.height > stackScroll + geometry.gridHeight { setStackScroll(b.top + b.height - geometry.gridHeight) }
    }

    /// The bands for the document as it is, at `stackKeyHeight` (and the
    /// headers or the keyboard strip, as the lanes now ask).
    mutating func layoutBands() {
        applyControllerStrip()
        bands = LaneStack.bands(of: document, keyHeight: stackKeyHeight)
        applyLayoutMode()
    }

    /// The keyboard strip alone, or the lane headers of the stack, left of the grid.
    mutating func applyLayoutMode() {
        geometry.keyboardWidth = isStacked ? laneHeaderWidth : keyboardStripWidth
    }

    // MARK: Several patterns

    /// What the plugin plays (`urn:tactus:scene`, the `song` control): the
    /// pattern buttons and the song's entries show it.
    public mutating func setScene(_ next: PatternScene) -> EditorEffects {
        guard next != scene else { return .none }
        scene = next
        return .redraw
    }

    /// Edits pattern `index` (from 0, clamped) of a text of several patterns:
    /// its lanes are shown, the first one edited; the selection is cleared.
    /// Not an edit (the text does not change, nothing is sent): undo steps
    /// stay, and undoing one shows the pattern it was made in.
    public mutating func selectPattern(_ index: Int) -> EditorEffects {
        let clamped = Swift.min(Swift.max(index, 0), document.patternNames.count - 1)
        guard clamped != document.patternIndex else { return .none }
        _ = cancelGesture()
        guard let other = try? EditorDocument(parsing: document.text(), pattern: clamped, firstID: document.nextID) else { return .none }
        document = other
        laneIndex = 0
        forgetControllerChoice()
        selection.removeAll()
        lastChannel = nil
        geometry.fitKeys(of: laneNotes)
        stackScroll = 0
        fitLanes()
        return .redraw
    }

    /// The previous lane, before the first the last.
    public mutating func previousLane() -> EditorEffects {
        selectLane((laneIndex + document.lanes.count - 1) % document.lanes.count)
    }

    public mutating func setSnap(_ grid: SnapGrid) -> EditorEffects {
        snap = grid
        return .redraw
    }

    public mutating func setFollowPlayhead(_ on: Bool) -> EditorEffects {
        followPlayhead = on
        return .redraw
    }

    /// Where the playhead is, in beats within the lane shown's loop (as the
    /// plugin reports it). When following, and the beat is out of sight, the
    /// view turns the page so that it starts at the whole beat at or before
    /// it. Not during a drag.
    public mutating func playheadMoved(toBeat beat: Double) -> EditorEffects {
        guard followPlayhead, gesture == nil, beat.isFinite, beat >= 0 else { return .none }
        guard beat < geometry.firstBeat || beat >= geometry.lastVisibleBeat else { return .none }
        geometry.firstBeat = beat.rounded(.down)
        return .redraw
    }

    /// A wheel turn (or a touchpad scroll) at (x, y), in notches (X11's
    /// buttons 4/5 are deltaY -1/+1, 6/7 deltaX -1/+1): vertical scrolls the
    /// keys (up shows higher keys), horizontal or Shift+vertical scrolls the
    /// beats, Control+vertical zooms around the pointer.
    public mutating func wheel(x: Double, y: Double, deltaX: Double, deltaY: Double, modifiers: EditorModifiers = []) -> EditorEffects {
        let dx = PianoRollEditor.clamp(deltaX, 100)
        let dy = PianoRollEditor.clamp(deltaY, 100)
        if modifiers.contains(.control) {
            var factor = 1.0
            let notches = Int(dy.rounded())
            for _ in 0..<(notches < 0 ? -notches : notches) { factor *= notches < 0 ? 1.25 : 0.8 }
            geometry.zoom(by: factor, around: PianoRollEditor.sane(x))
        } else if modifiers.contains(.shift) {
            geometry.firstBeat += (dy + dx) * 40 / geometry.pixelsPerBeat
        } else if isStacked {
            setStackScroll(stackScroll + dy * 40)
            geometry.firstBeat += dx * 40 / geometry.pixelsPerBeat
        } else {
            geometry.topKey -= Int((dy * 3).rounded())
            geometry.firstBeat += dx * 40 / geometry.pixelsPerBeat
        }
        return .redraw
    }

    // MARK: Mouse

    /// A button went down at (x, y). A gesture still under way (its release
    /// was missed) is finished first.
    public mutating func press(x rawX: Double, y rawY: Double, button: MouseButton, modifiers: EditorModifiers = []) -> EditorEffects {
        var effects = EditorEffects.none
        if gesture != nil { effects = release(x: pointerX, y: pointerY) }
        let x = PianoRollEditor.sane(rawX)
        let y = PianoRollEditor.sane(rawY)
        pointerX = x
        pointerY = y
        let located = locate(x: x, y: y)
        let hit = located.hit
        switch hit {
        case .controllerMenuItem(let item): return effects.merged(with: chooseController(item: item))
        case .controllerName:
            controllerMenuOpen.toggle()
            controllerMenuDigits = []
            return effects.merged(with: .redraw)
        case .controllerStripSwitch: return effects.merged(with: setShowsControllerStrip(!showsControllerStrip))
        default:
            if controllerMenuOpen {
                // A press elsewhere closes the menu, and does nothing else.
                controllerMenuOpen = false
                return effects.merged(with: .redraw)
            }
        }
        if located.lane != laneIndex {
            // A press in another lane's band makes it the lane edited.
            laneIndex = located.lane
            selection.removeAll()
            lastChannel = nil
            forgetControllerChoice()
        }
        if case .laneMute(let l) = hit { return effects.merged(with: toggleMute(l)) }
        if case .laneHeader = hit { return effects.merged(with: .redraw) }
        gestureStart = snapshot()
        gesture = .idle
        gestureGeometry = isStacked ? located.geometry : nil
        hover = .none
        if case .scrollbar(let beat, let onThumb) = hit {
            let total = scrollbarBeats
            if !onThumb { scrollThumb(to: beat - geometry.gridWidth / geometry.pixelsPerBeat / 2, of: total) }
            gesture = .scroll(Pan(pressX: x, pressY: y, firstBeat: geometry.firstBeat, topKey: geometry.topKey, stackScroll: stackScroll), total)
            return effects.merged(with: .redraw)
        }
        if case .controller(let beat, let value, let point) = hit {
            switch button {
            case .left: return effects.merged(with: pointPress(beat: beat, value: value, point: point))
            case .right:
                gesture = .erasePoints
                return effects.merged(with: erasePoint(point))
            case .middle: break
            }
        }
        switch button {
        case .left: effects = effects.merged(with: leftPress(hit, x: x, y: y, modifiers: modifiers))
        case .right:
            gesture = .erase
            effects = effects.merged(with: erase(at: hit))
        case .middle:
            gesture = .pan(Pan(pressX: x, pressY: y, firstBeat: geometry.firstBeat, topKey: geometry.topKey, stackScroll: stackScroll))
        }
        return effects
    }

    /// The pointer moved to (x, y): with a button held, the gesture follows
    /// it; without, `hover` does.
    public mutating func drag(x rawX: Double, y rawY: Double) -> EditorEffects {
        let x = PianoRollEditor.sane(rawX)
        let y = PianoRollEditor.sane(rawY)
        pointerX = x
        pointerY = y
        guard let current = gesture else {
            let now = hitTest(x: x, y: y)
            if now == hover { return .none }
            hover = now
            return .redraw
        }
        switch current {
        case .idle:
            return .none
        case .point(var d):
            // Like a note, a point moves only once the pointer has travelled: a click selects it.
            guard started(&d, x: x, y: y), let c = chosenController else { return .none }
            gesture = .point(d)
            return movePoint(d.index, beat: geometry.beat(forX: x), value: geometry.controllerValue(forY: y, of: c.kind))
        case .erasePoints:
            if case .controller(_, _, let point)? = controllerStripHit(x: x, y: y) { return erasePoint(point) }
            return .none
        case .move(var d):
            guard started(&d, x: x, y: y) else { return .none }
            let effects = move(&d, x: x, y: y)
            gesture = .move(d)
            return effects
        case .resize(var d, let part):
            guard started(&d, x: x, y: y) else { return .none }
            gesture = .resize(d, part)
            return part == .startEdge ? resizeStart(d, x: x) : resizeEnd(d, x: x)
        case .velocity(var d):
            guard started(&d, x: x, y: y) else { return .none }
            gesture = .velocity(d)
            return dragVelocity(d, y: y)
        case .paintVelocity:
            return paintVelocity(x: x, y: y)
        case .loopMarker:
            return dragLoopMarker(x: x)
        case .erase:
            // Only in the lane the erasing began in.
            let at = locate(x: x, y: y)
            return at.lane == laneIndex ? erase(at: at.hit) : .none
        case .rubberBand(let band):
            return dragRubberBand(band, x: x, y: y)
        case .pan(let p):
            geometry.firstBeat = p.firstBeat - (x - p.pressX) / geometry.pixelsPerBeat
            if isStacked {
                setStackScroll(p.stackScroll - (y - p.pressY))
            } else {
                geometry.topKey = p.topKey + Int(((y - p.pressY) / geometry.keyHeight).rounded())
            }
            return .redraw
        case .scroll(let p, let total):
            // The thumb follows the pointer: a pixel of the track is `total / gridWidth` beats.
            guard geometry.gridWidth > 0 else { return .none }
            scrollThumb(to: p.firstBeat + (x - p.pressX) * total / geometry.gridWidth, of: total)
            return .redraw
        }
    }

    /// The button went up at (x, y): the gesture ends; an edit it made
    /// becomes one undo step and is committed.
    public mutating func release(x: Double, y: Double) -> EditorEffects {
        guard gesture != nil else { return .none }
        var effects = drag(x: x, y: y)
        switch gesture {
        case .resize(let d, _)?:
            if d.started, let note = document.note(d.anchor) { lastDuration = note.duration }
        case .velocity(let d)?:
            if let note = document.note(d.anchor) { lastVelocity = note.velocity }
        default:
            break
        }
        gesture = nil
        gestureGeometry = nil
        layoutBands()
        selectionRectangle = nil
        effects.redraw = true
        if let start = gestureStart, changed(since: start.document) {
            history.record(start)
            effects.commit = true
        }
        gestureStart = nil
        return effects
    }

    // MARK: Keys

    /// A key was pressed (see the type's description for the bindings).
    public mutating func key(_ k: EditorKey) -> EditorEffects {
        let control = k.modifiers.contains(.control)
        let shift = k.modifiers.contains(.shift)
        if controllerMenuOpen, gesture == nil { return controllerMenuKey(k) }
        switch k.name {
        case .escape:
            let cancelled = cancelGesture()
            if selection.isEmpty { return cancelled ? .redraw : .none }
            selection.removeAll()
            return .redraw
        case .character(let c):
            if control {
                let letter = PianoRollEditor.isUpper(c) ? c | 0x20 : c
                let shifted = shift || PianoRollEditor.isUpper(c)
                guard gesture == nil else { return .none }
                if letter == UInt8(ascii: "z") { return shifted ? redo() : undo() }
                if letter == UInt8(ascii: "y") { return redo() }
                if letter == UInt8(ascii: "a") { return selectAll() }
                return .none
            }
            switch c {
            case UInt8(ascii: "+"), UInt8(ascii: "="):
                geometry.zoom(by: 1.25, around: geometry.gridLeft + geometry.gridWidth / 2)
                return .redraw
            case UInt8(ascii: "-"), UInt8(ascii: "_"):
                geometry.zoom(by: 0.8, around: geometry.gridLeft + geometry.gridWidth / 2)
                return .redraw
            case UInt8(ascii: "g"):
                return setSnap(shift ? snap.previous : snap.next)
            case UInt8(ascii: "G"):
                return setSnap(snap.previous)
            case UInt8(ascii: "f"), UInt8(ascii: "F"):
                return setFollowPlayhead(!followPlayhead)
            case UInt8(ascii: "z"), UInt8(ascii: "Z"):
                return zoomToFit()
            case UInt8(ascii: "l"), UInt8(ascii: "L"):
                return setShowsAllLanes(!showsAllLanes)
            case UInt8(ascii: "m"), UInt8(ascii: "M"):
                return toggleMute(laneIndex)
            case UInt8(ascii: "c"), UInt8(ascii: "C"):
                return setShowsControllerStrip(!showsControllerStrip)
            case UInt8(ascii: "r"), UInt8(ascii: "R"):
                guard gesture == nil else { return .none }
                return toggleRamp()
            default:
                return .none
            }
        default:
            break
        }
        guard gesture == nil else { return .none }
        switch k.name {
        case .delete, .backspace:
            return selection.isEmpty ? deleteSelectedPoint() : deleteSelection()
        case .tab:
            return shift ? previousLane() : nextLane()
        case .pageDown:
            return nextLane()
        case .pageUp:
            return previousLane()
        case .left, .right:
            if selection.isEmpty {
                geometry.firstBeat += k.name == .left ? -1 : 1
                return .redraw
            }
            let step = snap.resolution
            return nudge(by: k.name == .left ? BeatRational(numerator: -step.numerator, denominator: step.denominator)! : step, keys: 0)
        case .up, .down:
            let amount = shift ? 12 : 1
            if selection.isEmpty {
                if isStacked {
                    setStackScroll(stackScroll + (k.name == .up ? -1 : 1) * Double(amount) * stackKeyHeight)
                } else {
                    geometry.topKey += k.name == .up ? amount : -amount
                }
                return .redraw
            }
            return nudge(by: .zero, keys: k.name == .up ? amount : -amount)
        case .home:
            geometry.firstBeat = 0
            return .redraw
        case .end:
            geometry.firstBeat = lane.length.approximateValue - geometry.gridWidth / geometry.pixelsPerBeat * 0.9
            return .redraw
        default:
            return .none
        }
    }

    // MARK: Undo, redo, a new pattern

    /// Goes back one edit (a drag under way is cancelled first).
    public mutating func undo() -> EditorEffects {
        let cancelled = cancelGesture()
        guard let previous = history.undo(from: snapshot()) else { return cancelled ? .redraw : .none }
        restore(previous)
        return EditorEffects(redraw: true, commit: true)
    }

    /// Goes forward one undone edit.
    public mutating func redo() -> EditorEffects {
        let cancelled = cancelGesture()
        guard let next = history.redo(from: snapshot()) else { return cancelled ? .redraw : .none }
        restore(next)
        return EditorEffects(redraw: true, commit: true)
    }

    /// A pattern from the plugin (a preset, a restored state, a file, another
    /// editor). The same text as `text()` (the plugin's echo of what this
    /// editor sent) changes nothing. Otherwise the new pattern replaces the
    /// document as one undo step (undo brings back what was edited before),
    /// or, with `undoable: false` (the pattern the plugin reports when the
    /// editor opens), as a fresh start that forgets every step; a drag under
    /// way is cancelled, the selection cleared; the zoom, scroll and snap
    /// stay, and the lane of the same name (else the same index, else the
    /// first) is shown; the view scrolls to the lane's keys when none of its
    /// notes was in sight. Text that is not a pattern changes nothing and
    /// says why.
    public mutating func replace(with text: [UInt8], undoable: Bool = true) -> Result<Void, PatternError> {
        if text == document.text() { return .success(()) }
        let incoming: EditorDocument
        do throws(PatternError) {
            // The pattern edited stays, by name, when the new text has it.
            incoming = try EditorDocument(parsing: text, patternNamed: document.patternNames[document.patternIndex], firstID: document.nextID)
        } catch {
            return .failure(error)
        }
        _ = cancelGesture()
        if undoable { history.record(snapshot()) } else { history.removeAll() }
        let name = lane.name
        let sameLanes = incoming.lanes.map { $0.name } == document.lanes.map { $0.name }
        document = incoming
        if let same = incoming.lanes.firstIndex(where: { $0.name == name }) {
            laneIndex = same
        } else {
            laneIndex = Swift.min(laneIndex, incoming.lanes.count - 1)
        }
        selection.removeAll()
        lastChannel = nil
        forgetControllerChoice()
        let keys = geometry.visibleKeys
        if !laneNotes.contains(where: { keys.contains(Int($0.key)) }) { geometry.fitKeys(of: laneNotes) }
        // Other lanes (a preset, another song): their bands fitted to the view anew.
        if !sameLanes { fitLanes() }
        return .success(())
    }

    // MARK: Gestures

    enum Gesture {
        /// A press that edits nothing on a drag (the keyboard, the ruler, a Shift-click).
        case idle
        case move(NoteDrag)
        case resize(NoteDrag, NotePart)
        case velocity(NoteDrag)
        case paintVelocity
        case loopMarker
        case erase
        case rubberBand(RubberBand)
        case pan(Pan)
        /// The scrollbar's thumb dragged, along a track of these beats (fixed at the press).
        case scroll(Pan, Double)
        /// A controller point dragged.
        case point(PointDrag)
        /// Right button held in the controller strip: points passed over go.
        case erasePoints
    }

    /// A drag of the selected notes: their values when it began.
    struct NoteDrag {
        var anchor: UInt32
        var originals: [EditorNote]
        var pressX: Double
        var pressY: Double
        var started = false
        var soundingKey: UInt8
        /// Beats from the grabbed point to the pointer at the press: 0 when
        /// the grabbed point moves with the pointer's travel; for a note
        /// being drawn, from its end to the pointer, so that its end follows
        /// the pointer itself.
        var grabOffset: Double = 0

        var anchorNote: EditorNote {
            for n in originals where n.id == anchor { return n }
            return originals[0]
        }
    }

    /// A drag of controller point `index` (in `document.controllers`).
    struct PointDrag {
        var index: Int
        var pressX: Double
        var pressY: Double
        var started = false
    }

    struct RubberBand {
        var beat: Double
        var key: Int
        var base: NoteSelection
    }

    struct Pan {
        var pressX: Double
        var pressY: Double
        var firstBeat: Double
        var topKey: Int
        var stackScroll: Double
    }

    mutating func leftPress(_ hit: PianoRollHit, x: Double, y: Double, modifiers: EditorModifiers) -> EditorEffects {
        switch hit {
        case .note(let id, let part):
            guard let note = document.note(id) else { return .none }
            if modifiers.contains(.shift) {
                selection.toggle(id)
                guard selection.contains(id) else { return .redraw }
            } else if !selection.contains(id) {
                selection = NoteSelection([id])
            }
            lastVelocity = note.velocity
            lastDuration = note.duration
            lastChannel = note.channel
            let drag = NoteDrag(anchor: id, originals: selectedNotes(), pressX: x, pressY: y, soundingKey: note.key)
            if modifiers.contains(.control) {
                gesture = .velocity(drag)
            } else if part == .body {
                gesture = .move(drag)
            } else {
                gesture = .resize(drag, part)
            }
            return EditorEffects(redraw: true, audition: EditorAudition(key: note.key, velocity: note.velocity, channel: note.channel))
        case .grid(let beat, let key):
            if modifiers.contains(.shift) {
                let band = RubberBand(beat: beat, key: Int(key), base: selection)
                gesture = .rubberBand(band)
                return dragRubberBand(band, x: x, y: y)
            }
            selection.removeAll()
            let start = snap.floor(beat)
            guard start < lane.length else { return .redraw }
            let duration = lastDuration ?? snap.step ?? BeatRational(numerator: 1, denominator: 4)!
            let channel = lastChannel ?? laneNotes.last?.channel ?? document.defaultChannel(ofLane: laneIndex)
            guard
                case .success(let id) = document.addNote(
                    lane: laneIndex, start: start, duration: duration, key: key, velocity: lastVelocity, channel: channel),
                let note = document.note(id)
            else { return .redraw }
            selection = NoteSelection([id])
            var drawing = NoteDrag(anchor: id, originals: [note], pressX: x, pressY: y, soundingKey: key)
            drawing.grabOffset = beat - note.approximateEnd
            gesture = .resize(drawing, .endEdge)
            return EditorEffects(redraw: true, audition: EditorAudition(key: key, velocity: note.velocity, channel: note.channel))
        case .loopMarker:
            gesture = .loopMarker
            return .redraw
        case .velocity:
            gesture = .paintVelocity
            return paintVelocity(x: x, y: y)
        case .keyboard(let key):
            let channel = lastChannel ?? laneNotes.last?.channel ?? document.defaultChannel(ofLane: laneIndex)
            return EditorEffects(audition: EditorAudition(key: key, velocity: lastVelocity, channel: channel))
        case .ruler, .none, .laneHeader, .laneMute, .scrollbar, .controller, .controllerName, .controllerMenuItem, .controllerStripSwitch:
            return .none
        }
    }

    /// Whether the drag has gone past the threshold (and from now on counts).
    func started(_ d: inout NoteDrag, x: Double, y: Double) -> Bool {
        PianoRollEditor.pastThreshold(&d.started, pressX: d.pressX, pressY: d.pressY, x: x, y: y)
    }

    func started(_ d: inout PointDrag, x: Double, y: Double) -> Bool {
        PianoRollEditor.pastThreshold(&d.started, pressX: d.pressX, pressY: d.pressY, x: x, y: y)
    }

    static func pastThreshold(_ started: inout Bool, pressX: Double, pressY: Double, x: Double, y: Double) -> Bool {
        if !started, abs(x - pressX) >= dragThresholdPixels || abs(y - pressY) >= dragThresholdPixels { started = true }
        return started
    }

    mutating func move(_ d: inout NoteDrag, x: Double, y: Double) -> EditorEffects {
        let anchor = d.anchorNote
        let rawDelta = (x - d.pressX) / geometry.pixelsPerBeat
        guard var delta = gridDelta(from: anchor.start, rawDelta: rawDelta) else { return .none }
        var lowest = anchor.start
        var highest = anchor.start
        var lowKey = Int(anchor.key)
        var highKey = Int(anchor.key)
        for n in d.originals {
            if n.start < lowest { lowest = n.start }
            if n.start > highest { highest = n.start }
            lowKey = Swift.min(lowKey, Int(n.key))
            highKey = Swift.max(highKey, Int(n.key))
        }
        guard let lower = BeatRational.zero.subtracting(lowest), let upper = lane.length.subtracting(highest) else { return .none }
        delta = PianoRollEditor.fit(delta, step: snap.resolution, atLeast: lower, below: upper, atMost: nil) ?? .zero
        let rows = keyGeometry.unclampedKey(forY: y) - keyGeometry.unclampedKey(forY: d.pressY)
        let keyDelta = Swift.min(Swift.max(rows, -lowKey), 127 - highKey)
        var changed = d.originals
        for i in changed.indices {
            guard let start = changed[i].start.adding(delta) else { return .none }
            changed[i].start = start
            changed[i].key = UInt8(Int(changed[i].key) + keyDelta)
        }
        guard case .success = document.update(changed) else { return .none }
        var effects = EditorEffects.redraw
        let newKey = UInt8(Int(anchor.key) + keyDelta)
        if newKey != d.soundingKey {
            d.soundingKey = newKey
            effects.audition = EditorAudition(key: newKey, velocity: anchor.velocity, channel: anchor.channel)
        }
        return effects
    }

    mutating func resizeEnd(_ d: NoteDrag, x: Double) -> EditorEffects {
        let anchor = d.anchorNote
        guard let end = anchor.start.adding(anchor.duration) else { return .none }
        let rawDelta = (x - d.pressX) / geometry.pixelsPerBeat + d.grabOffset
        guard var delta = gridDelta(from: end, rawDelta: rawDelta) else { return .none }
        let step = snap.resolution
        // Each note keeps at least a step (or its own duration when shorter).
        var lower: BeatRational?
        for n in d.originals {
            let shortest = n.duration < step ? n.duration : step
            guard let bound = shortest.subtracting(n.duration) else { return .none }
            if lower.map({ bound > $0 }) ?? true { lower = bound }
        }
        delta = PianoRollEditor.fit(delta, step: step, atLeast: lower, below: nil, atMost: nil) ?? .zero
        var changed = d.originals
        for i in changed.indices {
            guard let duration = changed[i].duration.adding(delta) else { return .none }
            changed[i].duration = duration
        }
        guard case .success = document.update(changed) else { return .none }
        return .redraw
    }

    mutating func resizeStart(_ d: NoteDrag, x: Double) -> EditorEffects {
        let anchor = d.anchorNote
        let rawDelta = (x - d.pressX) / geometry.pixelsPerBeat
        guard var delta = gridDelta(from: anchor.start, rawDelta: rawDelta) else { return .none }
        let step = snap.resolution
        var lowest = anchor.start
        var highest = anchor.start
        var most: BeatRational?
        for n in d.originals {
            if n.start < lowest { lowest = n.start }
            if n.start > highest { highest = n.start }
            let shortest = n.duration < step ? n.duration : step
            guard let bound = n.duration.subtracting(shortest) else { return .none }
            if most.map({ bound < $0 }) ?? true { most = bound }
        }
        guard let lower = BeatRational.zero.subtracting(lowest), let upper = lane.length.subtracting(highest) else { return .none }
        delta = PianoRollEditor.fit(delta, step: step, atLeast: lower, below: upper, atMost: most) ?? .zero
        var changed = d.originals
        for i in changed.indices {
            guard let start = changed[i].start.adding(delta), let duration = changed[i].duration.subtracting(delta) else { return .none }
            changed[i].start = start
            changed[i].duration = duration
        }
        guard case .success = document.update(changed) else { return .none }
        return .redraw
    }

    mutating func dragVelocity(_ d: NoteDrag, y: Double) -> EditorEffects {
        let amount = Int(PianoRollEditor.clamp(d.pressY - y, 1000).rounded())
        var changed = d.originals
        for i in changed.indices {
            changed[i].velocity = UInt8(Swift.min(Swift.max(Int(changed[i].velocity) + amount, 1), 127))
        }
        guard case .success = document.update(changed) else { return .none }
        return .redraw
    }

    mutating func paintVelocity(x: Double, y: Double) -> EditorEffects {
        guard case .velocity(let id?) = geometry.hitTest(x: x, y: Swift.max(y, geometry.gridBottom), notes: laneNotes, loopLength: lane.length),
            var note = document.note(id)
        else { return .none }
        let velocity = geometry.velocity(forY: y)
        guard note.velocity != velocity else { return .none }
        note.velocity = velocity
        guard case .success = document.update([note]) else { return .none }
        lastVelocity = velocity
        return .redraw
    }

    mutating func dragLoopMarker(x: Double) -> EditorEffects {
        let step = snap.resolution
        var length = snap.nearest(geometry.beat(forX: x))
        let shortest = document.lastStart(inLane: laneIndex).flatMap { step.multiplied(by: $0.floorQuotient(step) + 1) } ?? step
        if length < shortest { length = shortest }
        guard length != lane.length, case .success = document.setLength(ofLane: laneIndex, to: length) else { return .none }
        return .redraw
    }

    mutating func erase(at hit: PianoRollHit) -> EditorEffects {
        guard case .note(let id, _) = hit, document.removeNote(id) else { return .none }
        selection.remove(id)
        return .redraw
    }

    mutating func dragRubberBand(_ band: RubberBand, x: Double, y: Double) -> EditorEffects {
        let beat = geometry.beat(forX: x)
        let key = keyGeometry.unclampedKey(forY: y)
        let rectangle = SelectionRectangle(
            firstBeat: Swift.min(band.beat, beat), lastBeat: Swift.max(band.beat, beat), lowKey: Swift.min(band.key, key),
            highKey: Swift.max(band.key, key))
        selectionRectangle = rectangle
        var chosen = band.base
        for note in laneNotes where rectangle.touches(note) { chosen.insert(note.id) }
        selection = chosen
        return .redraw
    }

    /// How far the grabbed point at `origin` moves for a pointer travel of
    /// `rawDelta` beats: onto the nearest grid line, or by whole 1/96-beat
    /// steps with the grid off (so a note off the grid keeps its offset).
    func gridDelta(from origin: BeatRational, rawDelta: Double) -> BeatRational? {
        guard snap.step != nil else { return SnapGrid.off.nearest(rawDelta) }
        return snap.nearest(origin.approximateValue + rawDelta).subtracting(origin)
    }

    /// `delta` moved by whole steps toward the allowed range, so that
    /// `atLeast <= delta < below` and `delta <= atMost`; nil when no such
    /// value is within reach.
    static func fit(
        _ delta: BeatRational, step: BeatRational, atLeast lower: BeatRational?, below upper: BeatRational?, atMost most: BeatRational?
    ) -> BeatRational? {
        var d = delta
        if let lower, d < lower {
            guard let gap = lower.subtracting(d), let steps = ceilQuotient(gap, step), let shift = step.multiplied(by: steps),
                let moved = d.adding(shift)
            else { return nil }
            d = moved
        }
        if let upper, d >= upper {
            guard let gap = d.subtracting(upper), let shift = step.multiplied(by: gap.floorQuotient(step) + 1), let moved = d.subtracting(shift)
            else { return nil }
            d = moved
        }
        if let most, d > most {
            guard let gap = d.subtracting(most), let steps = ceilQuotient(gap, step), let shift = step.multiplied(by: steps),
                let moved = d.subtracting(shift)
            else { return nil }
            d = moved
        }
        if let lower, d < lower { return nil }
        if let upper, d >= upper { return nil }
        if let most, d > most { return nil }
        return d
    }

    /// `ceil(a / b)` for `b > 0`.
    static func ceilQuotient(_ a: BeatRational, _ b: BeatRational) -> Int64? {
        guard let negated = BeatRational(numerator: -a.numerator, denominator: a.denominator) else { return nil }
        let q = negated.floorQuotient(b)
        return q == Int64.min ? nil : -q
    }

    // MARK: Key edits

    mutating func selectAll() -> EditorEffects {
        selection = NoteSelection(laneNotes.map { $0.id })
        return .redraw
    }

    mutating func deleteSelection() -> EditorEffects {
        guard !selection.isEmpty else { return .none }
        let before = snapshot()
        let removed = document.removeNotes(selection.ids)
        selection.removeAll()
        guard removed > 0 else { return .redraw }
        history.record(before)
        return EditorEffects(redraw: true, commit: true)
    }

    /// Moves the selection by `beats` and `keys`; refused (nothing moves)
    /// when a note would leave its lane or the keys.
    mutating func nudge(by beats: BeatRational, keys: Int) -> EditorEffects {
        var changed = selectedNotes()
        guard !changed.isEmpty else { return .none }
        for i in changed.indices {
            let key = Int(changed[i].key) + keys
            guard (0...127).contains(key), let start = changed[i].start.adding(beats) else { return .none }
            changed[i].key = UInt8(key)
            changed[i].start = start
        }
        let before = snapshot()
        guard case .success = document.update(changed) else { return .none }
        history.record(before)
        var effects = EditorEffects(redraw: true, commit: true)
        if keys != 0 {
            let first = changed[0]
            effects.audition = EditorAudition(key: first.key, velocity: first.velocity, channel: first.channel)
        }
        return effects
    }

    // MARK: Internals

    /// The selected notes in text order.
    func selectedNotes() -> [EditorNote] {
        document.notes.filter { selection.contains($0.id) }
    }

    func snapshot() -> EditHistory.Snapshot {
        EditHistory.Snapshot(document: document, selection: selection, laneIndex: laneIndex)
    }

    mutating func restore(_ s: EditHistory.Snapshot) {
        var d = s.document
        // Ids stay unique across the whole history.
        d.continueIDs(after: document)
        document = d
        laneIndex = Swift.min(Swift.max(s.laneIndex, 0), d.lanes.count - 1)
        selection = s.selection
        selectedPoint = nil
        let lane = laneIndex
        let doc = document
        selection.filter { id in doc.note(id).map { $0.lane == lane } ?? false }
    }

    /// The strip shows the lane's first controller again, none selected.
    mutating func forgetControllerChoice() {
        controllerChoice = nil
        selectedPoint = nil
        controllerMenuOpen = false
    }

    /// Ends a gesture without keeping what it did; false when there was none.
    @discardableResult
    mutating func cancelGesture() -> Bool {
        guard gesture != nil else { return false }
        if let start = gestureStart {
            var d = start.document
            d.continueIDs(after: document)
            document = d
            selection = start.selection
            if case .point? = gesture { selectedPoint = nil }
        }
        gesture = nil
        gestureGeometry = nil
        gestureStart = nil
        selectionRectangle = nil
        layoutBands()
        return true
    }

    func changed(since before: EditorDocument) -> Bool {
        document.notes != before.notes || document.lanes != before.lanes || document.controllers != before.controllers
    }

    static func sane(_ v: Double) -> Double { v.isFinite ? Swift.min(Swift.max(v, -1e7), 1e7) : 0 }

    static func clamp(_ v: Double, _ limit: Double) -> Double { v.isFinite ? Swift.min(Swift.max(v, -limit), limit) : 0 }

    static func isUpper(_ c: UInt8) -> Bool { c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z") }
}
