import TactusCommandLine
import TactusEngine
import TactusModel

/// A pattern text written as a Standard MIDI File, the way `tactus export`
/// and `tactus jack`'s `save FILE.mid` write one (docs/midi-files.md,
/// M16-M20): a version-3 text's song once (or `loops` times) through as
/// `tactus render` plays it, the pattern named, or its first pattern; any
/// other text, its pattern. One writer for both, so a file saved at the
/// prompt is the file `tactus export` writes.
///
/// Off the audio thread; O(events written).
public struct TextExport: Sendable {
    /// The file.
    public var bytes: [UInt8]
    /// What was written, for a person (after `FILE: `): which pattern or the
    /// song, how many notes over how many beats, the tempo and the PPQ.
    public var summary: String

    /// Why nothing was written: a message a person reads.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// Most notes a pattern export writes (its notes times its loops).
    public static var maximumNoteCount: Int { 4_000_000 }

    /// `text` and `pattern` as `PatternFile.load` reads a file (the pattern
    /// is the text's first). `patternName`: the pattern of a version-3 text
    /// to write instead of its song or first pattern. `label` names the text
    /// in messages; `otherPattern` says how to write another pattern of a
    /// text without a song (`--pattern-name NAME`). `name`: the track name.
    public static func make(
        text: [UInt8], pattern: Pattern, patternName: String?, loops: Int, bpm: Double, name: String,
        label: String, otherPattern: String
    ) throws(Failure) -> TextExport {
        var loaded = pattern
        var which = ""
        if PatternParser.declaresVersion3(text), let arrangement = try? PatternParser.arrangement(bytes: text) {
            let names = arrangement.patterns.map { String(decoding: $0.name, as: UTF8.self) }
            if let patternName {
                guard let i = arrangement.index(ofPattern: Array(patternName.utf8)) else {
                    throw Failure(description: "\(label) has no pattern '\(patternName)' (its patterns: \(names.map { "'\($0)'" }.joined(separator: ", ")))")
                }
                loaded = arrangement.patterns[i].pattern
                which = "pattern \(i + 1) '\(patternName)' of \(names.count): "
            } else if let song = SongOnce(text: text) {
                return try songExport(song, text: text, pattern: pattern, loops: loops, bpm: bpm, name: name, label: label)
            } else if names.count > 1 {
                which = "pattern 1 '\(names[0])' of \(names.count) (no song; \(otherPattern) writes another): "
            }
        } else if let patternName {
            guard patternName == "main" else { throw Failure(description: "\(label) has one pattern, 'main'; '\(patternName)' names none") }
        }
        guard loaded.notes.count * loops <= maximumNoteCount else {
            throw Failure(description: "\(label): \(loaded.notes.count) notes times \(loops) loops is more than the \(maximumNoteCount) notes an export writes")
        }
        // The text plays too when the pattern is all of it or its first (its `pattern` line's program change).
        let export = PatternExport.export(
            loaded, text: patternName == nil ? text : nil, loops: loops, microsecondsPerQuarter: Int((60_000_000 / bpm).rounded()), name: Array(name.utf8))
        var summary = "\(which)\(counted(export.noteCount, "note")) (\(counted(loops, "loop")) of \(PatternWriter.beatText(loaded.length)) \(loaded.length == BeatRational(1) ? "beat" : "beats")) at \(formatNumber(bpm)) bpm, \(export.ticksPerQuarter) ticks per quarter note"
        if export.isExact {
            summary += ", every beat exact"
        } else {
            summary += "; no PPQ up to 32767 represents every beat exactly: largest error \(Formatting.printf("%.9f", export.largestErrorBeats)) beats"
        }
        return TextExport(bytes: export.bytes, summary: summary)
    }

    /// A song, `loops` times through from its start at `bpm`, as `tactus render` plays it (every
    /// pattern's notes and program changes; timing contract §9.5), in a file as `tactus render --smf` writes one (M20).
    static func songExport(_ song: SongOnce, text: [UInt8], pattern: Pattern, loops: Int, bpm: Double, name: String, label: String) throws(Failure) -> TextExport {
        let file = song.midiFile(pattern: pattern, text: text, times: loops, bpm: bpm, name: name)
        guard file.report.statistics.droppedNoteOns == 0 else {
            throw Failure(description: "\(label): the song plays more notes at once than an export holds (\(file.report.statistics.droppedNoteOns) dropped)")
        }
        let notes = file.played.filter { $0.bytes.count == 3 && $0.bytes[0] & 0xF0 == 0x90 && $0.bytes[2] > 0 }.count
        let programs = file.played.filter { $0.bytes.count >= 2 && $0.bytes[0] & 0xF0 == 0xC0 }.count
        let beats = PatternWriter.beatText(song.length)
        let summary = "the song, \(loops == 1 ? "once" : "\(loops) times") through (\(song.entryCount) entr\(song.entryCount == 1 ? "y" : "ies"), \(beats) beats): \(counted(notes, "note")), \(counted(programs, "program change")) at \(formatNumber(bpm)) bpm, \(SessionMIDIFile.ticksPerQuarter) ticks per quarter note"
        return TextExport(bytes: file.bytes, summary: summary)
    }

    static func counted(_ n: Int, _ singular: String) -> String { "\(n) \(singular)\(n == 1 ? "" : "s")" }
}
