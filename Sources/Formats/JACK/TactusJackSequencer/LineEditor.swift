import CEditLine
import Glibc

/// The prompt's input on a terminal: libedit's line editing (arrow keys,
/// Ctrl-A/E, Ctrl-R), history (Up and Down) and Tab completion of the
/// commands, through its readline interface, without blocking the prompt's
/// housekeeping: libedit is fed a character at a time (`rl_callback_read_char`)
/// whenever `poll` says one is there.
///
/// Thread: the prompt thread only (libedit keeps global state); one instance
/// at a time. Not realtime.
struct LineEditor {
    /// Lines libedit completed (nil: end of input), handed over by the C callback.
    nonisolated(unsafe) private static var completed: [String?] = []
    private static let commands = [
        "show", "add", "remove", "length", "lane", "lanes", "seed", "clear", "load", "save", "mute", "unmute", "thru", "status", "song", "patterns", "play", "stop",
        "locate", "help", "quit",
    ]
    let prompt: String
    private var ended = false

    init(prompt: String) {
        self.prompt = prompt
        // The first word completes to a command; later words to file names (load, save).
        tactus_editline_configure(strdup("tactus")) { text, start, _ in
            guard start == 0, let text else { return nil }
            return rl_completion_matches(text) { text, state in
                let prefix = text.map { String(cString: $0) } ?? ""
                let matches = LineEditor.commands.filter { $0.hasPrefix(prefix) }
                return Int(state) < matches.count ? strdup(matches[Int(state)]) : nil
            }
        }
        showPrompt()
    }

    /// The next line, or `.timeout` after `timeoutMilliseconds` without one.
    mutating func next(timeoutMilliseconds: Int32) -> LineReader.Result {
        while true {
            if !LineEditor.completed.isEmpty {
                guard let line = LineEditor.completed.removeFirst() else { ended = true; return .end }
                if !line.allSatisfy(\.isWhitespace) { add_history(line) }
                return .line(line)
            }
            if ended { return .end }
            var poller = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, timeoutMilliseconds)
            if ready == 0 || (ready < 0 && errno == EINTR) { return .timeout }
            if ready < 0 || poller.revents & Int16(POLLIN) == 0 { ended = true; return .end }
            rl_callback_read_char()
        }
    }

    /// The prompt, at the start and after the answers to each line. libedit
    /// leaves the terminal as it was before it calls the handler with a
    /// line; installing the handler again puts it back in raw mode, clears
    /// the line and prints the prompt.
    func showPrompt() {
        rl_callback_handler_install(prompt) { line in
            LineEditor.completed.append(line.map { String(cString: $0) })
            free(line)
        }
    }

    /// Gives the terminal back as it was.
    func close() {
        rl_callback_handler_remove()
        SequencerSession.say("")
    }
}
