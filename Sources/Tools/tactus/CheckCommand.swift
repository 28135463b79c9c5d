import ArgumentParser
import TactusEngine
import TactusModel

struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Validate pattern files; print what is wrong, with the line and column.",
        discussion: """
            Prints 'FILE: ok, N notes, loop length L beats' on standard output for a \
            good file, and 'FILE:LINE:COLUMN: error: REASON' on standard error for a \
            bad one, as compilers print them (editors jump to the place): LINE counts from 1, COLUMN is the byte of the wrong field in \
            that line, from 1 (a problem that is on no one field, such as a missing \
            'length', has no COLUMN: 'FILE:LINE: error: REASON'). A .mid file is checked \
            as the pattern it imports to. '-' reads standard input. Exit status: 0 \
            when every file is good, 1 when one is bad or cannot be read, 2 for a \
            wrong command line. A version-2 file is 'ok, N notes in K lanes, common \
            cycle C beats'; a version-3 file 'ok, N notes in K lanes of P patterns' \
            (', song of E entries' when it has one).
            """)

    @Argument(help: "Pattern text files ('-' for standard input).")
    var patterns: [String]

    func validate() throws {
        guard !patterns.isEmpty else { throw ValidationError("give at least one pattern file, or '-' for standard input") }
    }

    func run() throws {
        var failed = false
        for path in patterns {
            switch PatternFile.load(path) {
            case .success(let (pattern, bytes)):
                if let arrangement = try? PatternParser.arrangement(bytes: bytes), arrangement.version == 3 {
                    // Pattern format, "Error messages (version 3)": the patterns, their lanes, the song.
                    var line = "\(displayPath(path)): ok, \(counted(arrangement.noteCount, "note")) in \(counted(arrangement.laneCount, "lane")) of \(counted(arrangement.patterns.count, "pattern"))"
                    if let song = arrangement.song { line += ", song of \(counted(song.entries.count, "entry", plural: "entries"))" }
                    // Contract §10: the controller points and locks, when there are any.
                    if arrangement.controllerPointCount > 0 { line += ", \(counted(arrangement.controllerPointCount, "controller point"))" }
                    if arrangement.lockCount > 0 { line += ", \(counted(arrangement.lockCount, "lock"))" }
                    print(line)
                } else if pattern.version == 2 {
                    // Pattern format, "Error messages (version 2)": the lanes and their common cycle.
                    print("\(displayPath(path)): ok, \(counted(pattern.notes.count, "note")) in \(counted(pattern.laneList.count, "lane")), common cycle \(PatternWriter.beatText(pattern.length)) \(pattern.length == BeatRational(1) ? "beat" : "beats")")
                } else {
                    print("\(displayPath(path)): ok, \(counted(pattern.notes.count, "note")), loop length \(PatternWriter.beatText(pattern.length)) \(pattern.length == BeatRational(1) ? "beat" : "beats")")
                }
            case .failure(let error):
                // A problem in the text reads as a compiler's diagnostic (editors jump to it);
                // a file that cannot be read is an error of the command, like any other.
                if let d = error.diagnostic { printError("\(d.location): error: \(d.reason)") } else { printError("Error: \(error.description)") }
                failed = true
            }
        }
        if failed { throw ExitCode(1) }
    }
}
