import CCLAP
import CCLAPEntry
import CLV2
import LV2Atoms
import Synchronization
import TactusEngine
import TactusModel

// The CLAP gui and timer-support extensions (the C tables are
// Sources/C/CCLAPEntry/gui.c): the LV2 plugin's editor, embedded in the
// host's X11 window and driven by a host timer, as LV2's idle interface
// drives it. The editor speaks its one protocol (docs/plugin.md,
// "Messages"): it writes the same atoms as to an LV2 host, through a write
// function of the plugin's own (`EditorMessages.swift` reads them), and is
// given the plugin's through `port_event`, at each timer tick. Main thread.

/// The editor's side of the instance (main thread).
struct CLAPEditor {
    /// The editor (`EditorWindow`), from `set_parent` to `destroy`.
    var handle: UnsafeMutableRawPointer? = nil
    /// The URIDs both sides use (the process's one map), from gui `create`.
    var uris: URIDTable? = nil
    /// The host's timer, while the gui exists.
    var timer: clap_id = UInt32.max
    /// The host's scale (`set_scale`), 0 until it gives one.
    var scale: Double = 0
    /// What goes to the editor at the next timer tick: never from inside one
    /// of the editor's own calls (it is not re-entrant).
    var outbox: [Outgoing] = []
    /// The editor's edit the pattern in use came from (or was refused under),
    /// which the pattern is announced with, as LV2's installed sequence.
    var installedSequence: Int32 = 0
    /// The last edit's error, empty when the last one was accepted.
    var lastError: [UInt8] = []
    /// The editor's edit coming in pieces.
    var incoming: Incoming? = nil
    /// The mute parameters as the editor was last told of them; nil: not yet told.
    var shownControls: UInt64? = nil
    /// The lanes past 8 muted (`urn:tactus:laneMutes`) as the editor was last told of them; nil: not yet told.
    var shownLanesPastEight: UInt64? = nil

    /// A message for the editor, as an LV2 host's `port_event` gives it.
    struct Outgoing {
        var port: UInt32
        var format: UInt32
        var bytes: [UInt8]
    }

    struct Incoming {
        var edit: ReceivedEdit
        var sequence: Int32
        var length: Int
    }

    /// How often the editor runs (ms): about as often as suil's idle (33 ms), and the playhead's 30 a second.
    static var timerPeriod: UInt32 { 30 }
}

@_cdecl("tactus_clap_gui_create")
public func clapGuiCreate(_ instance: UnsafeMutableRawPointer?) -> Bool {
    guard let instance else { return false }
    let plugin = CLAPPlugin.from(instance)
    guard plugin.pointee.editor.uris == nil else { return false }  // one gui at a time
    var timer: clap_id = UInt32.max
    guard tactus_clap_register_timer(plugin.pointee.host, CLAPEditor.timerPeriod, &timer) else {
        plugin.pointee.log(TACTUS_CLAP_LOG_ERROR, "the editor needs the host's timer (clap.timer-support), which this host does not give")
        return false
    }
    plugin.pointee.editor.timer = timer
    plugin.pointee.editor.uris = URIDTable(tactus_clap_urid_map().assumingMemoryBound(to: LV2_URID_Map.self))
    return true
}

@_cdecl("tactus_clap_gui_destroy")
public func clapGuiDestroy(_ instance: UnsafeMutableRawPointer?) {
    guard let instance else { return }
    closeEditor(CLAPPlugin.from(instance))
}

/// Closes the editor, if one is open, and gives the host its timer back.
func closeEditor(_ plugin: UnsafeMutablePointer<CLAPPlugin>) {
    guard plugin.pointee.editor.uris != nil else { return }
    let handle = plugin.pointee.editor.handle
    plugin.pointee.editor.handle = nil
    // The editor ends its lease (through `write`: the command reaches the audio thread).
    if let handle { tactus_clap_editor_close(handle) }
    plugin.pointee.editorChannel.editorOpen.pointee.store(false, ordering: .relaxed)
    while plugin.pointee.editorChannel.notices.pointee.pop() != nil {}
    tactus_clap_unregister_timer(plugin.pointee.host, plugin.pointee.editor.timer)
    let scale = plugin.pointee.editor.scale
    plugin.pointee.editor = CLAPEditor()
    plugin.pointee.editor.scale = scale
}

