#if canImport(Glibc)
import Glibc
#endif
import TactusEngine
import TactusModel

/// Reading a whole file, or standard input (`-`), with the errno of a failure
/// so that the message can give the system's reason. Not for the audio
/// thread; O(size), refused above `maximumBytes`.
public enum FileInput {
    /// Inputs larger than this are refused (EFBIG) before they fill the memory:
    /// a pattern of 65,536 notes is about 2 MiB, a day's journal about 100 MiB.
    public static let maximumBytes = 1 << 30

    public static func read(_ path: String) -> Result<[UInt8], FileReadError> {
        let fd = path == "-" ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .failure(FileReadError(errno)) }
        defer { if fd != STDIN_FILENO { close(fd) } }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                // EISDIR for a folder, EIO for a failing disk.
                return .failure(FileReadError(errno))
            }
            if n == 0 { break }
            bytes += chunk[..<n]
            if bytes.count > maximumBytes { return .failure(FileReadError(EFBIG)) }
        }
        return .success(bytes)
    }
}

/// Why a file could not be read: an errno, shown in the system's words.
public struct FileReadError: Error, CustomStringConvertible, Sendable {
    public var code: Int32
    public init(_ code: Int32) { self.code = code }
    /// `No such file or directory`, `Is a directory`.
    public var description: String { String(cString: strerror(code)) }
}

/// Creating folders, with the system's reason when it cannot.
public enum Folder {
    /// Creates `path` and any missing parents (as `mkdir -p`).
    public static func create(_ path: String) throws(FileWriteError) {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for part in path.split(separator: "/") {
            prefix += part
            if mkdir(prefix, 0o777) != 0 {
                let code = errno
                var info = stat()
                guard code == EEXIST, stat(prefix, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
                    throw FileWriteError(path: prefix, action: "cannot create the folder", errno: code == EEXIST ? ENOTDIR : code)
                }
            }
            prefix += "/"
        }
    }
}

extension FileInput {
    /// The file as UTF-8 text (invalid sequences replaced), or an error that
    /// names it: `PATH: cannot read it: No such file or directory`.
    public static func text(_ path: String) throws(FileReadFailure) -> String {
        switch read(path) {
        case .success(let bytes): return String(decoding: bytes, as: UTF8.self)
        case .failure(let error): throw FileReadFailure(path: path, reason: error)
        }
    }
}

/// A file that could not be read, with its path.
public struct FileReadFailure: Error, CustomStringConvertible, Sendable {
    public var path: String
    public var reason: FileReadError
    public init(path: String, reason: FileReadError) {
        self.path = path
        self.reason = reason
    }
    public var description: String { "\(QuotedText.quotedTail(Array(path.utf8), limit: 400)): cannot read it: \(reason)" }
}
