import CCLAP
import CCLAPEntry
import TactusEngine
import TactusModel

// The CLAP entry points the C tables call (Sources/C/CCLAPEntry/entry.c): each
// function of the plugin's lifetime, forwarding to the `CLAPPlugin` instance.
// Public, so that Embedded Swift emits them although only C refers to them.
//
// Threads (CLAP's): create, destroy, activate and deactivate on the main
// thread; reset and process on the audio thread, never at once with the first.

/// One instance. The sequencer needs the sample rate, which CLAP gives at
/// `activate`: it is made there (and remade when the rate changes), with the
/// pattern the instance holds (the default one until state lands).
struct CLAPPlugin {
    /// The engine, nil until the first activation.
    var sequencer: UnsafeMutablePointer<Sequencer>? = nil
    var sampleRate: Double = 0
    /// The host, for its log (main thread).
    let host: UnsafePointer<clap_host_t>?
    /// The pattern text in use or handed over last, and the file it came
    /// from: what the state saves, and what `activate` plays (main thread).
    var text: [UInt8] = DefaultPattern.bytes
    var source: [UInt8]? = nil
    /// The parameters' values (§11.4): shared by both threads, lock-free.
    let controls = CLAPControls.make()
    /// Note-offs a sequencer replaced at a new rate still owed.
    let owedNoteOffs = OwedNoteOffs.make()
    /// The editor's queues to and from the audio thread.
    let editorChannel = EditorChannel.make()
    /// The editor, while the host shows one (main thread).
    var editor = CLAPEditor()

    init(host: UnsafePointer<clap_host_t>?) { self.host = host }

    /// A message for the host's log (CLAP's log extension), if it has one.
    func log(_ severity: Int32, _ message: String) {
        var bytes = Array(message.utf8)
        bytes.append(0)
        bytes.withUnsafeBufferPointer { p in
            p.baseAddress!.withMemoryRebound(to: CChar.self, capacity: p.count) { tactus_clap_log(host, severity, $0) }
        }
    }

    /// Makes `text` (from `source`, a file, if any) the pattern in use
    /// (main thread): parsed here, handed to the audio thread through the
    /// sequencer's exchange, it plays from the next block (§5), as LV2's
    /// worker hands one over; before the first activation it is kept for
    /// `activate`. Nil when it is in use; else the reason a person reads,
    /// and the pattern in use stays. A state load and an editor's edit alike.
    mutating func install(_ text: [UInt8], source: [UInt8]?) -> String? {
        let arrangement: Arrangement
        do throws(PatternError) {
            arrangement = try PatternParser.arrangement(bytes: text)
        } catch {
            return error.message
        }
        if let sequencer {
            let exchange = sequencer.pointee.handOver
            _ = exchange.pointee.reclaim()  // the main thread is the exchange's one reclaimer
            let snapshot = PatternSnapshot.make(arrangement: arrangement, text: text, source: source)
            guard exchange.pointee.offer(snapshot) else {
                snapshot.destroy()
                return "\(SnapshotExchange.defaultBudget) patterns are already waiting for the audio thread; try again when it runs"
            }
        }
        self.text = text
        self.source = source
        return nil
    }

    @_noLocks @inline(__always)
    static func from(_ instance: UnsafeMutableRawPointer) -> UnsafeMutablePointer<CLAPPlugin> {
        instance.assumingMemoryBound(to: CLAPPlugin.self)
    }
}

enum CLAPLimits {
    /// Events the engine's output holds in one block.
    static var midiEvents: Int { 8192 }
}

@_cdecl("tactus_clap_new")
public func clapNew(_ host: UnsafePointer<clap_host_t>?) -> UnsafeMutableRawPointer? {
    let plugin = UnsafeMutablePointer<CLAPPlugin>.allocate(capacity: 1)
    plugin.initialize(to: CLAPPlugin(host: host))
    return UnsafeMutableRawPointer(plugin)
}

@_cdecl("tactus_clap_free")
public func clapFree(_ instance: UnsafeMutableRawPointer?) {
    guard let instance else { return }
    let plugin = CLAPPlugin.from(instance)
    if let sequencer = plugin.pointee.sequencer {
        sequencer.deinitialize(count: 1)  // the sequencer frees every snapshot it holds
        sequencer.deallocate()
    }
    closeEditor(plugin)  // a host that destroys the plugin with its gui still open
    plugin.pointee.controls.free()
    plugin.pointee.owedNoteOffs.free()
    plugin.pointee.editorChannel.free()
    plugin.deinitialize(count: 1)
    plugin.deallocate()
}

