#if canImport(Glibc)
import Glibc
#endif
import FileIO
import TactusModel

/// Where `tactus jack` keeps a session: the path NSM gives at `open` is made
/// a folder of ours, holding `session.pattern` (the pattern text, as `save`
/// writes it: comments and layout kept) and `session.settings`
/// (`SessionSettings`). Either file may be missing: a new session starts
/// from the command line's pattern and settings.
///
/// Each file is written whole or not at all (`AtomicFile`: a temporary file
/// beside it, `fsync`, `rename`); the pattern goes first, then the settings,
/// and a failure stops there with the system's reason, leaving the files not
/// yet replaced as they were.
///
/// Thread: the caller's (the prompt thread). Not realtime: it allocates and does I/O.
public struct SessionFolder: Sendable {
    /// The path NSM gave: the folder itself.
    public let path: String

    public init(path: String) { self.path = path }

    public var patternPath: String { path + "/session.pattern" }
    public var settingsPath: String { path + "/session.settings" }

    /// What the folder holds. nil for a file not there yet.
    public struct Contents: Sendable {
        public var pattern: [UInt8]?
        public var settings: SessionSettings?
        /// Lines of the settings skipped (keys of a newer version).
        public var warnings: [String] = []
    }

    /// A failure of `open`, with the NSM error code it is replied with.
    public struct OpenFailure: Error, Sendable {
        public var code: NSMProtocol.ErrorCode
        public var message: String

        public init(code: NSMProtocol.ErrorCode, message: String) {
            self.code = code
            self.message = message
        }
    }

    /// Makes the folder if it is not there, and reads what it holds.
    public func open() throws(OpenFailure) -> Contents {
        do { try makeFolder() } catch { throw OpenFailure(code: .createFailed, message: error.description) }
        var contents = Contents()
        switch SessionFolder.readIfPresent(patternPath) {
        case .success(let bytes): contents.pattern = bytes
        case .failure(let error): throw OpenFailure(code: .badProject, message: error.description)
        }
        switch SessionFolder.readIfPresent(settingsPath) {
        case .success(nil): break
        case .success(let bytes?):
            do { contents.settings = try SessionSettings(parsing: String(decoding: bytes, as: UTF8.self), warnings: &contents.warnings) } catch {
                throw OpenFailure(code: .badProject, message: "'\(QuotedText.quotedTail(Array(settingsPath.utf8)))', \(error.description)")
            }
            contents.warnings = contents.warnings.map { "'\(QuotedText.quotedTail(Array(settingsPath.utf8)))', \($0)" }
        case .failure(let error): throw OpenFailure(code: .badProject, message: error.description)
        }
        return contents
    }

    /// Writes the pattern text and the settings, each whole (see the type's comment).
    public func save(pattern: [UInt8], settings: SessionSettings) throws(NSMError) {
        try makeFolder()
        do {
            try AtomicFile.write(pattern, to: patternPath)
            try AtomicFile.write(settings.text, to: settingsPath)
        } catch {
            throw NSMError(error.description)
        }
    }

    /// The folder, made if it is not there (its parent must be).
    private func makeFolder() throws(NSMError) {
        var info = stat()
        if stat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFDIR else { throw NSMError("'\(QuotedText.quotedTail(Array(path.utf8)))' is not a folder") }
            return
        }
        guard mkdir(path, 0o777) == 0 || errno == EEXIST else {
            throw NSMError("cannot create the folder '\(QuotedText.quotedTail(Array(path.utf8)))': \(String(cString: strerror(errno)))")
        }
    }

    private static func readIfPresent(_ path: String) -> Result<[UInt8]?, NSMError> {
        var info = stat()
        guard stat(path, &info) == 0 else { return errno == ENOENT ? .success(nil) : .failure(NSMError("cannot read '\(QuotedText.quotedTail(Array(path.utf8)))': \(String(cString: strerror(errno)))")) }
        switch FileInput.read(path) {
        case .success(let bytes): return .success(bytes)
        case .failure(let reason): return .failure(NSMError("cannot read '\(QuotedText.quotedTail(Array(path.utf8)))': \(reason)"))
        }
    }
}
