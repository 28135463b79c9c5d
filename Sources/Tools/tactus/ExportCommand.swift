import ArgumentParser
import FileIO
import TactusCommandLine
import TactusEngine
import TactusModel
import TactusOffline

/// `tactus export`: a pattern as a Standard MIDI File (docs/midi-files.md, M16-M19).
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write a pattern as a Standard MIDI File.",
        discussion: """
            One track: tempo, 4/4, the notes of each pass, and the exact loop length in a \
            meta event that tactus import reads back. The PPQ is the smallest one (96 or \
            more) that represents every beat exactly; when none up to 32767 does, 960 with \
            the largest error stated. See docs/midi-files.md.
            """)

    @Argument(help: "Pattern file (text, or a Standard MIDI File).")
    var pattern: String

    @Option(name: .shortAndLong, help: "The Standard MIDI File to write (complete or not at all).")
    var output: String

    @Option(name: .long, help: "How many passes of the loop to write, 1-1000.")
    var loops = 1

    @Option(name: .long, help: "Tempo in beats per minute, 4-1000.")
    var bpm = 120.0

    @Option(name: .long, help: "Of a text of several patterns: the pattern to write (by name), rather than its song or its first pattern.")
    var patternName: String?

    /// Extensions of what tactus export does not write.
    static let audioExtensions: Set<String> = ["wav", "flac", "mp3", "ogg", "opus", "aif", "aiff"]

    func validate() throws {
        guard (1...1000).contains(loops) else { throw ValidationError("--loops must be 1-1000, found \(loops)") }
        guard bpm >= 4, bpm <= 1000 else { throw ValidationError("--bpm must be 4-1000, found \(formatNumber(bpm))") }
        if Self.audioExtensions.contains(Path.pathExtension(output)) {
            throw ValidationError("-o '\(displayPath(output))': tactus export writes a Standard MIDI File (.mid); tactus bounce writes audio")
        }
        if output == pattern { throw ValidationError("-o '\(displayPath(output))' would overwrite the pattern") }
    }

    func run() throws {
        var loaded: Pattern
        let text: [UInt8]
        switch PatternFile.load(pattern) {
        case .success(let (p, t)): (loaded, text) = (p, t)
        case .failure(let e): throw CommandFailure(e.description)
        }
        // A version-3 text (docs/midi-files.md, M16): its song, the pattern named, or its first pattern.
        var which = ""
        if PatternParser.declaresVersion3(text), let arrangement = try? PatternParser.arrangement(bytes: text) {
            let names = arrangement.patterns.map { String(decoding: $0.name, as: UTF8.self) }
            if let patternName {
                guard let i = arrangement.index(ofPattern: Array(patternName.utf8)) else {
                    throw CommandFailure("\(displayPath(pattern)) has no pattern '\(patternName)' (its patterns: \(names.map { "'\($0)'" }.joined(separator: ", ")))")
                }
                loaded = arrangement.patterns[i].pattern
                which = "pattern \(i + 1) '\(patternName)' of \(names.count): "
            } else if let song = SongOnce(text: text) {
                try exportSong(song, text: text, loaded: loaded)
                return
            } else if names.count > 1 {
                which = "pattern 1 '\(names[0])' of \(names.count) (no song; --pattern-name NAME writes another): "
            }
        } else if let patternName {
            guard patternName == "main" else { throw CommandFailure("\(displayPath(pattern)) has one pattern, 'main'; --pattern-name '\(patternName)' names none") }
        }
        guard loaded.notes.count * loops <= 4_000_000 else {
            throw CommandFailure("\(displayPath(pattern)): \(loaded.notes.count) notes times --loops \(loops) is more than the 4000000 notes an export writes")
        }
        let name = Array(Path.deletingExtension(Path.lastComponent(pattern)).utf8)
        let export = PatternExport.export(loaded, loops: loops, microsecondsPerQuarter: Int((60_000_000 / bpm).rounded()), name: name)
        try AtomicFile.write(export.bytes, to: output)
        let notes = loaded.notes.count * loops
        var summary = "\(displayPath(output)): \(which)\(notes) note\(notes == 1 ? "" : "s") (\(loops) loop\(loops == 1 ? "" : "s") of \(PatternWriter.beatText(loaded.length)) \(loaded.length == BeatRational(1) ? "beat" : "beats")) at \(formatNumber(bpm)) bpm, \(export.ticksPerQuarter) ticks per quarter note"
        if export.isExact {
            summary += ", every beat exact"
        } else {
            summary += "; no PPQ up to 32767 represents every beat exactly: largest error \(Formatting.printf("%.9f", export.largestErrorBeats)) beats"
        }
        print(summary)
    }

    /// A song, `--loops` times through from its start at `--bpm`, as `tactus render` plays it (every
    /// pattern's notes and program changes; timing contract §9.5), in a file as `tactus render --smf` writes one (M20).
    func exportSong(_ song: SongOnce, text: [UInt8], loaded: Pattern) throws {
        let name = Path.deletingExtension(Path.lastComponent(pattern))
        let file = song.midiFile(pattern: loaded, text: text, times: loops, bpm: bpm, name: name)
        guard file.report.statistics.droppedNoteOns == 0 else {
            throw CommandFailure("\(displayPath(pattern)): the song plays more notes at once than an export holds (\(file.report.statistics.droppedNoteOns) dropped)")
        }
        try AtomicFile.write(file.bytes, to: output)
        let notes = file.played.filter { $0.bytes.count == 3 && $0.bytes[0] & 0xF0 == 0x90 && $0.bytes[2] > 0 }.count
        let programs = file.played.filter { $0.bytes.count >= 2 && $0.bytes[0] & 0xF0 == 0xC0 }.count
        let beats = PatternWriter.beatText(song.length)
        print("\(displayPath(output)): the song, \(loops == 1 ? "once" : "\(loops) times") through (\(song.entryCount) entr\(song.entryCount == 1 ? "y" : "ies"), \(beats) beats): \(notes) note\(notes == 1 ? "" : "s"), \(programs) program change\(programs == 1 ? "" : "s") at \(formatNumber(bpm)) bpm, \(SessionMIDIFile.ticksPerQuarter) ticks per quarter note")
    }
}
