import Foundation
import Testing
import TactusLV2Hosted

/// What the fuzzers found in the plugin, pinned, run in-process on the hosted
/// build of the plugin's own sources (docs/robustness.md, "What was found").
@Suite("Robustness regressions (plugin)")
struct PluginRegressionTests {
    static let oneNote = "tactus-pattern 1\nlength 1\nnote 0 1/4 60 100\n"

    @Test("a MIDI port offered less room than a sequence header holds the note-off until room returns")
    func midiPortWithoutRoom() throws {
        let plugin = InProcessPlugin.make()
        try plugin.block(1, [plugin.setPattern(PluginRegressionTests.oneNote)])
        // 120 bpm at 48 kHz: the note sounds from frame 1 (the block after the edit) to 6001.
        let first = try plugin.block(4096, [plugin.position(at: 0)])
        #expect(first.map(\.1) == [[0x90, 60, 100]])
        // Its note-off falls in a block whose port has no room at all (8 bytes: atom.size 0).
        #expect(try plugin.block(4096, [], midiBytes: 8).isEmpty)
        // It goes out at the first frame of the next block with room: nothing is left sounding.
        let third = try plugin.block(4096)
        #expect(third.count == 1 && third.first?.0 == 0 && third.first?.1 == [0x80, 60, 0])
    }

    @Test("a note-on due in a block without room is dropped, not played to nowhere")
    func noteOnWithoutRoom() throws {
        let plugin = InProcessPlugin.make()
        try plugin.block(1, [plugin.setPattern(PluginRegressionTests.oneNote)])
        #expect(try plugin.block(4096, [plugin.position(at: 0)], midiBytes: 0).isEmpty)
        // No note-off for a note nobody heard.
        #expect(try plugin.block(4096).isEmpty)
    }

    @Test("a pattern file path with a NUL or an escape sequence is quoted, and the reason follows it")
    func controlCharactersInPath() throws {
        let plugin = InProcessPlugin.make()
        try plugin.block(16, [plugin.setPatternFile(Array("/nonexistent/a\u{0}b.mid".utf8))])
        try plugin.block(16)
        let message = try #require(try plugin.errorMessage())
        #expect(!message.contains("\u{0}"))
        #expect(message == "pattern file rejected, the pattern in use stays: /nonexistent/a\\x00b.mid: Standard MIDI Files are not supported yet; use a pattern text file")
        try plugin.block(16, [plugin.setPatternFile(Array("/nonexistent/\u{1B}[2J.pattern".utf8))])
        try plugin.block(16)
        #expect(try plugin.errorMessage() == "pattern file rejected, the pattern in use stays: /nonexistent/\\x1b[2J.pattern: No such file or directory")
    }

    @Test("a very long path is shortened in the message, keeping its end and the reason")
    func longPath() throws {
        let plugin = InProcessPlugin.make()
        let path = "/" + String(repeating: "x", count: 5000) + "/song.pattern"
        try plugin.block(16, [plugin.setPatternFile(Array(path.utf8))])
        try plugin.block(16)
        let message = try #require(try plugin.errorMessage())
        #expect(message.hasPrefix("pattern file rejected, the pattern in use stays: ...xxxx"))
        #expect(message.hasSuffix("xxxx/song.pattern: File name too long"))
        #expect(message.utf8.count < 300)
    }

    @Test("a FIFO as the pattern file is refused at once instead of blocking the worker", .timeLimit(.minutes(1)))
    func fifoAsPatternFile() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tactus-fifo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let fifo = dir.appendingPathComponent("live.pattern").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let plugin = InProcessPlugin.make()
        try plugin.block(16, [plugin.setPatternFile(Array(fifo.utf8))])
        try plugin.block(16)
        #expect(try plugin.errorMessage() == "pattern file rejected, the pattern in use stays: \(fifo): a pipe or a socket, not a file")
        // The worker is free: the next edit is applied.
        try plugin.block(16, [plugin.setPattern(PluginRegressionTests.oneNote)])
        #expect(try plugin.patternInUse() == PluginRegressionTests.oneNote)
    }

    @Test("a rejected edit keeps the pattern in use, and the message names the line and the reason")
    func rejectedEditKeepsThePattern() throws {
        let plugin = InProcessPlugin.make()
        try plugin.block(16, [plugin.setPattern(PluginRegressionTests.oneNote)])
        try plugin.block(16, [plugin.setPattern("tactus-pattern 1\nlength 4\nnote 0 1 60 0\n")])
        try plugin.block(16)
        #expect(try plugin.errorMessage() == "pattern rejected, the pattern in use stays: line 3: velocity must be 1-127, found 0")
        #expect(try plugin.patternInUse() == PluginRegressionTests.oneNote)
        let (_, state) = plugin.save()
        #expect(state[plugin.uris.pattern].map { String(decoding: $0.value.dropLast(), as: UTF8.self) } == PluginRegressionTests.oneNote)
    }
}
