import TactusEngine
import TactusModel

/// A text's song played through from its start, as `tactus bounce` and
/// `tactus export` play a pattern file with a song when no transport script
/// or bar count is given (docs/bounce.md B3, docs/midi-files.md M16): a
/// host that rolls from beat 0 at one tempo in 4/4 and stops where the song
/// ends, so that the song's last notes end there (timing contract §9.5).
public struct SongOnce: Sendable {
    /// `S`, the song's length in beats, exact.
    public var length: BeatRational
    /// Its entries (`play` lines).
    public var entryCount: Int
    /// What follows its last entry.
    public var end: Song.End

    /// The song of a pattern text; nil when the text has none (not version 3, no `song` line, or not a valid text).
    public init?(text: [UInt8]) {
        guard PatternParser.declaresVersion3(text), let arrangement = try? PatternParser.arrangement(bytes: text),
            let song = arrangement.song, let length = arrangement.songLength
        else { return nil }
        self.length = length
        entryCount = song.entries.count
        self.end = song.end
    }

    /// The transport: `times` times through the song at `bpm`, stopping at the first frame at or after its end.
    public func script(times: Int, bpm: Double, sampleRate: Int) -> TransportScript {
        TransportScript.playing(beats: length.approximateValue * Double(times), bpm: bpm, sampleRate: sampleRate)
    }

    /// The rate a song is rendered at for a MIDI file: 352,800 frames a beat
    /// at 120 bpm (2^5 × 3^2 × 5^2 × 7^2), so that frames become ticks
    /// exactly at 960 ticks a quarter for the usual beat divisions and tempos,
    /// and within half a tick otherwise (M20).
    public static var fileRate: Int { 705_600 }

    /// The song `times` times through at `bpm` as `tactus render` plays it
    /// (every pattern's notes, its bank selects and program changes), as a
    /// Standard MIDI File the way `tactus render --smf` writes one
    /// (docs/midi-files.md, M16, M20); the events played, at `fileRate`.
    /// `pattern` is the text's first pattern (`PatternParser.parse`).
    public func midiFile(pattern: Pattern, text: [UInt8], times: Int, bpm: Double, name: String) -> (bytes: [UInt8], played: [LoggedEvent], report: OfflineRender.Report) {
        let script = self.script(times: times, bpm: bpm, sampleRate: SongOnce.fileRate)
        var played: [LoggedEvent] = []
        let report = OfflineRender(script: script, sampleRate: Double(SongOnce.fileRate), blocks: .fixed(4096)).run(
            pattern: pattern, patternText: text, loadPattern: { _ in .failure(PatternLoadError("no edits")) },
            onBlock: { events, _ in played += events })
        return (SessionMIDIFile.bytes(events: played, script: script, sampleRate: Double(SongOnce.fileRate), name: name), played, report)
    }
}

extension TransportScript {
    /// A host that plays from frame 0 at `bpm` and stops after `beats`
    /// beats, at the first frame at or after that beat (where the engine
    /// ends every sounding note), then ends a frame later.
    public static func playing(beats: Double, bpm: Double, sampleRate: Int) -> TransportScript {
        let stop = stopFrame(beats: beats, bpm: bpm, sampleRate: sampleRate)
        let text = """
            tactus-transport 1
            rate \(sampleRate)
            0 tempo \(bpm)
            0 play
            \(stop) stop
            \(stop + 1) end

            """
        // The text is built from checked numbers: it always parses.
        var script = try! TransportScript(parsing: text)
        script.endFrame = stop + 1
        return script
    }

    /// The first frame at or after beat `beats` at `bpm` from frame 0 (§3's rounding).
    public static func stopFrame(beats: Double, bpm: Double, sampleRate: Int) -> Int64 {
        Int64((beats * 60 * Double(sampleRate) / bpm - 1e-4).rounded(.up))
    }
}
