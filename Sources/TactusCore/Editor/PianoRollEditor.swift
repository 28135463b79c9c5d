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
/// the loop's start and end. While a drag is under way only the keys that
/// do not edit (zoom, snap, follow, Escape) act.
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
    public private(set) var document: EditorDocument
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
    public private(set) var hover: PianoRollHit = .none
    /// The rubber band being drawn, if any.
    public private(set) var selectionRectangle: SelectionRectangle?
    /// The velocity new notes get: the last one touched or set (100 at first).
    public private(set) var lastVelocity: UInt8 = 100
    /// The duration new notes get: the last one touched or set (nil: one grid step).
    public private(set) var lastDuration: BeatRational?

    /// How far (pixels) the pointer must travel before a press becomes a drag.
    public static var dragThresholdPixels: Double { 3 }

    var lastChannel: UInt8?
    var history = EditHistory()
    var gesture: Gesture?
    /// The state when the current gesture began: what undo returns to.
    var gestureStart: EditHistory.Snapshot?
    var pointerX: Double = 0
    var pointerY: Double = 0

    /// An editor of `document`, showing its first lane in a view of this
    /// size, scrolled to the lane's keys.
    public init(document: EditorDocument, width: Double, height: Double) {
        self.document = document
        geometry = PianoRollGeometry(width: width, height: height)
        geometry.fitKeys(of: document.notes(inLane: 0))
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

    /// What is under (x, y) in the lane shown.
    public func hitTest(x: Double, y: Double) -> PianoRollHit {
        geometry.hitTest(x: x, y: y, notes: laneNotes, loopLength: lane.length)
    }

    // MARK: View

    /// The view's new size (the host resized the window).
    public mutating func resize(width: Double, height: Double) -> EditorEffects {
        geometry.width = PianoRollEditor.sane(width)
        geometry.height = PianoRollEditor.sane(height)
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
        geometry.fitKeys(of: laneNotes)
        return .redraw
    }

    /// The next lane, after the last the first.
    public mutating func nextLane() -> EditorEffects { selectLane((laneIndex + 1) % document.lanes.count) }

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
        gestureStart = snapshot()
        gesture = .idle
        hover = .none
        let hit = hitTest(x: x, y: y)
        switch button {
        case .left: effects = effects.merged(with: leftPress(hit, x: x, y: y, modifiers: modifiers))
        case .right:
            gesture = .erase
            effects = effects.merged(with: erase(at: hit))
        case .middle:
            gesture = .pan(Pan(pressX: x, pressY: y, firstBeat: geometry.firstBeat, topKey: geometry.topKey))
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
            return erase(at: hitTest(x: x, y: y))
        case .rubberBand(let band):
            return dragRubberBand(band, x: x, y: y)
        case .pan(let p):
            geometry.firstBeat = p.firstBeat - (x - p.pressX) / geometry.pixelsPerBeat
            geometry.topKey = p.topKey + Int(((y - p.pressY) / geometry.keyHeight).rounded())
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
            default:
                return .none
            }
        default:
            break
        }
        guard gesture == nil else { return .none }
        switch k.name {
        case .delete, .backspace:
            return deleteSelection()
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
                geometry.topKey += k.name == .up ? amount : -amount
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
            incoming = try EditorDocument(parsing: text, firstID: document.nextID)
        } catch {
            return .failure(error)
        }
        _ = cancelGesture()
        if undoable { history.record(snapshot()) } else { history.removeAll() }
        let name = lane.name
        document = incoming
        if let same = incoming.lanes.firstIndex(where: { $0.name == name }) {
            laneIndex = same
        } else {
            laneIndex = Swift.min(laneIndex, incoming.lanes.count - 1)
        }
        selection.removeAll()
        lastChannel = nil
        let keys = geometry.visibleKeys
        if !laneNotes.contains(where: { keys.contains(Int($0.key)) }) { geometry.fitKeys(of: laneNotes) }
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
        case .ruler, .none:
            return .none
        }
    }

    /// Whether the drag has gone past the threshold (and from now on counts).
    func started(_ d: inout NoteDrag, x: Double, y: Double) -> Bool {
        if !d.started, abs(x - d.pressX) >= PianoRollEditor.dragThresholdPixels || abs(y - d.pressY) >= PianoRollEditor.dragThresholdPixels {
            d.started = true
        }
        return d.started
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
        let rows = geometry.unclampedKey(forY: y) - geometry.unclampedKey(forY: d.pressY)
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
        let key = geometry.unclampedKey(forY: y)
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
        d.nextID = Swift.max(d.nextID, document.nextID)
        document = d
        laneIndex = Swift.min(Swift.max(s.laneIndex, 0), d.lanes.count - 1)
        selection = s.selection
        let lane = laneIndex
        let doc = document
        selection.filter { id in doc.note(id).map { $0.lane == lane } ?? false }
    }

    /// Ends a gesture without keeping what it did; false when there was none.
    @discardableResult
    mutating func cancelGesture() -> Bool {
        guard gesture != nil else { return false }
        if let start = gestureStart {
            var d = start.document
            d.nextID = Swift.max(d.nextID, document.nextID)
            document = d
            selection = start.selection
        }
        gesture = nil
        gestureStart = nil
        selectionRectangle = nil
        return true
    }

    func changed(since before: EditorDocument) -> Bool {
        document.notes != before.notes || document.lanes != before.lanes
    }

    static func sane(_ v: Double) -> Double { v.isFinite ? Swift.min(Swift.max(v, -1e7), 1e7) : 0 }

    static func clamp(_ v: Double, _ limit: Double) -> Double { v.isFinite ? Swift.min(Swift.max(v, -limit), limit) : 0 }

    static func isUpper(_ c: UInt8) -> Bool { c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z") }
}
