import ArgumentParser
import TactusCore

struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Validate pattern files; print what is wrong, with the line.")

    @Argument(help: "Pattern text files.")
    var patterns: [String]

    func run() throws {
        var failed = false
        for path in patterns {
            switch PatternFile.load(path) {
            case .success(let (pattern, _)):
                print("\(path): ok, \(pattern.notes.count) notes, loop length \(PatternWriter.beatText(pattern.length)) beats")
            case .failure(let error):
                printError(error.description)
                failed = true
            }
        }
        if failed { throw ExitCode(1) }
    }
}
