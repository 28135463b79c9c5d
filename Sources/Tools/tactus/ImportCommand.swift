import ArgumentParser
import FileIO
import TactusCommandLine
import TactusEngine
import TactusModel

/// `tactus import`: a Standard MIDI File as a pattern text (docs/midi-files.md, M10-M15).
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Turn a Standard MIDI File into a pattern text file.",
        discussion: """
            With no options: every track and channel, every note-on a note at tick / PPQ \
            beats from tick 0, the loop rounded up to whole bars of the first time signature. \
            Control changes 0-119, program changes, channel pressure and pitch bend are kept as \
            controller points, one lane per track (pattern format 3). The file's tempo and what a \
            pattern cannot hold (polyphonic pressure, channel mode messages) are reported on standard \
            error. See docs/midi-files.md.
            """)

    @Argument(help: "The Standard MIDI File (.mid).")
    var file: String

    @Option(name: .long, help: "Take only this track (counted from 1).")
    var track: Int?

    @Option(name: .long, help: "Take only this MIDI channel, 1-16.")
    var channel: Int?

    @Option(name: .long, help: "First bar to take (counted from 1, at most 1000000).")
    var from: Int?

    @Option(name: .long, help: "First bar not to take (after --from).")
    var to: Int?

    @Option(name: .long, help: "Loop length in beats (2, 3.5, 7/2); notes starting at or after it are left out.")
    var length: String?

    @Option(name: .shortAndLong, help: "Write the pattern to this file (complete or not at all) instead of standard output.")
    var output: String?

    func validate() throws {
        if let track, !(1...65_535).contains(track) { throw ValidationError("--track must be 1-65535, found \(track)") }
        if let channel, !(1...16).contains(channel) { throw ValidationError("--channel must be 1-16, found \(channel)") }
        if let from, !(1...1_000_000).contains(from) { throw ValidationError("--from must be a bar from 1 to 1000000, found \(from)") }
        if let to, !(2...1_000_000).contains(to) { throw ValidationError("--to must be a bar from 2 to 1000000 (the first bar not taken), found \(to)") }
        if let to, let from, to <= from { throw ValidationError("--to \(to) must come after --from \(from) (bars from \(from) up to but not including \(to))") }
        if let length, BeatText.parse(length) == nil {
            throw ValidationError("--length '\(length)' is not a beat value greater than 0 (write 4, 3.5 or 7/2)")
        }
        if let output {
            if output == file { throw ValidationError("-o '\(displayPath(output))' would overwrite the MIDI file it reads") }
            if ["mid", "midi", "smf", "kar"].contains(Path.pathExtension(output)) {
                throw ValidationError("-o '\(displayPath(output))': tactus import writes pattern text, not a MIDI file (tactus export writes .mid)")
            }
        }
    }

    func run() throws {
        var options = MIDIImportOptions(track: track, channel: channel, fromBar: from, toBar: to)
        if let length, let beats = BeatText.parse(length) { options.length = beats }
        let bytes: [UInt8]
        switch TextFile.read(file) {
        case .success(let b): bytes = b
        case .failure(let e): throw e
        }
        let result: MIDIImport
        switch MIDIPatternFile.load(file, bytes, options: options) {
        case .success(let r): result = r
        case .failure(let e): throw CommandFailure(e.description)
        }
        if let output {
            try AtomicFile.write(Array(result.text.utf8), to: output)
        } else {
            print(result.text, terminator: "")
        }
        let notes = result.pattern.notes.count
        let length = result.pattern.length
        printError("\(displayPath(file)): \(counted(notes, "note")), loop length \(PatternWriter.beatText(length)) \(length == BeatRational(1) ? "beat" : "beats")\(output.map { ", written to \(displayPath($0))" } ?? "")")
        for line in result.report { printError("\(displayPath(file)): \(line)") }
    }
}

/// Beat values typed on the command line, spelled as in pattern text.
enum BeatText {
    /// `4`, `3.5`, `7/2` as an exact value above 0 (the pattern format's limits), or nil.
    static func parse(_ text: String) -> BeatRational? {
        guard !text.contains(where: { $0 == "\n" || $0 == "#" || $0 == " " }),
              let value = try? PatternParser.parse("tactus-pattern 1\nlength \(text)\n").length else { return nil }
        return value
    }
}
