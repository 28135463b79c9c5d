import TactusCommandLine
import Testing

/// What replaced Foundation in the command line (printf formats, paths) says
/// what Foundation said (issue 33: the executable links no Foundation).
@Suite struct FormattingTests {
    @Test func durationsAndNumbers() {
        #expect(formatSeconds(0.68) == "0.68 s")
        #expect(formatSeconds(245.65) == "4:05.65")
        #expect(formatSeconds(3599.5) == "59:59.50")
        #expect(formatSeconds(7200) == "2:00:00.00")
        #expect(formatSeconds(86_400 + 61.25) == "24:01:01.25")
        #expect(formatNumber(48000) == "48000")
        #expect(formatNumber(133.7) == "133.7")
        #expect(Formatting.printf("%.9f", 0.000_000_5) == "0.000000500")
        #expect(Formatting.printf("%.3g hours", 2.5e9) == "2.5e+09 hours")
        // Longer than the first buffer.
        #expect(Formatting.printf("%0300d", Int32(7)).count == 300)
    }

    @Test func paths() {
        #expect(Path.lastComponent("a/b/song.mid") == "song.mid")
        #expect(Path.lastComponent("song.mid") == "song.mid")
        #expect(Path.deletingExtension("a/b/song.mid") == "a/b/song")
        #expect(Path.deletingExtension("a.b/song") == "a.b/song")
        #expect(Path.deletingExtension(".hidden") == ".hidden")
        #expect(Path.pathExtension("x/Song.MID") == "mid")
        #expect(Path.pathExtension("x.d/song") == "")
        #expect(Path.folder("a/b/s.transport") == "a/b")
        #expect(Path.folder("s.transport") == "")
        #expect(Path.folder("/s.transport") == "/")
        #expect(Path.appending("p.pattern", to: "a/b") == "a/b/p.pattern")
        #expect(Path.appending("p.pattern", to: "a/b/") == "a/b/p.pattern")
        #expect(Path.appending("p.pattern", to: "") == "p.pattern")
        #expect(Path.isFolder("/tmp") && !Path.isFolder("/dev/null") && !Path.isFolder("/no/such/folder"))
    }
}
