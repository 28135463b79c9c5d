#if canImport(Glibc)
import Glibc
#endif
import TactusEngine
import TactusModel

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
/// Only a regular file (or a new one) is replaced: a device, a FIFO or a
/// socket at `path` (`-o /dev/null`, `-o /dev/stdout`) is written in place,
/// since renaming over it would replace the device node with a file; a
/// symbolic link is followed, and the file it names is replaced, keeping
/// the link. A replaced file keeps its permissions.
///
/// Not thread-safe: one writer per file. A commit after a commit or a
/// discard fails (EBADF). Writes are buffered (64 KiB); each
/// `write` is O(bytes) amortized.
public final class AtomicFile {
    /// The path the file will have once committed.
    public let path: String
    /// nil when writing in place (a device, a FIFO, a socket).
    private let temporaryPath: String?
    /// The file the rename replaces: `path`, or what its symbolic link names.
    private let target: String
    private var descriptor: Int32
    private var buffer: [UInt8] = []
    /// The first failure; later writes are skipped and `commit` reports it.
    private var failure: FileWriteError?
    /// Bytes handed to `write` so far.
    public private(set) var byteCount: Int64 = 0

    /// Creates the temporary file beside `path` (mode 0644 less the umask, as `fopen` would).
    public init(path: String) throws(FileWriteError) {
        self.path = path
        var target = path
        var info = stat()
        if lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK {
            if let resolved = realpath(path, nil) {
                target = String(cString: resolved)
                free(resolved)
            } else {
                // A link to a file not there yet: the file it names is created.
                var bytes = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
                let n = readlink(path, &bytes, Int(PATH_MAX))
                if n > 0 {
                    let named = String(decoding: bytes[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
                    let slash = path.utf8.lastIndex(of: UInt8(ascii: "/"))
                    target = named.hasPrefix("/") ? named : (slash.map { String(path[...$0]) } ?? "") + named
                }
            }
        }
        self.target = target
        var existing = stat()
        let exists = stat(target, &existing) == 0
        if exists, existing.st_mode & S_IFMT != S_IFREG, existing.st_mode & S_IFMT != S_IFDIR {
            let fd = open(target, O_WRONLY | O_CLOEXEC)
            guard fd >= 0 else { throw FileWriteError(path: path, action: "cannot write", errno: errno) }
            temporaryPath = nil
            descriptor = fd
            buffer.reserveCapacity(1 << 16)
            return
        }
        let slash = target.utf8.lastIndex(of: UInt8(ascii: "/"))
        let folder = slash.map { String(target[...$0]) } ?? ""
        let name = slash.map { String(target[target.index(after: $0)...]) } ?? target
        var template = Array((folder + "." + name + ".tmp-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw FileWriteError(path: path, action: "cannot create", errno: errno) }
        temporaryPath = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        descriptor = fd
        if exists {
            fchmod(fd, existing.st_mode & 0o7777)
        } else {
            let mask = umask(0)
            umask(mask)
            fchmod(fd, 0o666 & ~mask)
        }
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
        guard let temporaryPath else {
            // In place (a device, a FIFO): nothing to sync or rename.
            if close(descriptor) != 0, failure == nil { failure = FileWriteError(path: path, action: "cannot write", errno: errno) }
            descriptor = -1
            if let failure { throw failure }
            return
        }
        if failure == nil, fsync(descriptor) != 0 { failure = FileWriteError(path: path, action: "cannot write", errno: errno) }
        if close(descriptor) != 0, failure == nil { failure = FileWriteError(path: path, action: "cannot write", errno: errno) }
        descriptor = -1
        if failure == nil, rename(temporaryPath, target) != 0 { failure = FileWriteError(path: path, action: "cannot replace", errno: errno) }
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
        if let temporaryPath { unlink(temporaryPath) }
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
