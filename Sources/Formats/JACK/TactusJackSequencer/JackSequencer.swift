import CJack
import CRTCheckHooks
import Synchronization
import TactusEngine
import TactusModel
import TactusJack

/// What the process callback journals for the prompt thread: which position
/// it gave the core, which pattern it installed, which all-notes-off it saw,
/// at which of its frames. Fixed-size, copied through a lock-free queue.
struct JournalEntry: Sendable, BitwiseCopyable {
    /// `clock`: a run of consecutive cycles starts here (at the first cycle, and
    /// after JACK skipped this client); `snapshot` holds the server's frame time.
    /// `followInput`: a key-follow note-on or CC 121 (timing contract §7.5), replayed as MIDI.
    enum Kind: UInt8, Sendable, BitwiseCopyable { case position, installed, allNotesOff, clock, followInput }
    var kind: Kind
    var frame: Int64
    var update: PositionUpdate = PositionUpdate()
    /// The installed snapshot's tag.
    var snapshot: UInt64 = 0
    /// The control change that ended all notes (status, controller).
    var status: UInt8 = 0
    var data1: UInt8 = 0
    var data2: UInt8 = 0
}

/// Everything the process callback touches, reached through plain pointers
/// (no reference counting on the audio thread). Allocated once, off it.
struct ProcessContext {
    let client: OpaquePointer
    let midiOut: OpaquePointer
    let controlIn: OpaquePointer
    let sequencer: UnsafeMutablePointer<Sequencer>
    let follower: UnsafeMutablePointer<JackTransportFollower>
    let journal: UnsafeMutablePointer<SPSCQueue<JournalEntry>>
    let counters: UnsafeMutablePointer<ProcessCounters>
    let flags: UnsafeMutablePointer<SessionFlags>
    let scratch: UnsafeMutablePointer<UInt8>
    let rtcheck: Bool
    let journaling: Bool
}

/// The prompt thread's requests to the process callback, and its answers.
struct SessionFlags: ~Copyable {
    /// Set by the prompt at quit: the next cycle stops the sequencer (note-offs for
    /// everything sounding, as a transport stop does) and it stays silent after.
    let closeRequested = Atomic<Bool>(false)
    /// The frame after the closing cycle, -1 until then.
    let closedAt = Atomic<Int64>(-1)
    /// Cycles processed (read by the prompt to wait for a cycle).
    let cycles = Atomic<Int64>(0)
}

/// Counters kept by the process callback (read by the prompt thread only for reports).
struct ProcessCounters {
    var processed: Int64 = 0
    var failedWrites: Int64 = 0
    var lostJournalEntries: Int64 = 0
    /// The server frame time the next cycle should start at, if no cycle is skipped.
    var expectedFrameTime: UInt32 = 0
    var clockKnown = false
    /// The longest the callback took, in microseconds (wall time, preemption included).
    var longestCallback: UInt64 = 0
}

/// The timebase master's tempo and meter (`--master`): constant, read-only on the audio thread.
struct MasterClock {
    let sampleRate: Double
    let beatsPerMinute: Double
    let beatsPerBar: Double
    static var ticksPerBeat: Double { 1920 }
}

enum JackSequencerProcess {
    /// The JACK process callback, a thin wrapper of the core's `Sequencer`
    /// (which installs a pattern the prompt offered, at the block start, §5):
    /// it gives the engine JACK's transport when it changed (as jalv does, see
    /// `JackTransportFollower`) and CC 123/120 from the control input at their
    /// frames, writes the block's MIDI, and journals what it did. No lock,
    /// allocation, syscall or reference counting: `@_noLocks`.
    @_noLocks
    static func process(_ frameCount: jack_nframes_t, _ raw: UnsafeMutableRawPointer) {
        let c = raw.assumingMemoryBound(to: ProcessContext.self).pointee
        let began = tactus_jack_get_time()
        if c.rtcheck { tactus_rtcheck_hooks_begin() }
        let frame = c.counters.pointee.processed
        defer {
            c.counters.pointee.processed = frame &+ Int64(frameCount)
            c.flags.pointee.cycles.add(1, ordering: .releasing)
            if c.rtcheck { tactus_rtcheck_hooks_end() }
            let took = tactus_jack_get_time() &- began
            if took > c.counters.pointee.longestCallback { c.counters.pointee.longestCallback = took }
        }
        // Which server cycle this is: frames here count this client's cycles (as a
        // plugin counts its blocks), so a skipped cycle is noted for the journal.
        let frameTime = tactus_jack_last_frame_time(c.client)
        if !c.counters.pointee.clockKnown || frameTime != c.counters.pointee.expectedFrameTime {
            journal(c, JournalEntry(kind: .clock, frame: frame, snapshot: UInt64(frameTime)))
            c.counters.pointee.clockKnown = true
        }
        c.counters.pointee.expectedFrameTime = frameTime &+ frameCount
        if c.flags.pointee.closedAt.load(ordering: .relaxed) >= 0 {
            if let output = tactus_jack_port_buffer(c.midiOut, frameCount) { tactus_jack_midi_clear(output) }
            return
        }

        var pos = jack_position_t()
        let state = tactus_jack_transport_query(c.client, &pos)
        let transport = JackTransportSnapshot(query: pos, state: state, frameCount: frameCount, cycleStart: frame)
        // The core keeps within what JACK's buffer holds (note-offs first, §5),
        // rather than JACK dropping whatever comes last.
        let output = tactus_jack_port_buffer(c.midiOut, frameCount)
        var room = c.sequencer.pointee.eventStorageCapacity
        if let output {
            tactus_jack_midi_clear(output)
            room = min(room, tactus_jack_midi_space(output) / JackSequencerProcess.bytesPerEvent)
        }
        let closing = c.flags.pointee.closeRequested.load(ordering: .acquiring)
        beginCycle(c, frame: frame, transport: transport, room: room, closing: closing)
        if let input = tactus_jack_port_buffer(c.controlIn, frameCount) {
            let count = tactus_jack_midi_count(input)
            var event = jack_midi_event_t()
            var i: UInt32 = 0
            while i < count {
                if tactus_jack_midi_get(&event, input, i) == 0, event.size >= 2, let bytes = event.buffer {
                    control(c, frame: frame, offset: Int(event.time), status: bytes[0], data1: bytes[1], data2: event.size >= 3 ? bytes[2] : 0)
                }
                i += 1
            }
        }
        c.sequencer.pointee.endBlock()
        // Nothing owed is sent anywhere here: the prompt frees retired snapshots
        // on its own, and reads errors and statistics after the session.
        _ = c.sequencer.pointee.takeOwed()

        if let output {
            for e in c.sequencer.pointee.events {
                c.scratch[0] = e.status
                c.scratch[1] = e.data1
                c.scratch[2] = e.data2
                if tactus_jack_midi_write(output, jack_nframes_t(e.offset), c.scratch, 3) != 0 {
                    c.counters.pointee.failedWrites &+= 1
                }
            }
        }
        if closing { c.flags.pointee.closedAt.store(frame &+ Int64(frameCount), ordering: .releasing) }
    }