@_cdecl("tactus_clap_gui_set_scale")
public func clapGuiSetScale(_ instance: UnsafeMutableRawPointer?, _ scale: Double) -> Bool {
    guard let instance, scale.isFinite, scale > 0 else { return false }
    // Taken when the editor opens (set_parent); an open one keeps its own.
    CLAPPlugin.from(instance).pointee.editor.scale = scale
    return true
}

@_cdecl("tactus_clap_gui_get_size")
public func clapGuiGetSize(
    _ instance: UnsafeMutableRawPointer?, _ minimum: Bool, _ width: UnsafeMutablePointer<UInt32>?, _ height: UnsafeMutablePointer<UInt32>?
) -> Bool {
    guard let instance else { return false }
    let editor = CLAPPlugin.from(instance).pointee.editor
    tactus_clap_editor_size(editor.handle, editor.scale, minimum, width, height)
    return true
}

@_cdecl("tactus_clap_gui_set_size")
public func clapGuiSetSize(_ instance: UnsafeMutableRawPointer?, _ width: UInt32, _ height: UInt32) -> Bool {
    guard let instance, let handle = CLAPPlugin.from(instance).pointee.editor.handle else { return false }
    tactus_clap_editor_set_size(handle, width, height)
    return true
}

/// The editor opens in the host's window (a new parent after one is refused: CLAP gives one per gui).
@_cdecl("tactus_clap_gui_set_parent")
public func clapGuiSetParent(_ instance: UnsafeMutableRawPointer?, _ window: UInt) -> Bool {
    guard let instance else { return false }
    let plugin = CLAPPlugin.from(instance)
    guard plugin.pointee.editor.uris != nil, plugin.pointee.editor.handle == nil, window != 0 else { return false }
    // The editor asks for the pattern and opens its lease from here: its
    // messages wait in the outbox and the queue for the first tick and block.
    plugin.pointee.editorChannel.editorOpen.pointee.store(true, ordering: .relaxed)
    let handle = tactus_clap_editor_embed(window, instance, plugin.pointee.editor.scale)
    guard let handle else {
        plugin.pointee.editorChannel.editorOpen.pointee.store(false, ordering: .relaxed)
        plugin.pointee.log(TACTUS_CLAP_LOG_ERROR, "the editor could not open: no X display")
        return false
    }
    plugin.pointee.editor.handle = handle
    return true
}

@_cdecl("tactus_clap_gui_set_visible")
public func clapGuiSetVisible(_ instance: UnsafeMutableRawPointer?, _ visible: Bool) -> Bool {
    guard let instance, let handle = CLAPPlugin.from(instance).pointee.editor.handle else { return false }
    tactus_clap_editor_set_visible(handle, visible)
    return true
}

/// The host's timer: what the plugin owes the editor, then the editor's own
/// idle work (X events, its lease, drawing), as an LV2 host's idle call.
@_cdecl("tactus_clap_on_timer")
public func clapOnTimer(_ instance: UnsafeMutableRawPointer?, _ timer: clap_id) {
    guard let instance else { return }
    let plugin = CLAPPlugin.from(instance)
    guard plugin.pointee.editor.timer == timer, let handle = plugin.pointee.editor.handle else { return }
    // Each message is given outside any access to the instance: the editor
    // answers some of them at once, through `write`. (Its answers to these
    // go at the next tick.)
    for message in plugin.pointee.takeEditorMessages() {
        message.bytes.withUnsafeBytes { tactus_clap_editor_port_event(handle, message.port, UInt32($0.count), message.format, $0.baseAddress) }
    }
    tactus_clap_editor_idle(handle)
}

/// The editor's `write_function`: a message for the plugin (see `editorWrote`).
@_cdecl("tactus_clap_editor_write")
public func clapEditorWrite(_ controller: UnsafeMutableRawPointer?, _ port: UInt32, _ size: UInt32, _ format: UInt32, _ buffer: UnsafeRawPointer?) {
    guard let controller, let buffer else { return }
    CLAPPlugin.from(controller).pointee.editorWrote(port: port, size: Int(size), format: format, buffer: buffer)
}

