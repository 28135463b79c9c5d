import CLV2
import CLV2UI
import TactusEngine
import TactusModel
import TactusEditorModel

/// One open editor: its own X connection and window (a child of the host's
/// `ui:parent`), the editing model, the link to the plugin and the playhead.
///
/// The window's pixels are device pixels; the model's are logical ones,
/// `scale` (the host's `ui:scaleFactor`) device pixels each: sizes are
/// multiplied by it, pointer positions divided.
///
/// Everything happens on the host's UI thread, in `idle()` (suil calls it
/// about every 33 ms) and `receive`: the X connection is never shared, and
/// neither `XInitThreads` nor `XSetErrorHandler` is called (both are the
/// host's to decide).
final class EditorWindow {
    /// Sizes in logical pixels (the window's are these times the scale).
    static var initialWidth: Double { 720 }
    static var initialHeight: Double { 420 }
    static var minimumWidth: Double { 360 }
    static var minimumHeight: Double { 220 }
    /// How often the lease on the playhead is renewed (the plugin's lasts 3 s, §8.2).
    static var leaseRenewal: Double { 1 }

    let display: OpaquePointer
    let window: Window
    private var surface: OpaquePointer
    /// Where each frame is drawn before it is shown (see `draw`).
    private var image: OpaquePointer? = nil
    private var imageWidth: Int32 = 0
    private var imageHeight: Int32 = 0
    private(set) var width: Int32
    private(set) var height: Int32
    private var link: PluginLink
    private var editor: PianoRollEditor
    let scale: DisplayScale
    /// The notes by time, as of the editor's `indexGeneration` (rebuilt when a frame finds the document changed).
    private var index: NoteTimeIndex
    private var indexGeneration: UInt64
    /// False once another editor took the window (`replaceEditor`), until the next frame indexes its notes.
    private var indexIsCurrent = true
    /// What the strip's controller sends in one pass, for the document, lane and controller it was computed for.
    private var controllerSteps: [ControllerCycle.Step] = []
    private var stepsKey: (generation: UInt64, lane: Int, choice: ControllerChoice?)?
    private var playhead = PlayheadClock()
    /// The last error the plugin reported, or a notice of the editor's own.
    private var status: [UInt8] = []
    /// Whether `status` is an error (red) rather than a notice.
    private var statusIsError = false
    private var needsDraw = true
    private var lastLease = 0.0
    /// Whether a text from the plugin has been shown (the first one sets the view's keys).
    private var shownPluginText = false
    /// The editor, with its document and its undo steps, while the plugin
    /// plays a text not yet received (a preset, another editor's edit): a
    /// placeholder with no notes is shown meanwhile.
    private var waiting: PianoRollEditor?
    /// The plugin's text could not be read here (never expected: it is the plugin's own parser).
    private var unreadable = false
    /// What the last frame showed of a queued pattern (its blink, the beats
    /// left): a frame is drawn when either changes.
    private var shownCountIn: (on: Bool, left: Int?) = (false, nil)

    init(display: OpaquePointer, window: Window, surface: OpaquePointer, width: Int32, height: Int32, scale: DisplayScale, link: PluginLink) {
        self.display = display
        self.window = window
        self.surface = surface
        self.width = width
        self.height = height
        self.scale = scale
        self.link = link
        // Nothing to edit until the plugin's pattern arrives (an empty bar, never edited).
        editor = EditorWindow.placeholder(width: width, height: height, scale: scale)
        index = NoteTimeIndex(editor.document)
        indexGeneration = editor.generation
    }

    /// An editor of nothing, laid out as every editor here is (the ruler below
    /// the top line, the scrollbar at the bottom, in logical pixels): what is
    /// shown until the plugin's text is here.
    static func placeholder(width: Int32, height: Int32, scale: DisplayScale) -> PianoRollEditor {
        var editor = PianoRollEditor(
            document: EditorWindow.nothingReceived, width: scale.logical(Double(width)), height: scale.logical(Double(height)))
        editor.geometry.rulerHeight = PianoRollPainter.tabsHeight + PianoRollPainter.rulerHeight
        editor.geometry.scrollbarHeight = PianoRollPainter.scrollbarHeight
        // The keys fitted again in the grid as laid out here (the model fitted them in its own default layout).
        editor.geometry.fitKeys(of: editor.laneNotes)
        editor.fitLanes()
        return editor
    }

