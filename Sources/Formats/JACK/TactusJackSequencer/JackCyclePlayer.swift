import CJack
import Glibc
import TactusEngine
import TactusModel
import TactusJack

/// `tactus jack`'s process callback without a JACK server: the same engine
/// calls in the same order (`JackSequencerProcess.beginCycle`, `control`, the
/// engine's `endBlock`), over cycles the caller describes. Tests use it to
/// show that the JACK client and the plugin, given the same transport, play
/// the same events: the cycles' journal, replayed through the plugin, must
/// give the same log.
///
/// Not realtime (it allocates the session as `tactus jack` does); one thread.
public enum JackCyclePlayer {
    /// A message on the control input, at an absolute frame of this client.
    public struct ControlMessage: Sendable {
        public var frame: Int64
        public var status: UInt8
        public var data1: UInt8
        public var data2: UInt8 = 0
        public init(frame: Int64, status: UInt8, data1: UInt8, data2: UInt8 = 0) {
            self.data2 = data2
            self.frame = frame
            self.status = status
            self.data1 = data1
        }
    }

    /// One event the client played, at an absolute frame of this client.
    public struct PlayedEvent: Sendable, Equatable {
        public var frame: Int64
        public var bytes: [UInt8]
    }

    /// Plays `patternText` over `cycles` (each with its `frameCount`, back to
    /// back from frame 0) with `controls` on the control input (in frame
    /// order), and returns what the MIDI output would carry. `edits[i]` is a
    /// pattern text the prompt offers before cycle `i`, which installs it;
    /// `live[i]` the lane mutes and MIDI thru the prompt sets before cycle `i`
    /// (`mute`, `unmute`, `thru`). `requests[i]` is a `play NAME [WHEN]` the
    /// prompt makes before cycle `i` (the request and its words, as the journal
    /// writes them); `song[i]` its `song on|off` before cycle `i`. A version-3
    /// text of several patterns plays whole, as the prompt plays it. With
    /// `journal`, the session journal is written there as `tactus jack
    /// --journal` writes it.
    public static func play(
        patternText: [UInt8], sampleRate: Double, cycles: [JackTransportSnapshot], controls: [ControlMessage] = [],
        edits: [Int: [UInt8]] = [:], live: [Int: LiveControls] = [:], requests: [Int: (request: PatternRequest, words: String)] = [:],
        song: [Int: Bool] = [:], journal folder: String? = nil
    ) throws -> [PlayedEvent] {
        // The client, its ports and the JACK calls of `process` are not used by the engine's part of a cycle.
        let none = OpaquePointer(bitPattern: 1)!
        var options = SequencerOptions()
        options.journal = folder
        let session = SessionState(
            sampleRate: sampleRate, client: none, midiOut: none, controlIn: none, options: options,
            pattern: try PatternEditor(parsing: patternText).snapshot(tag: 0))
        defer { session.free() }
        let c = session.context.pointee
        var writer: JournalWriter? = nil
        if let folder {
            writer = try JournalWriter(folder: folder, sampleRate: sampleRate, period: Int(cycles.first?.frameCount ?? 256))
            writer?.recordEdit(tag: 0, text: patternText)
            writer?.write(JournalEntry(kind: .installed, frame: 0, snapshot: 0))
        }
        var played: [PlayedEvent] = []
        var frame: Int64 = 0
        for (index, cycle) in cycles.enumerated() {
            if let text = edits[index] {
                let tag = UInt64(index + 1)
                writer?.recordEdit(tag: tag, text: text)
                c.sequencer.pointee.handOver.pointee.reclaim()
                guard c.sequencer.pointee.handOver.pointee.offer(try PatternEditor(parsing: text).snapshot(tag: tag)) else {
                    throw SequencerError(description: "the engine took no pattern for \(SnapshotExchange.defaultBudget) edits")
                }
            }
            if let settings = live[index] {
                c.flags.pointee.laneMutes.store(settings.laneMutes, ordering: .relaxed)
                c.flags.pointee.thru.store(settings.thru, ordering: .relaxed)
            }
            if let (request, words) = requests[index] {
                writer?.recordRequest(word: request.word, text: words)
                c.flags.pointee.patternRequest.store(request.word, ordering: .relaxed)
            }
            if let on = song[index] { c.flags.pointee.song.store(on, ordering: .relaxed) }
            let end = frame + Int64(cycle.frameCount)
            JackSequencerProcess.beginCycle(c, frame: frame, transport: cycle, room: c.sequencer.pointee.eventStorageCapacity, closing: false)
            for m in controls where m.frame >= frame && m.frame < end {
                JackSequencerProcess.control(c, frame: frame, offset: Int(m.frame - frame), status: m.status, data1: m.data1, data2: m.data2)
            }
            c.sequencer.pointee.endBlock()
            _ = c.sequencer.pointee.takeOwed()
            for e in c.sequencer.pointee.events {
                played.append(PlayedEvent(frame: frame + e.offset, bytes: e.bytes))
            }
            while let entry = c.journal.pointee.pop() { writer?.write(entry) }
            frame = end
        }
        writer?.finish(endFrame: frame)
        return played
    }
}
