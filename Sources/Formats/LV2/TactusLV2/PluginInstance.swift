import CLV2
import LV2Atoms
import TactusEngine
import TactusModel

/// What the audio thread owns. Touched only by functions of LV2's audio
/// threading class: `run()`, `connect_port`, `activate`, `deactivate` and the
/// worker's `work_response`.
struct AudioSide: ~Copyable {
    var controlPort: UnsafePointer<LV2_Atom_Sequence>? = nil
    var midiPort: UnsafeMutablePointer<LV2_Atom_Sequence>? = nil
    var notifyPort: UnsafeMutablePointer<LV2_Atom_Sequence>? = nil
    /// `midi_thru` (timing contract §7.5): input notes go to the output too while it is at or above 0.5.
    var midiThruPort: UnsafePointer<Float>? = nil
    /// `clock` (timing contract §12): MIDI clock on the MIDI output while it is at or above 0.5.
    var clockPort: UnsafePointer<Float>? = nil
    /// `pattern` and `song` (timing contract §9.5, §9.6), read at each block start.
    var patternPort: UnsafePointer<Float>? = nil
    var songPort: UnsafePointer<Float>? = nil
    /// `playing` and `queued` (§9): output controls, written at every `run()`.
    var playingPort: UnsafeMutablePointer<Float>? = nil
    var queuedPort: UnsafeMutablePointer<Float>? = nil
    /// `mute1` ... `mute8` (timing contract §7.6): the sequencer reads them itself.
    var mutePorts = MutePorts()
    /// The engine: renderer, pattern hand-over, what the notify port owes.
    var sequencer: Sequencer
    /// A worker request being assembled (header + payload): copied by the host's schedule_work.
    var request = FixedBytes(capacity: PluginLimits.requestBytes)
    /// The editor's edits and the hosts' pattern texts on their way to the worker (`Inbox`).
    var inbox = Inbox()
    /// The pattern text going out to an editor, piece by piece (`TextSending`).
    var textOut = TextSending()
    /// Frames run so far (the inbox's patience is counted in them).
    var framesRun: Int64 = 0
    /// The editor's newest `patch:sequenceNumber` among the patterns installed
    /// (or refused): sent with every `patch:Set` of the pattern, so that an
    /// editor never takes an older echo over a newer local edit. 0 before any.
    var installedSequence: Int32 = 0
    /// The number of the worker's pattern waiting to be installed, 0 for none.
    var preparedSequence: Int32 = 0
    /// The layout of the last position read in full (`RepeatedPosition.swift`);
    /// last, so that what every block reads stays on the cache lines it was on.
    var positionLayout = RepeatedPositionLayout()
}

/// What the non-realtime side owns: the text that `save()` stores, which is
/// also the text the worker applies an editor's change to; and the inbox
/// buffers allocated. The worker and `restore()` write it, `save()` reads it,
/// under the mutex; `run()` never touches it.
struct ControlSide {
    let mutex: OpaquePointer
    var latestText: [UInt8]
    var latestSource: [UInt8]?
    /// `TextHash.of(latestText)`: a change names the text it was made on by it.
    var latestHash: UInt64
    /// Every inbox buffer alive, wherever it is (`InboxBuffers`).
    var inboxBuffers = InboxBuffers()
}

/// Set at instantiate and read-only after, or lock-free: any thread may use it.
struct SharedSide {
    let sampleRate: Double
    let log: UnsafePointer<LV2_Log_Log>?
    let schedule: UnsafePointer<LV2_Worker_Schedule>?
    /// The sequencer's pattern hand-over: `restore()` offers, the reclaimer frees.
    let exchange: UnsafePointer<SnapshotExchange>
    /// Who frees retired snapshots: the worker if the host has one, else `restore()`/`cleanup()`.
    let reclaimInWorker: Bool
}

/// The plugin instance: what `LV2_Handle` points to. Three separately
/// allocated parts, one per threading class, so that no thread ever forms an
/// access to another thread's part.
struct Plugin {
    let audio: UnsafeMutablePointer<AudioSide>
    let control: UnsafeMutablePointer<ControlSide>
    let shared: UnsafeMutablePointer<SharedSide>
    let uris: UnsafePointer<URIDTable>

    @_noLocks @inline(__always)
    static func from(_ handle: LV2_Handle?) -> Plugin {
        handle!.assumingMemoryBound(to: Plugin.self).pointee
    }

    /// Non-realtime: frees every retired snapshot (on the single reclaiming thread).
    func reclaim() {
        shared.pointee.exchange.pointee.reclaim()
    }

    func log(_ type: LV2_URID, _ message: String) {
        var text = message
        text.withUTF8 { bytes in
            var zeroTerminated = [CChar](repeating: 0, count: bytes.count + 1)
            for i in 0..<bytes.count { zeroTerminated[i] = CChar(bitPattern: bytes[i]) }
            tactus_log(shared.pointee.log, type, zeroTerminated)
        }
    }
}

enum PluginLimits {
    /// Largest worker request (a report: an error for the host's log). Texts
    /// and paths go through the inbox: no request carries more than this,
    /// which jalv's and Qtractor's 4 KiB worker rings hold.
    static var requestBytes: Int { 2048 }
    /// The inbox buffer's size: the largest text one message may carry.
    static var inboxBytes: Int { 1 << 16 }
    /// The largest edit the plugin takes in pieces (a whole text or a change).
    static var largestPayload: Int { 32 << 20 }
    /// Largest pattern file read.
    static var fileBytes: Int { 16 << 20 }
    /// Events the MIDI buffer can hold in one block (the port's size may lower it).
    static var midiEvents: Int { 8192 }
}
