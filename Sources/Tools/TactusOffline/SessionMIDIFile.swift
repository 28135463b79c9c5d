import TactusEngine
import TactusModel

/// What a rendered session played, as a Standard MIDI File (docs/midi-files.md,
/// M20): PPQ 960, one track, the script's tempo map as tempo events, every
/// event of the log at the tick of its frame.
///
/// Frames become ticks through the script's `tempo` actions (120 bpm until
/// the first): from each tempo change on, `960 × bpm / 60` ticks a second.
/// A file played at its tempo map puts every event within half a tick of
/// the frame it was rendered at. (Tempos that arrive only inside raw
/// `position` actions are not in the map.)
public enum SessionMIDIFile {
    public static let ticksPerQuarter = 960

    public static func bytes(events: [LoggedEvent], script: TransportScript, sampleRate: Double, name: String) -> [UInt8] {
        // Tempo segments: (first frame, bpm, tick at that frame).
        var segments: [(frame: Int64, bpm: Double, tick: Double)] = [(0, 120, 0)]
        for action in script.actions {
            guard case .tempo(let bpm) = action.action, bpm > 0 else { continue }
            let last = segments[segments.count - 1]
            let tick = last.tick + Double(action.frame - last.frame) * last.bpm * Double(ticksPerQuarter) / (60 * sampleRate)
            if action.frame == last.frame { segments[segments.count - 1].bpm = bpm } else { segments.append((action.frame, bpm, tick)) }
        }
        var out: [MIDIFileEvent] = [.meta(tick: 0, type: 0x03, data: Array(name.utf8))]
        for s in segments {
            out.append(.tempo(tick: Int64(s.tick.rounded()), microsecondsPerQuarter: Int((60_000_000 / s.bpm).rounded())))
        }
        var segment = 0
        var midi: [MIDIFileEvent] = []
        midi.reserveCapacity(events.count)
        for e in events where !e.bytes.isEmpty && e.bytes[0] >= 0x80 && e.bytes[0] < 0xF0 {
            while segment + 1 < segments.count, segments[segment + 1].frame <= e.frame { segment += 1 }
            let s = segments[segment]
            let tick = s.tick + Double(e.frame - s.frame) * s.bpm * Double(ticksPerQuarter) / (60 * sampleRate)
            midi.append(MIDIFileEvent(tick: Int64(tick.rounded()), bytes: e.bytes))
        }
        // Tempo events first at a tick; the log is in frame order, so ticks never go back.
        var merged: [MIDIFileEvent] = []
        var i = 0
        for e in midi {
            while i < out.count, out[i].tick <= e.tick { merged.append(out[i]); i += 1 }
            merged.append(e)
        }
        merged += out[i...]
        let last = segments[segments.count - 1]
        let endTick = last.tick + Double(script.endFrame - last.frame) * last.bpm * Double(ticksPerQuarter) / (60 * sampleRate)
        return MIDIFileWriter.bytes(ticksPerQuarter: ticksPerQuarter, tracks: [merged], endTicks: [Int64(endTick.rounded())])
    }
}