    /// The engine's part of a cycle's start, JACK's buffers aside (what
    /// `JackCyclePlayer` also runs, without a server): the pattern the prompt
    /// offered, installed by the engine; JACK's transport when it changed; the
    /// closing stop. Each is journaled at this client's frame.
    @_noLocks
    static func beginCycle(_ c: ProcessContext, frame: Int64, transport: JackTransportSnapshot, room: Int, closing: Bool) {
        if let installed = c.sequencer.pointee.beginBlock(frameCount: Int(transport.frameCount), eventCapacity: room) {
            journal(c, JournalEntry(kind: .installed, frame: frame, snapshot: installed.tag))
        }
        if let update = c.follower.pointee.update(for: transport) {
            c.sequencer.pointee.apply(update, atOffset: 0)
            journal(c, JournalEntry(kind: .position, frame: frame, update: update))
        }
        if closing {
            // Quitting: stop as a transport stop does (§4), so that the synth is
            // left with nothing sounding, whatever JACK transport does next.
            var stop = PositionUpdate()
            stop.speed = 0
            c.sequencer.pointee.apply(stop, atOffset: 0)
            journal(c, JournalEntry(kind: .position, frame: frame, update: stop))
        }
    }

    /// A message on the control input at `offset` frames into the cycle: CC 123
    /// or CC 120 ends every sounding note there (§5); a note-on or CC 121 acts
    /// on the lanes that follow the key (§7.5); anything else is ignored.
    @_noLocks
    static func control(_ c: ProcessContext, frame: Int64, offset: Int, status: UInt8, data1: UInt8, data2: UInt8) {
        let effect = withUnsafeBytes(of: (status, data1, data2)) { c.sequencer.pointee.receiveMIDI($0, atOffset: offset) }
        switch effect {
        case .follow:
            journal(c, JournalEntry(kind: .followInput, frame: frame &+ Int64(offset), status: status, data1: data1, data2: data2))
        case .allNotesOff:
            journal(c, JournalEntry(kind: .allNotesOff, frame: frame &+ Int64(offset), status: status, data1: data1))
        case .none:
            break
        }
    }

    /// What one 3-byte event costs in a JACK MIDI buffer, at most (JACK2
    /// stores 12 bytes; JACK1 a 12-byte header and the data), rounded up.
    static var bytesPerEvent: Int { 16 }

    @_noLocks @inline(__always)
    static func journal(_ c: ProcessContext, _ entry: JournalEntry) {
        guard c.journaling else { return }
        if !c.journal.pointee.push(entry) { c.counters.pointee.lostJournalEntries &+= 1 }
    }

    /// The timebase callback of `--master`: bar, beat and tick of a frame at a
    /// constant tempo, with the fractional tick, so followers need not round.
    @_noLocks
    static func timebase(_ pos: UnsafeMutablePointer<jack_position_t>, _ raw: UnsafeMutableRawPointer) {
        let clock = raw.assumingMemoryBound(to: MasterClock.self).pointee
        let beats = Double(pos.pointee.frame) * clock.beatsPerMinute / (60 * clock.sampleRate)
        pos.pointee.setBBT(beats: beats, beatsPerBar: clock.beatsPerBar, ticksPerBeat: MasterClock.ticksPerBeat, beatsPerMinute: clock.beatsPerMinute)
    }
}
