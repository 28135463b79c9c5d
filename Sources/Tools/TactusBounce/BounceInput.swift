import FileIO
import TactusEngine
import TactusModel
import TactusOffline

/// An input of `tactus bounce` and how it is timed (docs/bounce.md, B1-B3):
/// a Standard MIDI File played with its own tempo map, or a pattern (a
/// pattern file, or a `.mid` imported as one) played by a host, described by
/// a transport script or by `--bars N --bpm T`.
public enum BounceTiming: Sendable {
    /// A MIDI file's own tempo map; a pattern file with a song plays the
    /// song once through at `songTempo` beats per minute (B3); another pattern file is refused.
    case file(songTempo: Double)
    /// A transport script (its path, for messages and relative pattern names).
    case script(TransportScript, path: String)
    /// `--bars N --bpm T`.
    case bars(Int, bpm: Double)
}

public enum BounceInput {
    /// Loads a pattern file for a pattern input or a script's edit: the pattern and its text, or a message.
    public typealias PatternLoader = OfflineRender.PatternLoader

    /// The schedule of `path` at `sampleRate`, and warnings a person should see.
    /// `chain`: a pattern is played by the Tactus plugin itself (B10), not the core in-process.
    public static func schedule(
        _ path: String, timing: BounceTiming, sampleRate: Int, chain: Bool = false, loadPattern: @escaping PatternLoader,
        resolveScriptPath: @escaping (String) -> String = { $0 }
    ) throws(BounceError) -> (BounceSchedule, warnings: [String]) {
        if chain {
            let script: TransportScript
            switch timing {
            case .file(let bpm):
                guard let song = try songOnce(path, loadPattern: loadPattern) else {
                    throw BounceError("--chain plays a pattern: give --transport FILE or --bars N --bpm T (a pattern file with a song plays it once through without them)")
                }
                script = song.script(times: 1, bpm: bpm, sampleRate: sampleRate)
            case .script(let s, _): script = s
            case .bars(let bars, let bpm): script = PatternSchedule.script(bars: bars, bpm: bpm, sampleRate: sampleRate)
            }
            // The file is checked here first, so that a bad pattern reads as it does without --chain.
            if case .failure(let e) = loadPattern(path) { throw BounceError(e.description) }
            let chained = try PluginChainSchedule.make(patternPath: path, script: script, sampleRate: sampleRate, resolve: resolveScriptPath)
            return (chained.schedule, chained.warnings)
        }
        switch timing {
        case .file(let bpm):
            let bytes: [UInt8]
            switch FileInput.read(path) {
            case .success(let b): bytes = b
            case .failure(let e): throw BounceError("'\(path)': cannot read it: \(e)")
            }
            guard MIDIFileReader.looksLikeMIDIFile(bytes) else {
                // B3: a text with a song plays it once through; any other pattern needs its timing.
                guard let song = try songOnce(path, loadPattern: loadPattern) else {
                    throw BounceError("'\(path)' is not a Standard MIDI File, and a pattern without a song needs --transport FILE or --bars N --bpm T")
                }
                let script = song.script(times: 1, bpm: bpm, sampleRate: sampleRate)
                return try patternSchedule(path, script: script, sampleRate: sampleRate, loadPattern: loadPattern, resolveScriptPath: resolveScriptPath)
            }
            do throws(MIDIFileError) {
                let file = try MIDIFileReader().read(bytes)
                return (MIDIFileSchedule.make(file, sampleRate: sampleRate), [])
            } catch {
                throw BounceError("'\(path)': \(error.message)")
            }
        case .script(let script, _):
            return try patternSchedule(path, script: script, sampleRate: sampleRate, loadPattern: loadPattern, resolveScriptPath: resolveScriptPath)
        case .bars(let bars, let bpm):
            let script = PatternSchedule.script(bars: bars, bpm: bpm, sampleRate: sampleRate)
            return try patternSchedule(path, script: script, sampleRate: sampleRate, loadPattern: loadPattern, resolveScriptPath: resolveScriptPath)
        }
    }

    /// The song of a pattern file, nil for a pattern without one; a pattern file that does not load is its error.
    private static func songOnce(_ path: String, loadPattern: PatternLoader) throws(BounceError) -> SongOnce? {
        switch loadPattern(path) {
        case .success(let (_, text)): return SongOnce(text: text)
        case .failure(let e): throw BounceError(e.description)
        }
    }

    private static func patternSchedule(
        _ path: String, script: TransportScript, sampleRate: Int, loadPattern: @escaping PatternLoader,
        resolveScriptPath: @escaping (String) -> String
    ) throws(BounceError) -> (BounceSchedule, warnings: [String]) {
            let pattern: Pattern, text: [UInt8]
            switch loadPattern(path) {
            case .success(let (p, t)): (pattern, text) = (p, t)
            case .failure(let e): throw BounceError(e.description)
            }
            let result = PatternSchedule.make(
                pattern: pattern, text: text, script: script, sampleRate: sampleRate,
                loadPattern: { loadPattern(resolveScriptPath($0)) })
            var warnings = result.report.editFailures.map(\.description) + result.report.requestFailures
            let s = result.report.statistics
            if s.droppedNoteOns > 0 { warnings.append("\(s.droppedNoteOns) note-ons dropped (output full)") }
            return (result.schedule, warnings)
    }
}
