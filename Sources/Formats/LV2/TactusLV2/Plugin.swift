import CLV2
import LV2Atoms
import TactusEngine
import TactusModel

// The LV2 entry points: each function of the plugin's lifetime, forwarding to
// the `Plugin` instance. Port indices follow tactus.ttl (through CLV2.h). The descriptor and the
// extension interfaces that point to them are constant tables in C
// (Sources/C/CLV2Descriptor/descriptor.c): Swift globals would be written, or borrowed
// inout, at each call, a data race when two host threads call lv2_descriptor
// or extension_data at once (found by the thread sanitizer). Public, so that
// Embedded Swift emits them although only C refers to them.

/// The port indices, from CLV2 (where the project's hosts take them too).
enum Port {
    static var control: UInt32 { TACTUS_PORT_CONTROL }
    static var midiOut: UInt32 { TACTUS_PORT_MIDI_OUT }
    static var notify: UInt32 { TACTUS_PORT_NOTIFY }
}

@_cdecl("tactus_instantiate")
public func instantiate(
    _ descriptor: UnsafePointer<LV2_Descriptor>?, _ sampleRate: Double, _ bundlePath: UnsafePointer<CChar>?,
    _ features: UnsafePointer<UnsafePointer<LV2_Feature>?>?
) -> LV2_Handle? {
    let list = FeatureList(features)
    let log = list.data(tactus_uri_log_log)?.assumingMemoryBound(to: LV2_Log_Log.self)
    guard let map = list.data(tactus_uri_urid_map)?.assumingMemoryBound(to: LV2_URID_Map.self) else {
        tactus_log(log, 0, "the host does not provide urid:map, which Tactus requires")
        return nil
    }
    guard sampleRate.isFinite, sampleRate > 0 else {
        tactus_log(log, 0, "the host gave an invalid sample rate")
        return nil
    }
    let schedule = list.data(tactus_uri_worker_schedule)?.assumingMemoryBound(to: LV2_Worker_Schedule.self)
    let uris = UnsafeMutablePointer<URIDTable>.allocate(capacity: 1)
    uris.initialize(to: URIDTable(map))
    if schedule == nil {
        // Said once here, as run() cannot log: each refused edit is also reported on the notify port.
        tactus_log(log, uris.pointee.logWarning,
            "the host provides no worker (work:schedule): the pattern plays and state restore works, but patch:Set edits are refused")
    }

    let defaultText = DefaultPattern.bytes
    // The built-in pattern always parses (a test checks it); instantiate is not realtime.
    var first: PatternSnapshot? = nil
    if case .loaded(let snapshot) = PatternLoading.fromText(defaultText) { first = snapshot }
    let audio = UnsafeMutablePointer<AudioSide>.allocate(capacity: 1)
    audio.initialize(to: AudioSide(
        sequencer: Sequencer(sampleRate: sampleRate, eventCapacity: PluginLimits.midiEvents, pattern: first)))
    audio.pointee.sequencer.readPortMutes(from: audio.pointee.mutePorts.controls)
    let control = UnsafeMutablePointer<ControlSide>.allocate(capacity: 1)
    control.initialize(to: ControlSide(mutex: tactus_mutex_new(), latestText: defaultText, latestSource: nil, latestHash: TextHash.of(defaultText)))
    // The inbox's first buffer (Inbox): the audio thread holds it from the start.
    audio.pointee.inbox.capacity = PluginLimits.inboxBytes
    audio.pointee.inbox.patience = Inbox.patience(sampleRate: sampleRate)
    audio.pointee.inbox.buffer = control.pointee.inboxBuffers.allocate(capacity: PluginLimits.inboxBytes)
    let shared = UnsafeMutablePointer<SharedSide>.allocate(capacity: 1)
    shared.initialize(to: SharedSide(
        sampleRate: sampleRate, log: UnsafePointer(log), schedule: UnsafePointer(schedule),
        exchange: audio.pointee.sequencer.handOver, reclaimInWorker: schedule != nil))
    let plugin = UnsafeMutablePointer<Plugin>.allocate(capacity: 1)
    plugin.initialize(to: Plugin(audio: audio, control: control, shared: shared, uris: UnsafePointer(uris)))
    return LV2_Handle(plugin)
}

