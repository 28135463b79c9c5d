import Foundation
import LV2Atoms
import Testing
import TactusEngine
import TactusInProcessHost
import TactusModel

/// What the fuzzers found in the plugin, pinned, run in-process on the hosted
/// build of the plugin's own sources (docs/robustness.md, "What was found").
@Suite("Robustness regressions (plugin)")
struct PluginRegressionTests {
    static let oneNote = "tactus-pattern 1\nlength 1\nnote 0 1/4 60 100\n"

    // docs/pattern-format.md: ";" separates statements, and keys may be note names,
    // so that jalv.gtk3's one-line text field takes a whole pattern.
    @Test("a pattern typed on one line, with ; and a note name, plays")
    func oneLinePatternWithANoteName() throws {
        let plugin = InProcessPlugin.make()
        let text = "tactus-pattern 1; length 1; note 0 1/4 F#3 100"
        try plugin.block(1, [plugin.setPattern(text)])
        #expect(try plugin.block(4096, [plugin.position(at: 0)]).map(\.1) == [[0x90, 54, 100]])
        #expect(try plugin.patternInUse() == text)
    }

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
        #expect(message == "pattern file rejected, the pattern in use stays: /nonexistent/a\\x00b.mid: No such file or directory")
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

    @Test("an edit run() itself refuses is said on notify at once and logged by the worker, not from the audio thread")
    func refusalInRunIsLogged() throws {
        let plugin = InProcessPlugin.make()
        plugin.clearLog()
        let message = "pattern edit rejected: urn:tactus:pattern takes an atom:String with the pattern text"
        // A pattern sent as a number: refused in run(); the worker logs it after the block.
        try plugin.block(16, [plugin.patchSet(plugin.uris.pattern, type: plugin.uris.atomInt, value: [1, 0, 0, 0])])
        #expect(try plugin.errorMessage() == message)
        #expect(plugin.logCount == 1)
        #expect(plugin.lastLogMessage == "tactus: \(message)")
        #expect(try plugin.patternInUse()?.hasPrefix("tactus-pattern 1\n# Tactus default") == true)
    }

    @Test("a host without a worker is told once, at instantiation, that edits will be refused")
    func noWorkerIsLoggedAtInstantiation() throws {
        let plugin = InProcessPlugin.make(worker: false)
        #expect(plugin.logCount == 1)
        #expect(plugin.lastLogMessage.contains("the host provides no worker (work:schedule)"))
        try plugin.block(16, [plugin.setPattern(PluginRegressionTests.oneNote)])
        #expect(try plugin.errorMessage()?.contains("provides no worker") == true)
    }

    @Test("patch:Get answers the dropped note-on count; a Get of everything includes it")
    func droppedNoteOnsOnRequest() throws {
        let plugin = InProcessPlugin.make()
        try plugin.block(16, [plugin.get(plugin.uris.droppedNoteOns)])
        #expect(try plugin.notifyEvents().compactMap { DroppedCount($0, uris: plugin.uris) } == [DroppedCount(value: 0)])
        try plugin.block(16, [plugin.getAll()])
        #expect(try plugin.notifyEvents().compactMap { DroppedCount($0, uris: plugin.uris) } == [DroppedCount(value: 0)])
        #expect(try plugin.notifications().contains { $0.property == plugin.uris.pattern })
    }

    @Test("an accepted pattern file is announced with its path, so a host's file chooser shows it")
    func acceptedFileIsAnnounced() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tactus-file-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("groove.pattern").path
        try PluginRegressionTests.oneNote.write(toFile: file, atomically: true, encoding: .utf8)
        let plugin = InProcessPlugin.make()
        try plugin.block(16, [plugin.setPatternFile(Array(file.utf8))])
        try plugin.block(16)
        let sent = try plugin.notifications()
        #expect(sent.contains { $0.property == plugin.uris.patternFile && $0.text == file })
        #expect(sent.contains { $0.property == plugin.uris.pattern && $0.text == PluginRegressionTests.oneNote })
    }
}

/// A `patch:Set` of `urn:tactus:droppedNoteOns` on the notify port (an atom:Long).
struct DroppedCount: Equatable {
    var value: Int64

    init(value: Int64) { self.value = value }

    init?(_ event: OutputSequence.Event, uris: URIDTable) {
        guard let message = PatchSetMessage(event, uris: uris), message.property == uris.droppedNoteOns,
            message.valueType == uris.atomLong, message.value.count >= 8
        else { return nil }
        value = message.value.withUnsafeBytes { $0.loadUnaligned(as: Int64.self) }
    }
}

