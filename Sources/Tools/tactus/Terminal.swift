import FileIO
import Glibc
import TactusCommandLine
import TactusEngine
import TactusModel

/// Writes `message` and a line feed to standard error at once (unbuffered,
/// so that it comes out in order with the progress line and with what other
/// threads write).
func printError(_ message: String) {
    writeStandardError(message + "\n")
}

/// Where a command's log goes: a file, written whole or not at all
/// (`AtomicFile`), or standard output. Buffered (event logs can run to
/// millions of lines); the first failed write is kept and reported by
/// `finish()`, so that a full disk or a closed pipe ends the command with
/// the system's reason and exit status 1 instead of a log cut off mid-line.
struct OutputStream {
    private var file: AtomicFile?
    private var buffer: [UInt8] = []
    private var standardOutputError: Int32?
    /// Bytes written so far (for the render's output bound).
    private(set) var byteCount: Int64 = 0

    init(path: String?) throws(CommandFailure) {
        if let path, path != "-" {
            do { file = try AtomicFile(path: path) } catch { throw CommandFailure(error.description) }
        } else {
            file = nil
            buffer.reserveCapacity(1 << 16)
        }
    }

    /// Whether a write has failed already (the command may stop early).
    var failed: Bool { file?.error != nil || standardOutputError != nil }

    mutating func write(_ line: String) {
        byteCount += Int64(line.utf8.count + 1)
        if let file {
            file.writeLine(line)
            return
        }
        guard standardOutputError == nil else { return }
        buffer.append(contentsOf: line.utf8)
        buffer.append(0x0A)
        if buffer.count >= 1 << 16 { drainStandardOutput() }
    }

    private mutating func drainStandardOutput() {
        if standardOutputError == nil, let code = FileDescriptorOutput.writeAll(buffer, to: STDOUT_FILENO) {
            standardOutputError = code
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Puts the file in place (or flushes standard output); throws with the
    /// system's reason if anything failed, leaving no partial file.
    mutating func finish() throws(CommandFailure) {
        if let file {
            do { try file.commit() } catch { throw CommandFailure(error.description) }
            return
        }
        drainStandardOutput()
        if let code = standardOutputError {
            throw CommandFailure("cannot write standard output: \(String(cString: strerror(code)))")
        }
    }

    /// Gives up: no file is left where the log was to go.
    func abandon() {
        file?.discard()
    }
}

/// A command that could not do its work (a file that cannot be read or does
/// not parse, a JACK server that refuses): printed as `Error: ...`, exit
/// status 1, without the usage text that a wrong command line gets
/// (`ValidationError`: exit status 2).
struct CommandFailure: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}

/// A path as messages show it: control characters as `\xNN`, as every
/// message quotes text a person supplied (`QuotedText`); `-` is standard input.
func displayPath(_ path: String) -> String {
    path == "-" ? "standard input" : QuotedText.quotedTail(Array(path.utf8), limit: 400)
}

/// `1 note`, `2 notes`.
func counted(_ n: Int, _ singular: String, plural: String? = nil) -> String {
    "\(n) \(n == 1 ? singular : plural ?? singular + "s")"
}