@_cdecl("tactus_connect_port")
public func connectPort(_ handle: LV2_Handle?, _ port: UInt32, _ data: UnsafeMutableRawPointer?) {
    let a = Plugin.from(handle).audio
    switch port {
    case Port.control: a.pointee.controlPort = UnsafePointer(data?.assumingMemoryBound(to: LV2_Atom_Sequence.self))
    case Port.midiOut: a.pointee.midiPort = data?.assumingMemoryBound(to: LV2_Atom_Sequence.self)
    case Port.notify: a.pointee.notifyPort = data?.assumingMemoryBound(to: LV2_Atom_Sequence.self)
    case TACTUS_PORT_MIDI_THRU: a.pointee.midiThruPort = UnsafePointer(data?.assumingMemoryBound(to: Float.self))
    case TACTUS_PORT_CLOCK: a.pointee.clockPort = UnsafePointer(data?.assumingMemoryBound(to: Float.self))
    case TACTUS_PORT_PATTERN: a.pointee.patternPort = UnsafePointer(data?.assumingMemoryBound(to: Float.self))
    case TACTUS_PORT_SONG: a.pointee.songPort = UnsafePointer(data?.assumingMemoryBound(to: Float.self))
    case TACTUS_PORT_PLAYING: a.pointee.playingPort = data?.assumingMemoryBound(to: Float.self)
    case TACTUS_PORT_QUEUED: a.pointee.queuedPort = data?.assumingMemoryBound(to: Float.self)
    case TACTUS_PORT_MUTE_FIRST..<(TACTUS_PORT_MUTE_FIRST + TACTUS_PORT_MUTE_COUNT):
        a.pointee.mutePorts.connect(Int(port - TACTUS_PORT_MUTE_FIRST), to: UnsafePointer(data?.assumingMemoryBound(to: Float.self)))
    default: break
    }
}

@_cdecl("tactus_activate")
public func activate(_ handle: LV2_Handle?) {
    // As eg-metro: the reset is here. Every note still sounding from before a
    // deactivation ends at the first frame of the first block run now
    // (reading (e)), an auditioned note's too, and the transport is
    // forgotten; on the first activation nothing sounds and nothing changes.
    Plugin.from(handle).audio.pointee.sequencer.activate()
}

@_cdecl("tactus_run") @_noLocks
public func run(_ handle: LV2_Handle?, _ frameCount: UInt32) {
    Plugin.from(handle).run(frameCount: Int(frameCount))
}

@_cdecl("tactus_deactivate")
public func deactivate(_ handle: LV2_Handle?) {
    // Nothing to do: no run() comes until activate, which resets (see above).
}

@_cdecl("tactus_cleanup")
public func cleanup(_ handle: LV2_Handle?) {
    let raw = handle!.assumingMemoryBound(to: Plugin.self)
    let plugin = raw.pointee
    tactus_mutex_free(plugin.control.pointee.mutex)
    plugin.control.pointee.inboxBuffers.freeAll()  // wherever each was: the audio side's, the worker's, one lost on its way
    plugin.audio.deinitialize(count: 1)  // the sequencer frees every snapshot it holds
    plugin.audio.deallocate()
    plugin.control.deinitialize(count: 1)
    plugin.control.deallocate()
    plugin.shared.deinitialize(count: 1)
    plugin.shared.deallocate()
    UnsafeMutablePointer(mutating: plugin.uris).deallocate()
    raw.deinitialize(count: 1)
    raw.deallocate()
}

@_cdecl("tactus_work")
public func work(
    _ handle: LV2_Handle?, _ respond: LV2_Worker_Respond_Function?, _ respondHandle: LV2_Worker_Respond_Handle?,
    _ size: UInt32, _ data: UnsafeRawPointer?
) -> LV2_Worker_Status {
    guard let data else { return LV2_WORKER_ERR_UNKNOWN }
    return Plugin.from(handle).work(request: data, size: Int(size), respond: respond, handle: respondHandle)
}

@_cdecl("tactus_work_response") @_noLocks
public func workResponse(_ handle: LV2_Handle?, _ size: UInt32, _ data: UnsafeRawPointer?) -> LV2_Worker_Status {
    guard let data else { return LV2_WORKER_ERR_UNKNOWN }
    Plugin.from(handle).workResponse(data, size: Int(size))
    return LV2_WORKER_SUCCESS
}

@_cdecl("tactus_save")
public func save(
    _ handle: LV2_Handle?, _ store: LV2_State_Store_Function?, _ stateHandle: LV2_State_Handle?, _ flags: UInt32,
    _ features: UnsafePointer<UnsafePointer<LV2_Feature>?>?
) -> LV2_State_Status {
    guard let store else { return LV2_STATE_ERR_UNKNOWN }
    return Plugin.from(handle).save(store: store, handle: stateHandle, features: features)
}

@_cdecl("tactus_restore")
public func restore(
    _ handle: LV2_Handle?, _ retrieve: LV2_State_Retrieve_Function?, _ stateHandle: LV2_State_Handle?, _ flags: UInt32,
    _ features: UnsafePointer<UnsafePointer<LV2_Feature>?>?
) -> LV2_State_Status {
    guard let retrieve else { return LV2_STATE_ERR_UNKNOWN }
    return Plugin.from(handle).restore(retrieve: retrieve, handle: stateHandle, features: features)
}