    /// Whether the editor holds the text the plugin plays. Until it does, it
    /// shows no notes and takes no edit: a click, a key or an undo on
    /// anything else would send that instead of the plugin's pattern.
    var canEdit: Bool { link.sync.isEditable && shownPluginText && waiting == nil && !unreadable }

    /// The text shown, for tests (`TactusEditorText`); nil while nothing may be edited.
    func textForTests() -> [UInt8]? { canEdit ? editor.text() : nil }

    /// What the editor shows before the plugin's pattern arrives: no notes.
    static var nothingReceived: EditorDocument { try! EditorDocument(parsing: Array("tactus-pattern 1\nlength 4\n".utf8)) }
    static var loadingNotice: [UInt8] { Array("loading the plugin's pattern...".utf8) }

    /// Asks the plugin for its pattern and starts the playhead lease.
    func start() {
        link.sendGet(now: tactus_ui_monotonic_seconds())
        link.sendLease(open: true)
        lastLease = tactus_ui_monotonic_seconds()
    }

    // MARK: - The host's calls

    /// `ui:idleInterface`: X events, the lease, the playhead, drawing.
    func idle() {
        var event = XEvent()
        while XPending(display) > 0 {
            XNextEvent(display, &event)
            handle(&event)
        }
        let now = tactus_ui_monotonic_seconds()
        apply(link.tick(now: now))
        if now - lastLease >= EditorWindow.leaseRenewal {
            link.sendLease(open: true)
            lastLease = now
        }
        if playhead.isRolling {
            needsDraw = true
            apply(editor.playheadMoved(toBeat: editor.scene.patternBeat(atHostBeat: playhead.beat(at: now))))
        }
        if editor.scene.queued > 0 {
            // The queued pattern's button blinks and counts in.
            let beat: Double? = playhead.isKnown ? playhead.beat(at: now) : nil
            let countIn = (PatternScene.blinkIsOn(beat: beat, rolling: playhead.isRolling, seconds: now), editor.scene.beatsLeft(atBeat: beat))
            if countIn.0 != shownCountIn.on || countIn.1 != shownCountIn.left {
                shownCountIn = (countIn.0, countIn.1)
                needsDraw = true
            }
        }
        if needsDraw {
            draw(now: now)
            needsDraw = false
        }
    }

    /// `port_event`: a message from the plugin's notify port.
    func receive(port: UInt32, size: UInt32, format: UInt32, buffer: UnsafeRawPointer) {
        if format == 0, size == 4, let lane = MuteLink.lane(ofPort: port) {
            // A mute control's value, as the host passes every control port's on
            // (the document waiting for the plugin's text keeps it too).
            let muted = buffer.loadUnaligned(as: Float.self) > 0.5
            apply(editor.setMuted(lane, muted))
            _ = waiting?.setMuted(lane, muted)
            return
        }
        if format == 0, size == 4, port == TACTUS_PORT_SONG {
            // The song control's value, as the host passes it on.
            var scene = editor.scene
            scene.songOn = buffer.loadUnaligned(as: Float.self) > 0.5
            setScene(scene)
            return
        }
        guard let message = link.receive(port: port, size: size, format: format, buffer: buffer, now: tactus_ui_monotonic_seconds())
        else { return }
        switch message {
        case .pattern(let update):
            apply(update)
        case .error(let text):
            if canEdit || text.isEmpty {
                status = text
                statusIsError = true
            } else {
                status = Array("not editable: ".utf8) + text
                statusIsError = true
            }
        case .playhead(let beat, let tempo, let speed, let beatsPerBar):
            playhead.receive(beat: beat, beatsPerMinute: tempo, speed: speed, at: tactus_ui_monotonic_seconds())
            if !beatsPerBar.isNaN {
                apply(editor.setBeatsPerBar(beatsPerBar))
                _ = waiting?.setBeatsPerBar(beatsPerBar)
            }
        case .scene(let incoming):
            // The plugin's word, its origin included (§9.9); the song control's value stays.
            setScene(editor.scene.updated(with: incoming))
        case .laneMutes(let bits):
            // The plugin's lane mutes parameter (§7.6): shown, and kept in the next click's message.
            apply(editor.setParameterMutes(bits))
            _ = waiting?.setParameterMutes(bits)
        }
        needsDraw = true
    }

