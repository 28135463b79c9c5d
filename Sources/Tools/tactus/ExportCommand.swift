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
            One track: tempo, 4/4, what tactus render sends over the passes (notes, controllers \
            only when they change, ramps as their samples, locks and their restores), and the exact loop length in a \
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
        let loaded: Pattern
        let text: [UInt8]
        switch PatternFile.load(pattern) {
        case .success(let (p, t)): (loaded, text) = (p, t)
        case .failure(let e): throw CommandFailure(e.description)
        }
        // A version-3 text (docs/midi-files.md, M16): its song, the pattern named, or its first pattern.
        let export: TextExport
        do throws(TextExport.Failure) {
            export = try TextExport.make(
                text: text, pattern: loaded, patternName: patternName, loops: loops, bpm: bpm,
                name: Path.deletingExtension(Path.lastComponent(pattern)), label: displayPath(pattern), otherPattern: "--pattern-name NAME")
        } catch {
            throw CommandFailure(error.description)
        }
        try AtomicFile.write(export.bytes, to: output)
        print("\(displayPath(output)): \(export.summary)")
    }
}
