import TactusEngine
import TactusModel
import TactusOffline

/// A pattern played by a host as a bounce schedule (docs/bounce.md, B3): the
/// events `tactus render` writes for the same pattern, transport script and
/// rate (the same engine, `OfflineRender`), at the same frames.
public enum PatternSchedule {
    /// What the render produced: the schedule and the render's report
    /// (rejected pattern edits, dropped notes).
    public struct Result {
        public var schedule: BounceSchedule
        public var report: OfflineRender.Report
    }

    /// Renders `pattern` under `script` in 256-frame blocks (the block size
    /// changes nothing: the timing contract's partition invariance).
    public static func make(
        pattern: Pattern, text: [UInt8]?, script: TransportScript, sampleRate: Int,
        loadPattern: @escaping OfflineRender.PatternLoader
    ) -> Result {
        var events: [BounceEvent] = []
        let render = OfflineRender(script: script, sampleRate: Double(sampleRate), blocks: .fixed(256))
        let report = render.run(pattern: pattern, patternText: text, loadPattern: loadPattern) { block, _ in
            for e in block where e.bytes.count >= 2 && e.bytes[0] >= 0x80 && e.bytes[0] < 0xF0 {
                events.append(BounceEvent(frame: e.frame, status: e.bytes[0], data1: e.bytes[1], data2: e.bytes.count > 2 ? e.bytes[2] : 0))
            }
        }
        // The render's own order at a frame (note-offs first) is kept: its ranks agree with B2.
        return Result(schedule: BounceSchedule(events: events, endFrame: script.endFrame, sampleRate: sampleRate), report: report)
    }

    /// The simple case, `--bars N --bpm T`: a host that plays from frame 0 at
    /// `bpm` in 4/4 and stops after `bars` bars, at the first frame at or
    /// after the last bar line (where the engine ends every sounding note).
    public static func script(bars: Int, bpm: Double, sampleRate: Int) -> TransportScript {
        TransportScript.playing(beats: Double(bars) * 4, bpm: bpm, sampleRate: sampleRate)
    }

    /// The frame of the bar line after `bars` bars of 4 beats at `bpm`.
    public static func stopFrame(bars: Int, bpm: Double, sampleRate: Int) -> Int64 {
        TransportScript.stopFrame(beats: Double(bars) * 4, bpm: bpm, sampleRate: sampleRate)
    }
}
