#if canImport(Glibc)
import Glibc
#endif
import TactusCore

/// A file that is either written whole or not there: every file Tactus writes
/// (event logs, transport scripts, the journal, saved patterns, MIDI files:
/// docs/midi-files.md M19) goes through it.
///
/// The bytes go to a temporary file in the target's own folder (so that the
/// final `rename(2)` stays on one file system and is atomic); `commit()`
/// writes what is buffered, `fsync`s, closes and renames it over the target.
/// Any failure on the way (a full disk, a quota, an I/O error) removes the
/// temporary file, leaves whatever was at the path untouched, and is reported
/// with the system's reason (`strerror`) and the path. Discarded without
/// `commit()`, the temporary file is removed too.
///
/// Not thread-safe: one writer per file. A commit after a commit or a
/// discard fails (EBADF). Writes are buffered (64 KiB); each
/// `write` is O(bytes) amortized.
public final class AtomicFile {
    /// The path the file will have once committed.
    public let path: String
    private let temporaryPath: String
    private var descriptor: Int32
    private var buffer: [UInt8] = []
    /// The first failure; later writes are skipped and `commit` reports it.
    private var failure: FileWriteError?
    /// Bytes handed to `write` so far.
    public private(set) var byteCount: Int64 = 0

    /// Creates the temporary file beside `path` (mode 0644 less the umask, as `fopen` would).
    public init(path: String) throws(FileWriteError) {
        self.path = path
        let slash = path.utf8.lastIndex(of: UInt8(ascii: "/"))
        let folder = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        var template = Array((folder + "." + name + ".tmp-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw FileWriteError(path: path, action: "cannot create", errno: errno) }
        temporaryPath = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        descriptor = fd
        let mask = umask(0)
        umask(mask)
        fchmod(fd, 0o666 & ~mask)
        buffer.reserveCapacity(1 << 16)
    }

    /// Writes the whole of `bytes` to `path`, or throws and leaves `path` as it was.
    public static func write(_ bytes: [UInt8], to path: String) throws(FileWriteError) {
        let file = try AtomicFile(path: path)
        file.write(bytes)
        try file.commit()
    }

    /// Writes the whole of `text` to `path`, or throws and leaves `path` as it was.
    public static func write(_ text: String, to path: String) throws(FileWriteError) {
        try write(Array(text.utf8), to: path)
    }

    /// The first failure so far (a write that did not go through), if any.
    public var error: FileWriteError? { failure }

    public func write(_ bytes: [UInt8]) {
        byteCount += Int64(bytes.count)
        guard failure == nil else { return }
        buffer.append(contentsOf: bytes)
        if buffer.count >= 1 << 16 { drain() }
    }

    public func write(_ text: String) {
        write(Array(text.utf8))
    }

    /// Writes `text` and a line feed.
    public func writeLine(_ text: String) {
        byteCount += Int64(text.utf8.count + 1)
        guard failure == nil else { return }
        buffer.append(contentsOf: text.utf8)
        buffer.append(0x0A)
        if buffer.count >= 1 << 16 { drain() }
    }

    private func drain() {
        if let problem = FileDescriptorOutput.writeAll(buffer, to: descriptor) {
            failure = FileWriteError(path: path, action: "cannot write", errno: problem)
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Puts the file in place. Throws (and leaves `path` as it was) if any
    /// write failed, or if flushing, closing or renaming fails.
    public func commit() throws(FileWriteError) {
        if failure == nil { drain() }
        if failure == nil, fsync(descriptor) != 0 { failure = FileWriteError(path: path, action: "cannot write", errno: errno) }
        if close(descriptor) != 0, failure == nil { failure = FileWriteError(path: path, action: "cannot write", errno: errno) }
        descriptor = -1
        if failure == nil, rename(temporaryPath, path) != 0 { failure = FileWriteError(path: path, action: "cannot replace", errno: errno) }
        if let failure {
            unlink(temporaryPath)
            throw failure
        }
    }

    /// Gives up: the temporary file is removed, `path` stays as it was.
    public func discard() {
        guard descriptor >= 0 else { return }
        close(descriptor)
        descriptor = -1
        unlink(temporaryPath)
    }

    deinit { discard() }
}

/// Why a file could not be written: `cannot write 'PATH': No space left on device`.
public struct FileWriteError: Error, CustomStringConvertible, Sendable {
    public var path: String
    /// `cannot create`, `cannot write`, `cannot replace`.
    public var action: String
    /// The system's words (`strerror`).
    public var reason: String

    public init(path: String, action: String, reason: String) {
        self.path = path
        self.action = action
        self.reason = reason
    }

    public init(path: String, action: String, errno code: Int32) {
        self.init(path: path, action: action, reason: String(cString: strerror(code)))
    }

    public var description: String { "\(action) '\(QuotedText.quotedTail(Array(path.utf8)))': \(reason)" }
}

/// Writing to a descriptor that is not a file Tactus owns (standard output).
public enum FileDescriptorOutput {
    /// Writes all of `bytes`, retrying short writes and EINTR; the errno of a failure, or nil.
    public static func writeAll(_ bytes: [UInt8], to fd: Int32) -> Int32? {
        var written = 0
        while written < bytes.count {
            let n = bytes[written...].withUnsafeBufferPointer { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                return errno
            }
            if n == 0 { return EIO }
            written += n
        }
        return nil
    }
}
