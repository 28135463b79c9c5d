import CCLAP
import Synchronization
import TactusEngine

/// The editor's way to and from the audio thread, in the plugin's own
/// process (the CLAP counterpart of LV2's control and notify ports): three
/// fixed-size lock-free queues (`SPSCQueue`), allocated at `create_plugin`.
///
/// - `commands` (main thread to `process()`): what only the audio thread
///   may do for the editor: an audition (§8.1), the playhead lease (§8.2),
///   the lanes past 8 muted (§7.6), a pattern requested (§9.2).
/// - `changes` (main thread to `process()` or `params.flush`): parameters
///   the editor set (a mute clicked), which the host is told of as output
///   parameter events between gesture begin and end.
/// - `notices` (`process()` to the main thread's timer): what the sequencer
///   owes the editor (the playhead, the scene, the lanes past 8 muted, a
///   pattern to reclaim), read
///   while an editor is open and dropped otherwise.
///
/// Pushing and popping never allocate, lock or block; a full queue drops
/// (a command: the editor renews its lease, a click is lost; a notice: the
/// next block's carries the playhead again, anything else is owed again).
struct EditorChannel {
    enum Command: BitwiseCopyable {
        case audition(key: UInt8, velocity: UInt8, channel: UInt8)
        case lease(open: Bool)
        /// `urn:tactus:laneMutes`: bit i mutes lane i, for the lanes past the eight parameters.
        case laneMutes(UInt64)
        /// `urn:tactus:request` (§9.2): pattern `number` (0: not understood, ignored and
        /// counted) at `grid` (nil: the text's `switch`).
        case request(number: Int, grid: SwitchSettings.Grid?)
    }

    /// A parameter the editor set: its id (`CLAPParameter`) and value.
    struct Change: BitwiseCopyable {
        var id: UInt32
        var value: Double
    }

    /// What a block owed the editor, with the playhead, the scene (§9.9) and
    /// the lanes past 8 muted (§7.6, `urn:tactus:laneMutes`) at its end.
    struct Notice: BitwiseCopyable {
        var owed: OwedNotifications
        var playhead: Playhead
        var scene: SceneReport
        var lanesPastEight: UInt64
    }

    let commands: UnsafeMutablePointer<SPSCQueue<Command>>
    let changes: UnsafeMutablePointer<SPSCQueue<Change>>
    let notices: UnsafeMutablePointer<SPSCQueue<Notice>>
    /// The lanes past the eight mute parameters that are muted (bits 8-63):
    /// `process()` sets them from the editor's commands and plays them, the
    /// main thread saves them and sets them from a state load (`lanesPastEight`).
    let pastEight: UnsafeMutablePointer<Atomic<UInt64>>
    /// Whether an editor is open (the main thread sets it, `process()` reads it).
    let editorOpen: UnsafeMutablePointer<Atomic<Bool>>

    static func make() -> EditorChannel {
        let commands = UnsafeMutablePointer<SPSCQueue<Command>>.allocate(capacity: 1)
        commands.initialize(to: SPSCQueue(capacity: 256))
        let changes = UnsafeMutablePointer<SPSCQueue<Change>>.allocate(capacity: 1)
        changes.initialize(to: SPSCQueue(capacity: 256))
        let notices = UnsafeMutablePointer<SPSCQueue<Notice>>.allocate(capacity: 1)
        notices.initialize(to: SPSCQueue(capacity: 64))
        let pastEight = UnsafeMutablePointer<Atomic<UInt64>>.allocate(capacity: 1)
        pastEight.initialize(to: Atomic(0))
        let editorOpen = UnsafeMutablePointer<Atomic<Bool>>.allocate(capacity: 1)
        editorOpen.initialize(to: Atomic(false))
        return EditorChannel(commands: commands, changes: changes, notices: notices, pastEight: pastEight, editorOpen: editorOpen)
    }

    func free() {
        commands.deinitialize(count: 1)
        commands.deallocate()
        changes.deinitialize(count: 1)
        changes.deallocate()
        notices.deinitialize(count: 1)
        notices.deallocate()
        pastEight.deinitialize(count: 1)
        pastEight.deallocate()
        editorOpen.deinitialize(count: 1)
        editorOpen.deallocate()
    }