    /// What plays, for the document shown and the one that waits.
    private func setScene(_ scene: PatternScene) {
        apply(editor.setScene(scene))
        _ = waiting?.setScene(scene)
        needsDraw = true
    }

    /// The scene's rows as the document shown lays them out.
    private var sceneLayout: SceneLayout {
        SceneLayout(top: PianoRollPainter.tabsHeight, width: scale.logical(Double(width)), document: editor.document)
    }

    /// The ruler and the grid below the scene's rows (none for a text of one
    /// pattern): moved when the rows come or go (another text, another pattern shown).
    private func placeGrid() {
        let top = PianoRollPainter.tabsHeight + sceneLayout.height + PianoRollPainter.rulerHeight
        guard editor.geometry.rulerHeight != top else { return }
        editor.geometry.rulerHeight = top
        editor.fitLanes()
        needsDraw = true
    }

    /// A click in the scene's rows: a pattern's name shows it to edit, its ▶
    /// queues it (at the text's `switch at`; with Control, now), the song's
    /// switch turns the song on or off, an entry shows its pattern.
    private func sceneClick(_ hit: SceneLayout.Hit, control: Bool) {
        switch hit {
        case .edit(let i):
            apply(editor.selectPattern(i))
        case .queue(let i):
            link.sendRequest(PatternRequest(pattern: i + 1, when: control ? .now : nil))
        case .songSwitch:
            var scene = editor.scene
            scene.songOn.toggle()
            link.sendSong(on: scene.songOn)
            setScene(scene)
        case .songEntry(let e):
            guard let song = editor.document.song, song.entries.indices.contains(e) else { return }
            apply(editor.selectPattern(song.entries[e].pattern))
        }
        placeGrid()
    }

    /// What the pattern messages ask for: a text from the plugin shown, a
    /// notice; the placeholder while the plugin plays a text not received.
    private func apply(_ update: PatternSync.Update) {
        if let text = update.show { show(text, undoable: update.undoable) }
        if let notice = update.notice {
            status = notice
            statusIsError = true
        }
        if !link.sync.isEditable, waiting == nil, shownPluginText {
            // Another text plays: the document waits (its undo steps, its view of every
            // lane or one, its mutes with it) until that one is here. The placeholder
            // keeps the time shown, so the ruler and the playhead stay where they were.
            var placeholder = EditorWindow.placeholder(width: width, height: height, scale: scale)
            placeholder.geometry.setPixelsPerBeat(editor.geometry.pixelsPerBeat)
            placeholder.geometry.firstBeat = editor.geometry.firstBeat
            _ = placeholder.setBeatsPerBar(editor.beatsPerBar)
            waiting = editor
            replaceEditor(with: placeholder)
        } else if link.sync.isEditable, let back = waiting {
            // The plugin plays the editor's text after all.
            waiting = nil
            replaceEditor(with: back)
        }
        if update.show != nil || update.notice != nil || !link.sync.isEditable { needsDraw = true }
    }

    /// The plugin's text replaces the document (a fresh start the first time:
    /// undo never goes back to the placeholder).
    private func show(_ text: [UInt8], undoable: Bool) {
        var target = waiting ?? editor
        // The document that waited is brought to the window's size (it may have changed meanwhile).
        _ = target.resize(width: scale.logical(Double(width)), height: scale.logical(Double(height)))
        switch target.replace(with: text, undoable: undoable && shownPluginText) {
        case .success:
            // The view opens on the plugin's pattern, not on the placeholder it replaced.
            if !shownPluginText {
                target.geometry.fitKeys(of: target.laneNotes)
                target.fitLanes()
            }
            waiting = nil
            replaceEditor(with: target)
            shownPluginText = true
            unreadable = false
            if !statusIsError { status = [] }
        case .failure(let error):
            unreadable = true
            status = Array("the plugin's pattern cannot be edited here: ".utf8) + error.message.utf8
            statusIsError = true
        }
        needsDraw = true
    }

    /// Another editor (the placeholder, or the document that waited) takes
    /// the window: its notes are indexed anew at the next frame, whatever its
    /// `generation` (each editor counts its own).
    private func replaceEditor(with next: PianoRollEditor) {
        editor = next
        indexIsCurrent = false
        stepsKey = nil
        needsDraw = true
        placeGrid()
    }

