import Foundation
import TactusCore
import TactusOffline

/// Reading pattern files for the command line, with errors as `FILE:LINE: reason`.
enum PatternFile {
    static func load(_ path: String) -> Result<(Pattern, [UInt8]), PatternLoadError> {
        guard let data = FileManager.default.contents(atPath: path) else {
            return .failure(PatternLoadError("\(path): cannot read the file"))
        }
        let bytes = [UInt8](data)
        do {
            return .success((try PatternParser.parse(bytes: bytes), bytes))
        } catch {
            let location = error.line > 0 ? "\(path):\(error.line)" : path
            return .failure(PatternLoadError("\(location): \(error.reasonText)"))
        }
    }

    /// A script's pattern path, relative to the script's folder unless absolute.
    static func resolve(_ path: String, relativeTo scriptPath: String) -> String {
        if path.hasPrefix("/") { return path }
        let folder = (scriptPath as NSString).deletingLastPathComponent
        return folder.isEmpty ? path : (folder as NSString).appendingPathComponent(path)
    }
}