/// The messages a timer tick would give an open editor now, taken, as
/// (port, format, bytes): for tests, which have no window (`open` marks the
/// editor open for `process()`'s notices, as `set_parent` does).
public func clapEditorMessagesDue(_ instance: UnsafeMutableRawPointer, open: Bool = true) -> [(port: UInt32, format: UInt32, bytes: [UInt8])] {
    let plugin = CLAPPlugin.from(instance)
    plugin.pointee.editorChannel.editorOpen.pointee.store(open, ordering: .relaxed)
    return plugin.pointee.takeEditorMessages().map { ($0.port, $0.format, $0.bytes) }
}

extension CLAPPlugin {
    /// What goes to the editor at a timer tick: what the audio thread owes
    /// it, the parameters the host changed, the answers waiting; taken.
    mutating func takeEditorMessages() -> [CLAPEditor.Outgoing] {
        readNotices()
        showControls()
        let outgoing = editor.outbox
        editor.outbox = []
        return outgoing
    }

    /// What the audio thread owes the editor: the newest playhead, scene and
    /// lane mutes go to it; replaced patterns are reclaimed here (the
    /// exchange's one reclaimer).
    mutating func readNotices() {
        var playhead: Playhead? = nil
        var scene: SceneReport? = nil
        var lanesPastEight: UInt64? = nil
        var reclaim = false
        while let notice = editorChannel.notices.pointee.pop() {
            if notice.owed.contains(.playhead) { playhead = notice.playhead }
            if notice.owed.contains(.scene) { scene = notice.scene }
            if notice.owed.contains(.laneMutes) { lanesPastEight = notice.lanesPastEight }
            if notice.owed.contains(.reclaim) { reclaim = true }
        }
        if reclaim, let sequencer { _ = sequencer.pointee.handOver.pointee.reclaim() }
        guard let uris = editor.uris else { return }
        if let s = scene {
            // `urn:tactus:scene` (§9.9), as the LV2 plugin's notify port carries it.
            let atom = AtomObjectWriter.atom(objectType: uris.atomObject, otype: uris.scene) {
                $0.addScene(
                    playing: Int32(clamping: s.playing), queued: Int32(clamping: s.queued),
                    switchBeat: s.queued > 0 ? s.switchBeat.approximateValue : nil, songEntry: Int32(clamping: s.songEntry),
                    origin: s.origin.approximateValue, uris: uris)
            }
            editor.outbox.append(CLAPEditor.Outgoing(port: TACTUS_PORT_NOTIFY, format: uris.atomEventTransfer, bytes: atom))
        }
        if let bits = lanesPastEight, bits != editor.shownLanesPastEight {
            // `patch:Set` of `urn:tactus:laneMutes` (§7.6), as the LV2 plugin's notify port carries it:
            // the editor opened, or they changed (its own message, a state loaded).
            let atom = AtomObjectWriter.atom(objectType: uris.atomObject, otype: uris.patchSet) {
                $0.addPatchSet(property: uris.laneMutes, long: Int64(bitPattern: bits), uris: uris)
            }
            editor.outbox.append(CLAPEditor.Outgoing(port: TACTUS_PORT_NOTIFY, format: uris.atomEventTransfer, bytes: atom))
            editor.shownLanesPastEight = bits
        }
        guard let p = playhead else { return }
        let atom = AtomObjectWriter.atom(objectType: uris.atomObject, otype: uris.playhead) {
            $0.addPlayhead(beat: p.beat, beatsPerMinute: p.beatsPerMinute, speed: p.speed, beatsPerBar: p.beatsPerBar, uris: uris)
        }
        editor.outbox.append(CLAPEditor.Outgoing(port: TACTUS_PORT_NOTIFY, format: uris.atomEventTransfer, bytes: atom))
    }

    /// The mute and song parameters the host changed (automation, its own
    /// controls, a state), told to the editor as an LV2 host tells its UI of a
    /// control port (the parameter's id is the port).
    mutating func showControls() {
        let bits = controls.bits
        let shown = editor.shownControls
        guard shown != bits else { return }
        var ids = (0..<UInt32(CLAPParameter.muteCount)).map { CLAPParameter.firstMute + $0 }
        ids.append(CLAPParameter.song)
        for id in ids {
            guard let mask = CLAPParameter.bits(id), shown == nil || (shown! & mask) != (bits & mask),
                let v = CLAPParameter.value(id, in: bits)
            else { continue }
            var value = Float(v)
            let bytes = withUnsafeBytes(of: &value) { Array($0) }
            editor.outbox.append(CLAPEditor.Outgoing(port: id, format: 0, bytes: bytes))
        }
        editor.shownControls = bits
    }
}
