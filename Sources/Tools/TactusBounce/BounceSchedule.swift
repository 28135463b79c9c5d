/// Everything a bounce sends its instrument: every channel-voice event at its
/// exact frame, in the order it is delivered, and the frame where the input
/// ends (a MIDI file's latest End of Track, a transport script's end), after
/// which only the tail is rendered (docs/bounce.md, B1-B3).
///
/// A value type built off any realtime path; memory O(events).
public struct BounceSchedule: Sendable {
    /// Sorted by frame, then by `BounceEvent.rankAtFrame`, then as the input had them.
    public var events: [BounceEvent]
    /// The input's last frame (exclusive): the tail starts here. Never before the last event.
    public var endFrame: Int64
    /// Frames per second the frames are counted in.
    public var sampleRate: Int

    /// Sorts `events` into delivery order (a stable sort on frame and rank).
    public init(events: [BounceEvent], endFrame: Int64, sampleRate: Int) {
        let ordered = events.enumerated().sorted { a, b in
            if a.element.frame != b.element.frame { return a.element.frame < b.element.frame }
            if a.element.rankAtFrame != b.element.rankAtFrame { return a.element.rankAtFrame < b.element.rankAtFrame }
            return a.offset < b.offset
        }.map(\.element)
        self.events = ordered
        self.endFrame = max(endFrame, (ordered.last?.frame ?? 0) + (ordered.isEmpty ? 0 : 1))
        self.sampleRate = sampleRate
    }

    /// Notes as (start frame, end frame, key, channel 0-15), paired in order (for the piano roll).
    public var notes: [(start: Int64, end: Int64, key: UInt8, channel: Int)] {
        var open: [Int: [Int64]] = [:]
        var result: [(start: Int64, end: Int64, key: UInt8, channel: Int)] = []
        for e in events {
            let slot = e.channel * 128 + Int(e.data1)
            if e.isNoteOn {
                open[slot, default: []].append(e.frame)
            } else if e.isNoteOff, var starts = open[slot], !starts.isEmpty {
                let start = starts.removeFirst()
                open[slot] = starts
                result.append((start, e.frame, e.data1, e.channel))
            }
        }
        for (slot, starts) in open { for s in starts { result.append((s, endFrame, UInt8(slot % 128), slot / 128)) } }
        return result
    }
}
