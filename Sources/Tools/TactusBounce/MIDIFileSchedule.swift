import TactusEngine
import TactusModel

/// A Standard MIDI File as a bounce schedule (docs/bounce.md, B2): every note
/// and every other channel-voice event of every track at the frame of its
/// tick, through the file's tempo map; the end at the latest End of Track.
///
/// The frame of tick `t` is the first frame at or after its exact time:
/// `ceil(R · Σ Δtick·µsPerQuarter / (PPQ · 10^6))`, computed in 128-bit
/// integers, so no rounding accumulates over a long file. Tempo changes are
/// taken from every track (format 1 keeps them in the first; format 2's
/// independent sequences are played at once, all from tick 0). O(n log n).
public enum MIDIFileSchedule {
    public static func make(_ file: MIDIFile, sampleRate: Int) -> BounceSchedule {
        let map = TempoMap(file)
        let rate = Int128(sampleRate)
        var events: [BounceEvent] = []
        events.reserveCapacity(file.noteCount * 2 + file.tracks.reduce(0) { $0 + $1.channelEvents.count })
        var endTick: Int64 = 0
        for track in file.tracks {
            // Channel events first: at one frame they precede notes anyway (B2), and
            // their file order among themselves is kept by the stable sort.
            for e in track.channelEvents {
                events.append(BounceEvent(frame: map.frame(ofTick: e.tick, rate: rate), status: e.status, data1: e.data1, data2: e.data2))
            }
            for n in track.notes {
                let channel = (n.channel - 1) & 0x0F
                events.append(BounceEvent(frame: map.frame(ofTick: n.startTick, rate: rate), status: 0x90 | channel, data1: n.key, data2: n.velocity))
                events.append(BounceEvent(frame: map.frame(ofTick: n.endTick, rate: rate), status: 0x80 | channel, data1: n.key, data2: 0))
            }
            endTick = max(endTick, track.endTick)
        }
        return BounceSchedule(events: events, endFrame: map.frame(ofTick: endTick, rate: rate), sampleRate: sampleRate)
    }

    /// Tempo segments: from `tick` on, `microsecondsPerQuarter`; `elapsed` is
    /// Σ Δtick·µs/quarter up to `tick` (time in µs times PPQ, exact).
    struct TempoMap {
        var ticks: [Int64] = [0]
        var tempos: [Int64] = [500_000]
        var elapsed: [Int128] = [0]
        let ticksPerQuarter: Int128

        init(_ file: MIDIFile) {
            ticksPerQuarter = Int128(file.ticksPerQuarter)
            let changes = file.tracks.flatMap(\.tempoChanges).enumerated()
                .sorted { ($0.element.tick, $0.offset) < ($1.element.tick, $1.offset) }.map(\.element)
            for c in changes where c.microsecondsPerQuarter > 0 {
                let last = ticks.count - 1
                if c.tick == ticks[last] {
                    tempos[last] = Int64(c.microsecondsPerQuarter)
                } else {
                    elapsed.append(elapsed[last] + Int128(c.tick - ticks[last]) * Int128(tempos[last]))
                    ticks.append(c.tick)
                    tempos.append(Int64(c.microsecondsPerQuarter))
                }
            }
        }

        /// The first frame at or after tick `tick`. O(log segments).
        func frame(ofTick tick: Int64, rate: Int128) -> Int64 {
            var lo = 0, hi = ticks.count - 1
            while lo < hi {
                let mid = (lo + hi + 1) / 2
                if ticks[mid] <= tick { lo = mid } else { hi = mid - 1 }
            }
            let time = elapsed[lo] + Int128(tick - ticks[lo]) * Int128(tempos[lo])
            let numerator = time * rate
            let denominator = ticksPerQuarter * 1_000_000
            let (q, r) = numerator.quotientAndRemainder(dividingBy: denominator)
            return Int64(r > 0 ? q + 1 : q)
        }
    }
}
