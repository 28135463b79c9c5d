import FileIO
import Glibc

/// Writes `text` to standard error at once (unbuffered, so that it comes out
/// in order with the progress line and with what other threads write).
public func writeStandardError(_ text: String) {
    _ = FileDescriptorOutput.writeAll(Array(text.utf8), to: STDERR_FILENO)
}
