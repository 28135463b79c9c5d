import Foundation

/// Writing a file so that it is complete or not there (docs/midi-files.md,
/// M19): the bytes go to a temporary file in the same folder, are flushed to
/// the disk, and the temporary file is renamed over the target.
enum AtomicFile {
    static func write(_ bytes: [UInt8], to path: String) throws(CommandFailure) {
        let folder = (path as NSString).deletingLastPathComponent
        var template = Array(((folder.isEmpty ? "." : folder) + "/.tactus-write-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw CommandFailure("cannot write '\(path)': \(String(cString: strerror(errno)))") }
        let temporary = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        var failure: String? = nil
        bytes.withUnsafeBytes { raw in
            var done = 0
            while done < raw.count {
                let n = Foundation.write(fd, raw.baseAddress! + done, raw.count - done)
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = String(cString: strerror(errno))
                    return
                }
                done += n
            }
        }
        // mkstemp makes the file 0600; a written file is as readable as any other.
        let mask = umask(0)
        umask(mask)
        if failure == nil, fchmod(fd, 0o666 & ~mask) != 0 { failure = String(cString: strerror(errno)) }
        if failure == nil, fsync(fd) != 0 { failure = String(cString: strerror(errno)) }
        if close(fd) != 0, failure == nil { failure = String(cString: strerror(errno)) }
        if failure == nil, rename(temporary, path) != 0 { failure = String(cString: strerror(errno)) }
        if let failure {
            unlink(temporary)
            throw CommandFailure("cannot write '\(path)': \(failure)")
        }
    }
}