    /// The lanes past 8 muted (bits 8-63; lower bits set are dropped): any
    /// thread, lock-free. `process()` plays a change from its next block's first frame.
    var lanesPastEight: UInt64 {
        @_noLocks get { pastEight.pointee.load(ordering: .relaxed) }
        @_noLocks nonmutating set { pastEight.pointee.store(newValue & ~CLAPParameter.muteMask, ordering: .relaxed) }
    }

    // MARK: - Audio thread

    /// At a block's start (after `beginBlock`): the editor's commands, at the block's first frame.
    @_noLocks
    func receiveCommands(into sequencer: UnsafeMutablePointer<Sequencer>) {
        while let command = commands.pointee.pop() {
            switch command {
            case .audition(let key, let velocity, let channel):
                sequencer.pointee.audition(key: key, velocity: velocity, channel: channel, atOffset: 0)
            case .lease(let open):
                if open { sequencer.pointee.editorOpened() } else { sequencer.pointee.editorClosed() }
            case .laneMutes(let bits):
                lanesPastEight = bits
            case .request(let number, let grid):
                sequencer.pointee.request(pattern: number, grid: grid, atOffset: 0)
            }
        }
    }

    /// The parameters the editor set, told to the host (`process()` or `params.flush`):
    /// each as a gesture, its value, its end, at frame 0.
    @_noLocks
    func sendChanges(to output: UnsafePointer<clap_output_events_t>?) {
        while let change = changes.pointee.pop() {
            var gesture = clap_event_param_gesture_t()
            gesture.header.size = UInt32(MemoryLayout<clap_event_param_gesture_t>.size)
            gesture.header.space_id = CLAP_CORE_EVENT_SPACE_ID
            gesture.header.type = UInt16(CLAP_EVENT_PARAM_GESTURE_BEGIN)
            gesture.param_id = change.id
            push(&gesture, to: output)
            var value = clap_event_param_value_t()
            value.header.size = UInt32(MemoryLayout<clap_event_param_value_t>.size)
            value.header.space_id = CLAP_CORE_EVENT_SPACE_ID
            value.header.type = UInt16(CLAP_EVENT_PARAM_VALUE)
            value.param_id = change.id
            value.note_id = -1
            value.port_index = -1
            value.channel = -1
            value.key = -1
            value.value = change.value
            push(&value, to: output)
            gesture.header.type = UInt16(CLAP_EVENT_PARAM_GESTURE_END)
            push(&gesture, to: output)
        }
    }

    // (One per event type: a generic closure is not allowed on the audio thread.)
    @_noLocks
    private func push(_ event: inout clap_event_param_gesture_t, to output: UnsafePointer<clap_output_events_t>?) {
        _ = withUnsafePointer(to: &event) { e in
            e.withMemoryRebound(to: clap_event_header_t.self, capacity: 1) { tactus_clap_output_push(output, $0) }
        }
    }

    @_noLocks
    private func push(_ event: inout clap_event_param_value_t, to output: UnsafePointer<clap_output_events_t>?) {
        _ = withUnsafePointer(to: &event) { e in
            e.withMemoryRebound(to: clap_event_header_t.self, capacity: 1) { tactus_clap_output_push(output, $0) }
        }
    }

    /// At a block's end (after `endBlock`): what the sequencer owes, for an open editor.
    @_noLocks
    func tell(from sequencer: UnsafeMutablePointer<Sequencer>) {
        var owed = sequencer.pointee.takeOwed()
        if owed.contains(.droppedNoteOns) {
            sequencer.pointee.droppedNoteOnsReported(sequencer.pointee.renderer.statistics.droppedNoteOns)
            owed.remove(.droppedNoteOns)
        }
        guard !owed.isEmpty, editorOpen.pointee.load(ordering: .relaxed) else { return }
        // The engine's lane mutes parameter holds the eight mute parameters too; the editor learns those as parameters.
        let notice = Notice(
            owed: owed, playhead: sequencer.pointee.playhead, scene: sequencer.pointee.scene,
            lanesPastEight: sequencer.pointee.laneMutes & ~CLAPParameter.muteMask)
        if !notices.pointee.push(notice) {
            owed.remove(.playhead)
            sequencer.pointee.owe(owed)
        }
    }
}
