import Glibc
import Synchronization

/// A one-line progress display on a terminal's standard error
/// (`rendering: 1:02.40 of 4:05.65 (25%)`), redrawn every `interval` of wall
/// time by a thread of its own, whatever the rate at which the work reports:
/// `report` is two relaxed atomic stores, cheap enough for every block of a
/// render, and a caller that reports once a second still gets a line that
/// moves as often as its reports do. `finish` draws the final count (100 %
/// for work that ran to its end) and ends the line, so that the last thing
/// on the screen is where the work ended; `abandon` clears it (an error
/// follows).
///
/// Shown only when standard error is a terminal, and only once the work has
/// run for one interval (a short command prints no line at all).
///
/// Thread-safe: `report` from any thread; drawing happens on the display
/// thread and in `finish`/`abandon`, one at a time (a lock).
public final class ProgressLine: Sendable {
    /// Wall time between redraws, in seconds.
    public static let interval = 0.25

    public let enabled: Bool
    private let text: @Sendable (_ done: Int64, _ total: Int64) -> String
    private let write: @Sendable (String) -> Void
    private let done = Atomic<Int64>(0)
    private let total = Atomic<Int64>(0)
    private let stopping = Atomic<Bool>(false)
    private let state = Mutex<State>(State())

    private struct State {
        /// What the line shows now (nil: nothing drawn yet).
        var drawn: (done: Int64, total: Int64)?
        var ended = false
    }

    private let thread = Mutex<pthread_t?>(nil)

    /// `text` makes the line from the latest report; `write` puts it on the
    /// terminal. With `startThread: false` nothing redraws but `tick()` (tests).
    public init(
        enabled: Bool = isatty(STDERR_FILENO) == 1, startThread: Bool = true,
        write: @escaping @Sendable (String) -> Void = writeStandardError,
        text: @escaping @Sendable (_ done: Int64, _ total: Int64) -> String
    ) {
        self.enabled = enabled
        self.text = text
        self.write = write
        guard enabled, startThread else { return }
        let started = Threads.start { [self] in
            // Sleeps in short steps, so that finish() waits at most one step.
            let steps = 10
            while !stopping.load(ordering: .relaxed) {
                for _ in 0..<steps where !stopping.load(ordering: .relaxed) {
                    usleep(useconds_t(ProgressLine.interval / Double(steps) * 1e6))
                }
                if !stopping.load(ordering: .relaxed) { tick() }
            }
        }
        thread.withLock { $0 = started }
    }

    /// The work has done `done` of `total` (any units the text understands).
    public func report(_ done: Int64, of total: Int64) {
        self.total.store(total, ordering: .relaxed)
        self.done.store(done, ordering: .relaxed)
    }

    /// Draws the latest report if it differs from what the line shows.
    public func tick() {
        guard enabled else { return }
        let now = (done: done.load(ordering: .relaxed), total: total.load(ordering: .relaxed))
        state.withLock { s in
            guard !s.ended, s.drawn.map({ $0 != now }) ?? true else { return }
            s.drawn = now
            write("\r" + text(now.done, now.total) + "\u{1B}[K")
        }
    }

    /// The work is done at `done` of `total`: the line, if one was shown,
    /// shows that and ends (a line feed), and nothing redraws it.
    public func finish(at done: Int64, of total: Int64) {
        stop()
        state.withLock { s in
            guard !s.ended else { return }
            s.ended = true
            if s.drawn != nil { write("\r" + text(done, total) + "\u{1B}[K\n") }
        }
    }

    /// The work failed: the line, if one was shown, is cleared.
    public func abandon() {
        stop()
        state.withLock { s in
            guard !s.ended else { return }
            s.ended = true
            if s.drawn != nil { write("\r\u{1B}[K") }
        }
    }

    private func stop() {
        stopping.store(true, ordering: .relaxed)
        if let t = thread.withLock({ t in defer { t = nil }; return t }) { Threads.join(t) }
    }

    /// `25%`, never above 100, `100%` only when `done` reaches `total`.
    public static func percent(_ done: Int64, of total: Int64) -> String {
        guard total > 0 else { return "100%" }
        let p = done >= total ? 100 : min(99, Int(Double(done) * 100 / Double(total)))
        return "\(p)%"
    }
}
