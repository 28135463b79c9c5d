import Synchronization
import TactusCommandLine
import Testing

/// The command line's progress line (issue 33: a bounce's line froze at its
/// first value): it shows the latest report at each redraw, whatever the rate
/// of the reports, and ends at 100 %. The redraws here are `tick()`s, the
/// display thread's four a second; cli-test watches the real thing on a
/// pseudo-terminal.
@Suite struct ProgressLineTests {
    /// What the line wrote, in order.
    final class Screen: Sendable {
        let writes = Mutex<[String]>([])
        var all: [String] { writes.withLock { $0 } }
        func write(_ text: String) { writes.withLock { $0.append(text) } }
    }

    static func line(_ screen: Screen, enabled: Bool = true) -> ProgressLine {
        ProgressLine(enabled: enabled, startThread: false, write: { screen.write($0) }) { done, total in
            "rendering: \(done) of \(total) (\(ProgressLine.percent(done, of: total)))"
        }
    }

    @Test("each redraw shows the latest report, however many reports came between (one a block, or one in a minute)")
    func redrawsShowTheLatestReport() {
        let screen = Screen()
        let progress = Self.line(screen)
        // A render reports a million times between two redraws...
        for frame in stride(from: Int64(0), through: 1_000_000, by: 1) { progress.report(frame, of: 4_000_000) }
        progress.tick()
        // ... a slow instrument once in several redraws: the line stays as it is (no redraw of the same text).
        progress.tick()
        progress.report(2_000_000, of: 4_000_000)
        progress.tick()
        #expect(screen.all == ["\rrendering: 1000000 of 4000000 (25%)\u{1B}[K", "\rrendering: 2000000 of 4000000 (50%)\u{1B}[K"])
    }

    @Test("finish shows the final count, 100 %, and ends the line; nothing redraws after it")
    func finishEndsAtOneHundredPercent() {
        let screen = Screen()
        let progress = Self.line(screen)
        progress.report(65_536, of: 11_791_200)
        progress.tick()
        progress.finish(at: 11_791_200, of: 11_791_200)
        progress.report(1, of: 2)
        progress.tick()
        #expect(screen.all.last == "\rrendering: 11791200 of 11791200 (100%)\u{1B}[K\n")
        #expect(screen.all.count == 2)
    }

    @Test("a command shorter than one redraw prints no line; a failed one clears it; off a terminal nothing is written")
    func shortFailedAndOffATerminal() {
        let short = Screen()
        let quick = Self.line(short)
        quick.report(10, of: 10)
        quick.finish(at: 10, of: 10)
        #expect(short.all.isEmpty)

        let failed = Screen()
        let broken = Self.line(failed)
        broken.report(5, of: 10)
        broken.tick()
        broken.abandon()
        #expect(failed.all.last == "\r\u{1B}[K")

        let file = Screen()
        let redirected = Self.line(file, enabled: false)
        redirected.report(5, of: 10)
        redirected.tick()
        redirected.finish(at: 10, of: 10)
        #expect(file.all.isEmpty)
    }

    @Test("percent: never 100 before the end, never more than 100")
    func percent() {
        #expect(ProgressLine.percent(0, of: 100) == "0%")
        #expect(ProgressLine.percent(999_999, of: 1_000_000) == "99%")
        #expect(ProgressLine.percent(1_000_000, of: 1_000_000) == "100%")
        #expect(ProgressLine.percent(1_200_000, of: 1_000_000) == "100%")
        #expect(ProgressLine.percent(0, of: 0) == "100%")
    }
}
