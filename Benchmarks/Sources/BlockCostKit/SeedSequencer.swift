import TactusEngine
import TactusModel

/// The seed algorithm, the in-project baseline: the render loop described in
/// "Sample accurate MIDI timing in AUv3 plugins" (cp3.io, 2023), re-coded
/// here in Swift from its description.
///
/// At the start of each block the host says which beat the block starts on
/// (an AUv3 host's musical-context block). The loop then converts every event
/// of the pattern to samples: it places the event in the loop pass the block
/// starts in (or the next pass, when the block's window crosses the loop's
/// end), converts its distance from the block start in beats to samples, and
/// sends it when that falls inside the block. A note-on also queues its
/// note-off, at the sample its duration ends; queued note-offs due inside the
/// block are sent too.
///
/// So every block costs O(n) for a pattern of n notes, however few of them
/// play: that is what the benchmarks measure against Tactus's O(log n + k).
/// It is written as the article's C is, over flat buffers, with no
/// allocation and no bounds checks in the loop, so that the comparison is
/// about the algorithm, not about Swift arrays.
public final class SeedSequencer {
    /// One event as the article stores it: its beat in the loop, its duration, its MIDI bytes.
    struct Event {
        var beat: Double
        var duration: Double
        var status: UInt8
        var key: UInt8
        var velocity: UInt8
    }

    /// A queued note-off: the absolute sample it is due at.
    struct PendingNoteOff {
        var sample: Int64
        var status: UInt8
        var key: UInt8
    }

    public let frameCount: Int
    private let events: UnsafeMutableBufferPointer<Event>
    private let loopLength: Double
    private let pending: UnsafeMutablePointer<PendingNoteOff>
    private let pendingCapacity = 4096
    // One thread uses these; unchecked, as in TactusBlockLoop, so that both pay the same.
    @exclusivity(unchecked) private var pendingCount = 0
    @exclusivity(unchecked) private var output = MIDIEventBuffer(storageCapacity: 8192)
    @exclusivity(unchecked) private var blockStart: Int64 = 0
    /// MIDI events emitted so far (note-ons and note-offs).
    @exclusivity(unchecked) public private(set) var emitted = 0

    public init(pattern: Pattern, frameCount: Int) {
        self.frameCount = frameCount
        loopLength = pattern.length.approximateValue
        events = .allocate(capacity: pattern.notes.count)
        for (i, note) in pattern.notes.enumerated() {
            events[i] = Event(
                beat: note.start.approximateValue, duration: note.duration.approximateValue,
                status: 0x90 | (note.channel - 1), key: note.key, velocity: note.velocity)
        }
        pending = .allocate(capacity: pendingCapacity)
    }

    deinit {
        events.deallocate()
        pending.deallocate()
    }

    /// Renders the next block.
    @inline(never)
    public func renderBlock() {
        let sampleRate = BenchmarkHost.sampleRate
        let samplesPerBeat = 60 * sampleRate / BenchmarkHost.tempo
        let startBeat = BenchmarkHost.beat(atFrame: blockStart)
        let window = Double(frameCount)
        let passStart = (startBeat / loopLength).rounded(.down) * loopLength
        output.reset(capacity: output.storageCapacity)

        // Note-offs queued by earlier blocks that fall due in this one.
        var kept = 0
        for i in 0..<pendingCount {
            let off = pending[i]
            if off.sample < blockStart + Int64(frameCount) {
                let offset = off.sample > blockStart ? off.sample - blockStart : 0
                _ = output.append(MIDIEvent(offset: .init(offset), status: off.status ^ 0x10, data1: off.key, data2: 0))
            } else {
                pending[kept] = off
                kept += 1
            }
        }
        pendingCount = kept

        // Every event of the pattern, converted to samples and tested against the block.
        for event in events {
            var onset = passStart + event.beat
            if onset < startBeat { onset += loopLength }
            let sampleOffset = ((onset - startBeat) * samplesPerBeat).rounded(.up)
            guard sampleOffset < window else { continue }
            _ = output.append(MIDIEvent(offset: .init(sampleOffset), status: event.status, data1: event.key, data2: event.velocity))
            if pendingCount < pendingCapacity {
                let offSample = blockStart + Int64(((onset + event.duration - startBeat) * samplesPerBeat).rounded(.up))
                pending[pendingCount] = PendingNoteOff(sample: offSample, status: event.status, key: event.key)
                pendingCount += 1
            }
        }
        emitted &+= output.count
        blockStart &+= Int64(frameCount)
    }
}