    /// `cleanup`: ends the lease and closes the connection.
    func close() {
        link.sendLease(open: false)
        if let image { cairo_surface_destroy(image) }
        // cairo keeps a device per X connection: finish it before the
        // connection closes, or each editor opened leaves it behind.
        let device = cairo_device_reference(cairo_surface_get_device(surface))
        cairo_surface_destroy(surface)
        cairo_device_finish(device)
        cairo_device_destroy(device)
        XDestroyWindow(display, window)
        XCloseDisplay(display)
    }

    // MARK: - X events

    private func handle(_ event: inout XEvent) {
        if !canEdit, EditorWindow.edits(event) {
            // A click still takes the keyboard focus (keys then come here, and do nothing).
            if event.type == ButtonPress { XSetInputFocus(display, window, RevertToParent, Time(CurrentTime)) }
            return
        }
        switch event.type {
        case Expose:
            if event.xexpose.count == 0 { needsDraw = true }
        case ConfigureNotify:
            resize(width: event.xconfigure.width, height: event.xconfigure.height)
        case ButtonPress:
            // Keyboard shortcuts need the focus; a click in the editor asks for it.
            XSetInputFocus(display, window, RevertToParent, Time(CurrentTime))
            let b = event.xbutton
            let x = scale.logical(Double(b.x)), y = scale.logical(Double(b.y))
            if b.button >= 4 && b.button <= 7 {
                // The wheel: 4 up, 5 down, 6 left, 7 right (one notch each).
                let dx: Double = b.button == 6 ? -1 : (b.button == 7 ? 1 : 0)
                let dy: Double = b.button == 4 ? -1 : (b.button == 5 ? 1 : 0)
                apply(editor.wheel(x: x, y: y, deltaX: dx, deltaY: dy, modifiers: modifiers(b.state)))
            } else if b.button == 1, let hit = sceneLayout.hit(x: x, y: y, currentEntry: editor.scene.songEntry - 1) {
                sceneClick(hit, control: modifiers(b.state).contains(.control))
            } else if b.button == 1, y < PianoRollPainter.tabsHeight {
                switch PianoRollPainter.topLineItem(atX: x, in: editor) {
                case .viewSwitch?: apply(editor.setShowsAllLanes(!editor.showsAllLanes))
                case .lane(let lane)?: apply(editor.selectLane(lane))
                case nil: break
                }
            } else if let button = MouseButton(x11: b.button) {
                apply(editor.press(x: x, y: y, button: button, modifiers: modifiers(b.state)))
            }
        case MotionNotify:
            // Only the newest position matters: skip the motions queued behind it.
            while XCheckTypedWindowEvent(display, window, MotionNotify, &event) != 0 {}
            apply(editor.drag(x: scale.logical(Double(event.xmotion.x)), y: scale.logical(Double(event.xmotion.y))))
        case ButtonRelease:
            let b = event.xbutton
            if b.button >= 1 && b.button <= 3 { apply(editor.release(x: scale.logical(Double(b.x)), y: scale.logical(Double(b.y)))) }
        case KeyPress:
            // The shifted symbol when Shift is held (`+` on most layouts, `Z`).
            let shifted = event.xkey.state & UInt32(ShiftMask) != 0
            var keysym = XLookupKeysym(&event.xkey, shifted ? 1 : 0)
            if keysym == 0 { keysym = XLookupKeysym(&event.xkey, 0) }
            if let key = EditorKey(keysym: keysym, modifiers: modifiers(event.xkey.state)) { apply(editor.key(key)) }
        default:
            break
        }
    }

    private func modifiers(_ state: UInt32) -> EditorModifiers { EditorModifiers(x11: state) }

    /// Whether an X event could change the pattern: a key, or a button other
    /// than the middle one (which drags the view) and the wheel. Until the
    /// plugin's pattern has arrived these are not passed to the editor.
    static func edits(_ event: XEvent) -> Bool {
        switch event.type {
        case KeyPress: return true
        case ButtonPress, ButtonRelease: return event.xbutton.button == 1 || event.xbutton.button == 3
        case MotionNotify: return event.xmotion.state & UInt32(Button1Mask | Button3Mask) != 0
        default: return false
        }
    }

    private func resize(width w: Int32, height h: Int32) {
        guard w != width || h != height, w > 0, h > 0 else { return }
        width = w
        height = h
        cairo_xlib_surface_set_size(surface, w, h)
        apply(editor.resize(width: scale.logical(Double(w)), height: scale.logical(Double(h))))
        needsDraw = true
    }