/// Main thread: makes the sequencer for this rate (the first time, or at a new
/// rate), then resets it as LV2's activate does: what sounded before ends at the
/// first frame of the next block, the transport is forgotten (reading (e)).
@_cdecl("tactus_clap_activate")
public func clapActivate(_ instance: UnsafeMutableRawPointer?, _ sampleRate: Double, _ minFrames: UInt32, _ maxFrames: UInt32) -> Bool {
    guard let instance, sampleRate.isFinite, sampleRate > 0 else { return false }
    let plugin = CLAPPlugin.from(instance)
    if plugin.pointee.sequencer == nil || plugin.pointee.sampleRate != sampleRate {
        if let old = plugin.pointee.sequencer {
            // Reading (e) at any rate: what sounded ends at the first frame of the next block.
            plugin.pointee.owedNoteOffs.take(from: old.pointee.renderer.tracker)
            old.deinitialize(count: 1)
            old.deallocate()
        }
        // The built-in pattern, or the one a state load accepted: it parses (it did
        // when accepted; a test checks the built-in one); activate is not realtime.
        let text = plugin.pointee.text
        var first: PatternSnapshot? = nil
        if let arrangement = try? PatternParser.arrangement(bytes: text) {
            first = PatternSnapshot.make(arrangement: arrangement, text: text, source: plugin.pointee.source)
        }
        let sequencer = UnsafeMutablePointer<Sequencer>.allocate(capacity: 1)
        sequencer.initialize(to: Sequencer(sampleRate: sampleRate, eventCapacity: CLAPLimits.midiEvents, pattern: first))
        plugin.pointee.sequencer = sequencer
        plugin.pointee.sampleRate = sampleRate
    }
    plugin.pointee.sequencer!.pointee.activate()
    return true
}

@_cdecl("tactus_clap_deactivate")
public func clapDeactivate(_ instance: UnsafeMutableRawPointer?) {
    // Nothing to do: no process() comes until activate, which resets.
}

/// Audio thread: as a deactivation and activation (CLAP: "clears all buffers,
/// performs a full reset of the processing state").
@_cdecl("tactus_clap_reset") @_noLocks
public func clapReset(_ instance: UnsafeMutableRawPointer?) {
    guard let instance, let sequencer = CLAPPlugin.from(instance).pointee.sequencer else { return }
    sequencer.pointee.activate()
}

@_cdecl("tactus_clap_process") @_noLocks
public func clapProcess(_ instance: UnsafeMutableRawPointer?, _ process: UnsafePointer<clap_process_t>?) -> clap_process_status {
    guard let instance, let process, let sequencer = CLAPPlugin.from(instance).pointee.sequencer else {
        return clap_process_status(CLAP_PROCESS_ERROR)
    }
    let plugin = CLAPPlugin.from(instance)
    CLAPProcess.run(
        sequencer, controls: plugin.pointee.controls, owed: plugin.pointee.owedNoteOffs, editor: plugin.pointee.editorChannel, process)
    return clap_process_status(CLAP_PROCESS_CONTINUE)
}

/// `clap_plugin_state.save` (main thread).
@_cdecl("tactus_clap_state_save")
public func clapStateSave(_ instance: UnsafeMutableRawPointer?, _ stream: UnsafePointer<clap_ostream_t>?) -> Bool {
    guard let instance, let stream else { return false }
    return CLAPPlugin.from(instance).pointee.save(to: stream)
}

/// `clap_plugin_state.load` (main thread).
@_cdecl("tactus_clap_state_load")
public func clapStateLoad(_ instance: UnsafeMutableRawPointer?, _ stream: UnsafePointer<clap_istream_t>?) -> Bool {
    guard let instance, let stream else { return false }
    return CLAPPlugin.from(instance).pointee.load(from: stream)
}

/// The note-offs a sequencer owed when `activate` replaced it at another
/// sample rate (reading (e): every note still sounding ends at the first
/// frame of the first block after the activation, whatever the rate): taken
/// on the main thread in `activate`, sent first by the next `process()` with
/// at least one frame. Never touched by both threads at once (CLAP runs no
/// `process()` while `activate` runs). Allocated at `create_plugin`.
struct OwedNoteOffs {
    private let slots: UnsafeMutablePointer<UInt16>
    private let count: UnsafeMutablePointer<Int>

    static func make() -> OwedNoteOffs {
        let count = UnsafeMutablePointer<Int>.allocate(capacity: 1)
        count.initialize(to: 0)
        return OwedNoteOffs(slots: .allocate(capacity: NoteTracker.slotCount), count: count)
    }

    func free() {
        slots.deallocate()
        count.deallocate()
    }

    /// Adds every note `tracker` holds sounding (main thread).
    func take(from tracker: borrowing NoteTracker) {
        for slot in 0..<NoteTracker.slotCount where tracker.isSounding(slot) && count.pointee < NoteTracker.slotCount {
            slots[count.pointee] = UInt16(slot)
            count.pointee += 1
        }
    }

    /// Pushes the owed note-offs at time 0 of a block of at least one frame;
    /// what the host's list refuses stays owed.
    @_noLocks
    func send(frameCount: Int, to output: UnsafePointer<clap_output_events_t>?, using midi: inout clap_event_midi_t) {
        let owed = count.pointee
        guard owed > 0, frameCount > 0 else { return }
        var sent = 0
        while sent < owed {
            let off = MIDIEvent.noteOff(offset: 0, slot: Int(slots[sent]))
            midi.header.time = 0
            midi.data = (off.status, off.data1, off.data2)
            let pushed = withUnsafePointer(to: &midi) { event in
                event.withMemoryRebound(to: clap_event_header_t.self, capacity: 1) { tactus_clap_output_push(output, $0) }
            }
            if !pushed { break }
            sent += 1
        }
        var i = 0
        while sent + i < owed {
            slots[i] = slots[sent + i]
            i += 1
        }
        count.pointee = owed - sent
    }
}
