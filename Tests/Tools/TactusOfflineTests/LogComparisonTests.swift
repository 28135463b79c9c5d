import Testing
import TactusOffline

/// `tactus verify` and the fixture replays judge a recording by this
/// comparison: every changed byte must be caught, and the first difference
/// must name what was expected and what was recorded at that frame.
@Suite("Comparing a recorded log with a replay")
struct LogComparisonTests {
    static let replay = log("""
        0 90 3c 64
        0 91 40 5a
        12000 80 3c 00
        16000 81 40 00
        96000 90 3c 64
        108000 80 3c 00
        """)

    static func log(_ text: String) -> [LoggedEvent] { (try? EventLog.parse(text)) ?? [] }

    static func compare(_ recorded: String, tolerance: Int64 = 0) -> LogComparison {
        LogComparison(expected: replay, recorded: log(recorded), tolerance: tolerance)
    }

    @Test("the same events agree, in any order on one frame, with 9n kk 00 as a note-off")
    func sameEventsAgree() {
        let c = Self.compare("""
            0 91 40 5a
            0 90 3c 64
            12000 90 3c 00
            16000 81 40 00
            96000 90 3c 64
            108000 80 3c 00
            """)
        #expect(c.agrees)
        #expect(c.pairs == 6 && c.exact == 6)
    }

    @Test("a changed velocity is reported at its frame with both events, not as a shifted chain")
    func changedVelocity() {
        let c = Self.compare("""
            0 90 3c 65
            0 91 40 5a
            12000 80 3c 00
            16000 81 40 00
            96000 90 3c 64
            108000 80 3c 00
            """)
        #expect(c.differences.count == 1)
        #expect(c.differences.first?.description == "frame 0: expected '0 90 3c 64', recorded '0 90 3c 65'")
    }

    @Test("a note-off's velocity counts")
    func noteOffVelocityCounts() {
        let c = Self.compare("""
            0 90 3c 64
            0 91 40 5a
            12000 80 3c 5b
            16000 81 40 00
            96000 90 3c 64
            108000 80 3c 00
            """)
        #expect(c.differences.map(\.description) == ["frame 12000: expected '12000 80 3c 00', recorded '12000 80 3c 5b'"])
    }

    @Test("a changed key or channel is reported against what was recorded at that frame")
    func changedKeyOrChannel() {
        let c = Self.compare("""
            0 90 3c 64
            0 92 40 5a
            12000 80 3c 00
            16000 81 40 00
            96000 90 3c 64
            108000 80 3c 00
            """)
        #expect(c.differences.first?.description == "frame 0: expected '0 91 40 5a', recorded '0 92 40 5a'")
    }

    @Test("an event a frame late is reported as one event off by one frame, and agrees within a tolerance of 1")
    func lateEvent() {
        let late = """
            0 90 3c 64
            0 91 40 5a
            12001 80 3c 00
            16000 81 40 00
            96000 90 3c 64
            108000 80 3c 00
            """
        #expect(Self.compare(late).differences.map(\.description) == ["frame 12000: expected '12000 80 3c 00', recorded '12001 80 3c 00' (1 frame off)"])
        let within = Self.compare(late, tolerance: 1)
        #expect(within.agrees && within.exact == 5 && within.largestDeviation == 1)
    }

    @Test("a missing event and an extra one are each reported")
    func missingAndExtra() {
        let c = Self.compare("""
            0 90 3c 64
            0 91 40 5a
            12000 80 3c 00
            16000 81 40 00
            50000 90 3e 64
            108000 80 3c 00
            """)
        #expect(c.differences.map(\.description) == [
            "frame 50000: recorded '50000 90 3e 64', expected nothing like it",
            "frame 96000: expected '96000 90 3c 64', recorded nothing in its place",
        ])
    }
}
