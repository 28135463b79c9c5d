import FileIO
import TactusCommandLine
import TactusEngine
import TactusModel
import TactusOffline

/// Reading pattern files for the command line, with errors as `FILE:LINE: reason`.
enum PatternFile {
    static func load(_ path: String) -> Result<(Pattern, [UInt8]), PatternLoadError> {
        let bytes: [UInt8]
        switch TextFile.read(path) {
        case .success(let b): bytes = b
        case .failure(let error): return .failure(PatternLoadError(error.description))
        }
        if MIDIFileReader.looksLikeMIDIFile(bytes) {
            return MIDIPatternFile.load(path, bytes).map { ($0.pattern, Array($0.text.utf8)) }
        }
        do {
            return .success((try PatternParser.parse(bytes: bytes), bytes))
        } catch {
            let location = error.line > 0 ? "\(displayPath(path)):\(error.location)" : displayPath(path)
            return .failure(PatternLoadError(location: location, reason: error.reasonText))
        }
    }

    /// A script's pattern path, relative to the script's folder unless absolute.
    static func resolve(_ path: String, relativeTo scriptPath: String) -> String {
        if path.hasPrefix("/") { return path }
        return Path.appending(path, to: Path.folder(scriptPath))
    }
}

/// Reading a whole file (`-`: standard input), with the system's reason when it cannot be read.
enum TextFile {
    static func read(_ path: String) -> Result<[UInt8], CommandFailure> {
        FileInput.read(path).mapError { CommandFailure("\(displayPath(path)): cannot read it: \($0)") }
    }

    /// The file as UTF-8 text (invalid sequences replaced).
    static func text(_ path: String) throws(CommandFailure) -> String {
        switch read(path) {
        case .success(let b): return String(decoding: b, as: UTF8.self)
        case .failure(let e): throw e
        }
    }
}