    /// What an editing step asks for: a redraw, the text sent (an edit
    /// finished), a note to hear.
    private func apply(_ effects: EditorEffects) {
        if effects.redraw { needsDraw = true }
        // An undo may bring back another text's patterns (a preset undone): the grid follows its rows.
        placeGrid()
        if let note = effects.audition { link.sendAudition(key: note.key, velocity: note.velocity, channel: note.channel) }
        if let mute = effects.mute { MuteLink.send(mute, link: link) }
        if effects.commit, canEdit {
            let update = link.commit(editor.text(), now: tactus_ui_monotonic_seconds())
            status = editor.notice ?? []
            statusIsError = false
            apply(update)
            needsDraw = true
        }
    }

    /// The top line: the plugin's text on its way, or an edit on its way in
    /// pieces, else the last error or notice.
    private var shownStatus: (text: [UInt8], isError: Bool) {
        if !canEdit && !unreadable {
            if link.sync.isTooLarge {
                return (Array("the plugin's pattern is larger than the editor takes (64 MB): nothing can be edited here".utf8), true)
            }
            if let l = link.sync.loading {
                return (Array("loading the plugin's pattern... \(l.received / 1024) of \(l.length / 1024) KB".utf8), false)
            }
            return statusIsError ? (status, true) : (EditorWindow.loadingNotice, false)
        }
        if let s = link.sync.sending {
            return (Array("sending the edit to the plugin... \(s.received / 1024) of \(s.length / 1024) KB".utf8), false)
        }
        return (status, statusIsError)
    }

    // MARK: - Drawing

    /// Draws into an image in this process, then puts the image on the
    /// window: no flicker under the playhead, and no glyph ever reaches the X
    /// server. (With text drawn on the window itself, cairo 1.16 shares glyphs
    /// between the X connections of one process, and closing one editor
    /// frees glyphs another still uses: the other's next draw is an X error,
    /// RenderBadGlyph, which ends the host. tactus-editorhost found it with two
    /// editors open.)
    private func draw(now: Double) {
        if image == nil || imageWidth != width || imageHeight != height {
            if let old = image { cairo_surface_destroy(old) }
            image = cairo_image_surface_create(CAIRO_FORMAT_RGB24, width, height)
            imageWidth = width
            imageHeight = height
        }
        guard let image, let cr = cairo_create(image) else { return }
        if !indexIsCurrent || indexGeneration != editor.generation {
            index = NoteTimeIndex(editor.document)
            indexGeneration = editor.generation
            indexIsCurrent = true
        }
        let choice = editor.chosenController
        if editor.showsControllerStrip,
            stepsKey.map({ $0.generation != editor.generation || $0.lane != editor.laneIndex || $0.choice != choice }) ?? true {
            controllerSteps = editor.chosenControllerSteps()
            stepsKey = (editor.generation, editor.laneIndex, choice)
        }
        let beat: Double? = playhead.isKnown ? playhead.beat(at: now) : nil
        // The playhead runs through the pattern that plays, from its origin; in another pattern shown there is none.
        let scene = editor.scene
        let shownPlays = editor.document.patternNames.count <= 1 || scene.playing == editor.document.patternIndex + 1
        let top = shownStatus
        PianoRollPainter.draw(
            editor, index: index, playheadBeat: shownPlays ? beat.map(scene.patternBeat(atHostBeat:)) : nil, rolling: playhead.isRolling,
            status: top.text, statusIsError: top.isError, image: image, scale: scale.factor,
            controllerSteps: editor.showsControllerStrip ? controllerSteps : [], on: cr)
        let layout = sceneLayout
        if layout.isShown {
            ScenePainter.draw(
                layout, document: editor.document, scene: scene, beat: beat, rolling: playhead.isRolling, seconds: now, scale: scale.factor,
                on: cr)
        }
        cairo_destroy(cr)
        cairo_surface_flush(image)
        guard let window = cairo_create(surface) else { return }
        cairo_set_source_surface(window, image, 0, 0)
        cairo_set_operator(window, CAIRO_OPERATOR_SOURCE)
        cairo_paint(window)
        cairo_destroy(window)
        cairo_surface_flush(surface)
        XFlush(display)
    }
}
