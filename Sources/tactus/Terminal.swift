import Foundation

func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}

/// Buffered writing to standard output (event logs can run to millions of lines).
struct OutputStream {
    private var buffer: [UInt8] = []
    private let handle: UnsafeMutablePointer<FILE>
    private let ownsHandle: Bool

    init(path: String?) throws {
        if let path {
            guard let f = fopen(path, "w") else { throw CommandFailure("cannot write '\(path)'") }
            handle = f
            ownsHandle = true
        } else {
            guard let f = fdopen(dup(STDOUT_FILENO), "w") else { throw CommandFailure("cannot write standard output") }
            handle = f
            ownsHandle = false
        }
        buffer.reserveCapacity(1 << 16)
    }

    mutating func write(_ line: String) {
        buffer.append(contentsOf: line.utf8)
        buffer.append(0x0A)
        if buffer.count >= 1 << 16 { flush() }
    }

    mutating func flush() {
        buffer.withUnsafeBufferPointer { _ = fwrite($0.baseAddress, 1, $0.count, handle) }
        buffer.removeAll(keepingCapacity: true)
        fflush(handle)
    }

    func close() {
        _ = ownsHandle
        fclose(handle)
    }
}

/// A command that could not do its work (a file that cannot be read or does
/// not parse, a JACK server that refuses): printed as `Error: ...`, exit
/// status 1, without the usage text that a wrong option gets.
struct CommandFailure: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}

/// A one-line progress display on a terminal's standard error, a few times a second.
struct ProgressLine {
    let enabled = isatty(STDERR_FILENO) == 1
    private var lastUpdate = Date.distantPast
    private var shown = false
    private var calls = 0

    mutating func update(_ text: @autoclosure () -> String) {
        guard enabled else { return }
        // A render calls this once a block, millions of times: reading the
        // clock each time would cost more than rendering a quiet block.
        calls &+= 1
        guard calls & 1023 == 1 else { return }
        let now = Date()
        guard now.timeIntervalSince(lastUpdate) > 0.2 else { return }
        lastUpdate = now
        shown = true
        FileHandle.standardError.write(Data(("\r" + text() + "\u{1B}[K").utf8))
    }

    mutating func finish() {
        guard enabled, shown else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}
