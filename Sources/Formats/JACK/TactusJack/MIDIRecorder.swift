import CJack
import Synchronization
import TactusEngine
import TactusModel

/// What the recorder's process callback saw: a cycle's transport, or a MIDI event.
public struct RecorderEntry: Sendable, BitwiseCopyable {
    public enum Kind: UInt8, Sendable, BitwiseCopyable { case cycle, event }
    public var kind: Kind
    public var transport: JackTransportSnapshot
    /// The server's frame time at the start of the cycle (`jack_last_frame_time`),
    /// the clock all clients share: it lines up recordings made by different clients.
    public var frameTime: UInt32 = 0
    /// For events: frames into the cycle, and up to 3 bytes.
    public var offset: UInt32
    public var size: UInt8
    public var b0: UInt8
    public var b1: UInt8
    public var b2: UInt8
}

/// A JACK client with one MIDI input that records every event it receives
/// with its frame (the frames processed since the recorder's first cycle) and every cycle's
/// transport. The process callback only copies into a preallocated lock-free
/// queue; the main thread drains it.
public final class MIDIRecorder {
    public let jack: JackClient
    let port: OpaquePointer
    let queue = SPSCQueue<RecorderEntry>(capacity: 1 << 18)
    /// Frames processed so far: the clock a plugin keeps (the sum of its block
    /// lengths), which, unlike JACK's frame time, does not jump at an xrun.
    private var processed: Int64 = 0
    private var dropped = 0
    private let xrunCount = Atomic<Int>(0)

    public init(jack: JackClient, portName: String = "in") throws(JackClient.OpenError) {
        self.jack = jack
        guard let p = jack_port_register(jack.client, portName, JACK_DEFAULT_MIDI_TYPE, UInt(JackPortIsInput.rawValue), 0) else {
            throw JackClient.OpenError(description: "cannot register the MIDI input port")
        }
        port = p
    }

    public var portName: String { jack.name + ":in" }

    public func start() -> Bool {
        let me = Unmanaged.passUnretained(self).toOpaque()
        guard jack_set_process_callback(jack.client, { n, arg in
            Unmanaged<MIDIRecorder>.fromOpaque(arg!).takeUnretainedValue().process(n)
            return 0
        }, me) == 0 else { return false }
        jack_set_xrun_callback(jack.client, { arg in
            Unmanaged<MIDIRecorder>.fromOpaque(arg!).takeUnretainedValue().xrunCount.add(1, ordering: .relaxed)
            return 0
        }, me)
        return jack.activate()
    }

    private func process(_ frameCount: jack_nframes_t) {
        defer { processed += Int64(frameCount) }
        var pos = jack_position_t()
        let state = jack_transport_query(jack.client, &pos)
        let snapshot = JackTransportSnapshot(query: pos, state: state, frameCount: frameCount, cycleStart: processed)
        let frameTime = jack_last_frame_time(jack.client)
        if !queue.push(RecorderEntry(kind: .cycle, transport: snapshot, frameTime: frameTime, offset: 0, size: 0, b0: 0, b1: 0, b2: 0)) {
            dropped += 1
        }
        let buffer = jack_port_get_buffer(port, frameCount)
        let count = jack_midi_get_event_count(buffer)
        var event = jack_midi_event_t()
        for i in 0..<count where jack_midi_event_get(&event, buffer, i) == 0 {
            let n = min(event.size, 3)
            let entry = RecorderEntry(
                kind: .event, transport: snapshot, frameTime: frameTime, offset: event.time, size: UInt8(n), b0: n > 0 ? event.buffer[0] : 0,
                b1: n > 1 ? event.buffer[1] : 0, b2: n > 2 ? event.buffer[2] : 0)
            if !queue.push(entry) { dropped += 1 }
        }
    }

    /// Main thread: everything recorded since the last call.
    public func drain() -> [RecorderEntry] {
        var out: [RecorderEntry] = []
        while let e = queue.pop() { out.append(e) }
        return out
    }

    public var droppedEntries: Int { dropped }

    /// Xruns JACK reported while recording (a cycle that ran late or was skipped).
    public var xruns: Int { xrunCount.load(ordering: .relaxed) }

    public func stop() { jack.deactivate() }
}