/// Timing contract §7.6 through the plugin's own ports: `mute1` ... `mute8`
/// (indices 3-10) mute the first eight lanes, read at each block start.
@Suite("Lane mute ports (plugin)")
struct LaneMutePortTests {
    @Test("mute2 at 1 silences the second lane from the next block; its sounding note still ends; at 0 it plays again")
    func mutePortsMuteLanes() throws {
        let plugin = InProcessPlugin.make()
        let mutes = UnsafeMutablePointer<Float>.allocate(capacity: 8)
        defer { mutes.deallocate() }
        mutes.initialize(repeating: 0, count: 8)
        for i in 0..<8 { plugin.descriptor.pointee.connect_port?(plugin.handle, UInt32(3 + i), mutes + i) }
        // Two one-beat lanes: 60 for 1/4 beat, 62 for 1/2 beat. 120 bpm, 48 kHz: a beat is 24000 frames.
        try plugin.block(1, [plugin.setPattern("tactus-pattern 2\nlane a length 1\nnote 0 1/4 60 100\nlane b length 1\nnote 0 1/2 62 90\n")])
        let first = try plugin.block(4096, [plugin.position(at: 0)])
        #expect(first.map(\.1) == [[0x90, 60, 100], [0x90, 62, 90]])
        mutes[1] = 1  // mute2: lane b
        var events: [(Int64, [UInt8])] = []
        var start: Int64 = 4096
        while start < 4096 + 24000 * 2 {
            events += try plugin.block(4096).map { ($0.0 + start, $0.1) }
            start += 4096
        }
        // Lane b's note from frame 1 still ends (at 12001); its next onsets (24001, 48001) do not play.
        #expect(events.map(\.1) == [[0x80, 60, 0], [0x80, 62, 0], [0x90, 60, 100], [0x80, 60, 0], [0x90, 60, 100]])
        mutes[1] = 0
        var later: [[UInt8]] = []
        for _ in 0..<6 { later += try plugin.block(4096).map(\.1) }
        #expect(later.contains([0x90, 62, 90]))
    }
}

/// Timing contract §7.5: input notes are consumed, unless the `midi_thru`
/// port (index 11, off by default) is on; then they go out at their frame.
@Suite("MIDI thru (plugin)")
struct MIDIThruTests {
    @Test("off by default: an input note-on transposes a following lane and is not passed; with midi_thru at 1 it is, at its frame")
    func thruPassesInputNotes() throws {
        let plugin = InProcessPlugin.make()
        try plugin.block(1, [plugin.setPattern("tactus-pattern 2\nlane bass length 1 follow 48\nnote 0 1/4 48 100\n")])
        let noteOn = InProcessPlugin.Input(frames: 100, type: plugin.uris.midiEvent, body: [0x90, 60, 80])
        // Stopped transport: only input can reach the output.
        #expect(try plugin.block(256, [noteOn]).isEmpty)
        var thru: Float = 1
        plugin.descriptor.pointee.connect_port?(plugin.handle, 11, &thru)
        let passed = try plugin.block(256, [noteOn, InProcessPlugin.Input(frames: 200, type: plugin.uris.midiEvent, body: [0x80, 60, 0])])
        #expect(passed.map(\.0) == [100, 200] && passed.map(\.1) == [[0x90, 60, 80], [0x80, 60, 0]])
        thru = 0
        #expect(try plugin.block(256, [noteOn]).isEmpty)
        // The key was followed all along: the lane plays 60 (48 + 12) when the transport rolls.
        #expect(try plugin.block(256, [plugin.position(at: 0)]).map(\.1) == [[0x90, 60, 100]])
    }
}

/// LV2's lifetime as eg-metro reads it: `activate` resets (timing contract,
/// reading (e)), `deactivate` does nothing, whatever order a host calls them in.
@Suite("Plugin activation")
struct PluginActivationTests {
    static let chord = "tactus-pattern 1\nlength 1\nnote 0 1/2 60 100\nnote 0 1/2 64 90\n"

    @Test("deactivate, activate with notes sounding: their note-offs at frame 0 of the first block after; the transport forgotten")
    func reactivationEndsSoundingNotes() throws {
        let plugin = InProcessPlugin.make()
        try plugin.block(1, [plugin.setPattern(Self.chord)])
        #expect(try plugin.block(1000, [plugin.position(at: 0)]).map(\.1) == [[0x90, 60, 100], [0x90, 64, 90]])
        plugin.deactivate()
        plugin.activate()
        let after = try plugin.block(1000)
        #expect(after.map(\.0) == [0, 0])
        #expect(after.map(\.1) == [[0x80, 60, 0], [0x80, 64, 0]])
        // Stopped at beat 0 until the host sends a position.
        #expect(try plugin.block(48000).isEmpty)
        #expect(try plugin.block(1000, [plugin.position(at: 0)]).map(\.1) == [[0x90, 60, 100], [0x90, 64, 90]])
    }

    @Test("instantiate and activate, no deactivate: plays; activate twice: the same, and a second activate while notes sound ends them")
    func activateOnceOrTwice() throws {
        for activations in 1...2 {
            let plugin = InProcessPlugin.make()  // instantiate, activate
            if activations == 2 { plugin.activate() }
            try plugin.block(1, [plugin.setPattern(Self.chord)])
            #expect(try plugin.block(1000, [plugin.position(at: 0)]).map(\.1) == [[0x90, 60, 100], [0x90, 64, 90]])
            #expect(try plugin.block(12000).map(\.1) == [[0x80, 60, 0], [0x80, 64, 0]], "\(activations) activations")
        }
        let plugin = InProcessPlugin.make()
        try plugin.block(1, [plugin.setPattern(Self.chord)])
        try plugin.block(1000, [plugin.position(at: 0)])
        plugin.activate()
        #expect(try plugin.block(1000).map { [UInt8(truncatingIfNeeded: $0.0)] + $0.1 } == [[0, 0x80, 60, 0], [0, 0x80, 64, 0]])
    }
}
