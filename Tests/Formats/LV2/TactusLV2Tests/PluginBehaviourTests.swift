import Foundation
import Testing
import TactusEngine
import TactusModel
import TactusOffline

let rolling120 = "tactus-transport 1\nrate 48000\n0 position frame=0 speed=1 bar=0 barBeat=0 beatsPerBar=4 beatsPerMinute=120\n"
let oneNote = "tactus-pattern 1\nlength 1\nnote 0 1/4 60 100\n"

@Suite("Plugin: patterns, state and notifications")
struct PluginBehaviourTests {
    @Test("a fresh instance plays its default one-bar figure (the demo pattern)")
    func defaultPattern() throws {
        let dir = try PluginProcess.folder(["script.transport": rolling120 + "200000 end\n"])
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = try PluginProcess.run(in: dir)
        let core = try PluginProcess.expected(in: dir, blocks: "256")
        #expect(out.midi.count > 20)
        #expect(difference(out.midi, core, ("plugin", "demo pattern")) == nil)
    }

    @Test("an accepted edit takes effect at the next block, and the notify port says state:StateChanged and the new text")
    func acceptedEdit() throws {
        let new = "tactus-pattern 1\nlength 1/2\nnote 0 1/8 64 90\n"
        let dir = try PluginProcess.folder([
            "script.transport": rolling120 + "5500 pattern new.pattern\n30000 end\n", "pattern.pattern": oneNote, "new.pattern": new,
        ])
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = try PluginProcess.run(in: dir, blocks: "1000")
        // The edit arrived in block 5000-5999; from 6000 the new pattern plays (1/2 beat = 12000 frames).
        #expect(out.midi.map(EventLog.line) == ["0 90 3c 64", "6000 80 3c 00", "12000 90 40 5a", "15000 80 40 00", "24000 90 40 5a", "27000 80 40 00"])
        #expect(out.notify.contains("6000 state:StateChanged"))
        #expect(out.notify.contains { $0.hasPrefix("6000 patch:Set patch:property=urn:tactus:pattern patch:value=tactus-pattern 1\\nlength 1/2") })
    }

    @Test("a rejected edit is reported on notify and in the log, and the pattern in use stays")
    func rejectedEdit() throws {
        let bad = "tactus-pattern 1\nlength 4\nnote 0 1 60 0\n"
        let dir = try PluginProcess.folder([
            "script.transport": rolling120 + "5500 pattern bad.pattern\n50000 end\n", "pattern.pattern": oneNote, "bad.pattern": bad,
        ])
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = try PluginProcess.run(in: dir, blocks: "1000")
        #expect(out.midi.map(EventLog.line) == ["0 90 3c 64", "6000 80 3c 00", "24000 90 3c 64", "30000 80 3c 00", "48000 90 3c 64"])
        let message = "pattern rejected, the pattern in use stays: line 3: velocity must be 1-127, found 0"
        #expect(out.notify.contains("6000 patch:Set patch:property=urn:tactus:error patch:value=\(message)"))
        #expect(out.stderr.contains(message))
        #expect(!out.notify.contains { $0.hasSuffix("state:StateChanged") })
    }

    @Test("a pattern file is loaded by the worker; a missing file and a broken MIDI file are rejected with the reason")
    func patternFile() throws {
        let dir = try PluginProcess.folder([
            "script.transport": rolling120 + "1000 pattern-file p2.pattern\n26000 pattern-file missing.pattern\n50000 pattern-file song.mid\n60000 get patternFile\n80000 end\n",
            "pattern.pattern": oneNote, "p2.pattern": "tactus-pattern 1\nlength 1\nnote 1/2 1/4 67 100\n", "song.mid": "MThd",
        ])
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = try PluginProcess.run(in: dir, blocks: "1000")
        #expect(out.midi.map(EventLog.line).prefix(3) == ["0 90 3c 64", "6000 80 3c 00", "12000 90 43 64"])
        #expect(out.notify.contains { $0.contains("urn:tactus:error") && $0.contains("missing.pattern: No such file or directory") })
        #expect(out.notify.contains { $0.contains("urn:tactus:error") && $0.contains("song.mid: byte 4: the file ends after 4 bytes, inside the header chunk") })
        #expect(out.notify.contains { $0.hasPrefix("60000 patch:Set patch:property=urn:tactus:patternFile patch:value=/") && $0.hasSuffix("/p2.pattern") })
    }

    @Test("a Standard MIDI File is imported by the worker (docs/midi-files.md M10-M15), plays, and is saved as its text and its path")
    func midiPatternFile() throws {
        let dir = try PluginProcess.folder([
            "script.transport": rolling120 + "1000 pattern-file groove.mid\n120000 end\n", "pattern.pattern": oneNote,
        ])
        defer { try? FileManager.default.removeItem(at: dir) }
        // Format 0, 96 PPQ: E4 at beat 1 for half a beat, then a program change (kept as a point, M15a).
        let groove: [UInt8] = [
            0x4D, 0x54, 0x68, 0x64, 0, 0, 0, 6, 0, 0, 0, 1, 0, 0x60,
            0x4D, 0x54, 0x72, 0x6B, 0, 0, 0, 15,
            0x60, 0x90, 0x40, 0x50, 0x30, 0x80, 0x40, 0x00, 0x00, 0xC0, 0x05, 0x00, 0xFF, 0x2F, 0x00,
        ]
        try Data(groove).write(to: dir.appendingPathComponent("groove.mid"))
        let stateDir = dir.appendingPathComponent("state").path
        let out = try PluginProcess.run(in: dir, blocks: "1000", arguments: ["--save-state", stateDir])
        #expect(out.status == 0, "\(out.stderr)")
        // The new pattern (one 4/4 bar) replaces oneNote after the block of the edit; its
        // program point goes out once, by the chase when it comes in (timing contract §10.4).
        let lines = out.midi.map(EventLog.line)
        #expect(lines.filter { !$0.contains(" c0 ") } == ["0 90 3c 64", "6000 80 3c 00", "24000 90 40 50", "36000 80 40 00"])
        #expect(lines.filter { $0.hasSuffix(" c0 05") }.count == 1, "\(lines)")
        let saved = try String(contentsOfFile: stateDir + "/state.ttl", encoding: .utf8)
        #expect(saved.contains("# imported from a Standard MIDI File: format 0, 96 ticks per quarter note, 1 track"))
        #expect(saved.contains("groove.mid"))
    }

    @Test("a saved state or preset that names only a .mid file finds it relative to the state's folder (state:mapPath) and imports it")
    func midiFileInStateOnly() throws {
        let dir = try PluginProcess.folder([
            "script.transport": rolling120 + "1000 pattern-file groove.mid\n3000 end\n", "pattern.pattern": oneNote,
        ])
        defer { try? FileManager.default.removeItem(at: dir) }
        // Format 0, 96 PPQ, a 3/4 bar: D4 on beat 2 for a beat.
        let groove: [UInt8] = [
            0x4D, 0x54, 0x68, 0x64, 0, 0, 0, 6, 0, 0, 0, 1, 0, 0x60,
            0x4D, 0x54, 0x72, 0x6B, 0, 0, 0, 20,
            0x00, 0xFF, 0x58, 0x04, 0x03, 0x02, 0x18, 0x08, 0x60, 0x90, 0x3E, 0x64, 0x60, 0x80, 0x3E, 0x00, 0x00, 0xFF, 0x2F, 0x00,
        ]
        try Data(groove).write(to: dir.appendingPathComponent("groove.mid"))
        let stateDir = dir.appendingPathComponent("state")
        let first = try PluginProcess.run(in: dir, blocks: "1000", arguments: ["--save-state", stateDir.path])
        #expect(first.status == 0, "\(first.stderr)")
        // Keep only the file: the pattern text goes, the relative <groove.mid> stays.
        let stateFile = stateDir.appendingPathComponent("state.ttl")
        var turtle = try String(contentsOf: stateFile, encoding: .utf8)
        let start = try #require(turtle.range(of: "<urn:tactus:pattern> \"\"\""))
        let end = try #require(turtle.range(of: "\"\"\" ;", range: start.upperBound..<turtle.endIndex))
        turtle.removeSubrange(start.lowerBound..<end.upperBound)
        #expect(turtle.contains("<urn:tactus:patternFile> <groove.mid>"))
        try turtle.write(to: stateFile, atomically: true, encoding: .utf8)

        let replay = try PluginProcess.folder(["script.transport": rolling120 + "150000 end\n"])
        defer { try? FileManager.default.removeItem(at: replay) }
        let restored = try PluginProcess.run(in: replay, blocks: "256", arguments: ["--restore-state", stateDir.path])
        #expect(restored.status == 0, "\(restored.stderr)")
        // One 3/4 bar (72000 frames at 120 bpm): D4 at beat 1 of each bar, for a beat.
        #expect(restored.midi.map(EventLog.line) == ["24000 90 3e 64", "48000 80 3e 00", "96000 90 3e 64", "120000 80 3e 00"])
    }

    @Test("patch:Get answers with the pattern text on the notify port")
    func patchGet() throws {
        let dir = try PluginProcess.folder(["script.transport": rolling120 + "1000 get pattern\n2000 end\n", "pattern.pattern": oneNote])
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = try PluginProcess.run(in: dir, blocks: "500")
        #expect(out.notify.contains("1000 patch:Set patch:property=urn:tactus:pattern patch:value=tactus-pattern 1\\nlength 1\\nnote 0 1/4 60 100\\n"))
    }

    @Test("a session saved and reloaded plays the same notes")
    func saveAndRestore() throws {
        let edited = "tactus-pattern 1\nlength 3/2\n# edited\nnote 0 1/3 62 77\nnote 1 1/7 65 88 3\n"
        let dir = try PluginProcess.folder([
            "script.transport": rolling120 + "3000 pattern edited.pattern\n10000 end\n", "pattern.pattern": oneNote, "edited.pattern": edited,
        ])
        defer { try? FileManager.default.removeItem(at: dir) }
        let stateDir = dir.appendingPathComponent("state").path
        let first = try PluginProcess.run(in: dir, arguments: ["--save-state", stateDir])
        #expect(first.status == 0, "\(first.stderr)")
        let saved = try String(contentsOfFile: stateDir + "/state.ttl", encoding: .utf8)
        #expect(saved.contains("# edited"))

        // A new instance restored from the saved state plays the edited pattern from its first block.
        let replay = try PluginProcess.folder(["script.transport": rolling120 + "200000 end\n", "pattern.pattern": edited])
        defer { try? FileManager.default.removeItem(at: replay) }
        try FileManager.default.removeItem(at: replay.appendingPathComponent("pattern.pattern"))
        let restored = try PluginProcess.run(in: replay, arguments: ["--restore-state", stateDir])
        #expect(restored.status == 0, "\(restored.stderr)")
        try edited.write(to: replay.appendingPathComponent("pattern.pattern"), atomically: true, encoding: .utf8)
        let expected = try PluginProcess.expected(in: replay, blocks: "256")
        #expect(expected.count > 10)
        #expect(difference(restored.midi, expected, ("restored", "edited pattern")) == nil)
    }

    @Test("a host without a worker gets a clear error for edits; the pattern stays")
    func noWorker() throws {
        let dir = try PluginProcess.folder([
            "script.transport": rolling120 + "1000 pattern p.pattern\n30000 end\n", "pattern.pattern": oneNote, "p.pattern": oneNote,
        ])
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = try PluginProcess.run(in: dir, blocks: "1000", arguments: ["--no-worker"])
        #expect(out.midi.map(EventLog.line) == ["0 90 3c 64", "6000 80 3c 00", "24000 90 3c 64"])
        #expect(out.notify.contains { $0.contains("urn:tactus:error") && $0.contains("provides no worker") })
    }

    @Test("an edit of any size passes a 64-byte worker ring: the text travels in the inbox, the request only names it")
    func editLargerThanTheWorkerRing() throws {
        let dir = try PluginProcess.folder([
            "script.transport": rolling120 + "1000 pattern p.pattern\n3000 end\n", "pattern.pattern": oneNote,
            "p.pattern": oneNote + String(repeating: "# padding\n", count: 20),
        ])
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = try PluginProcess.run(in: dir, blocks: "1000", arguments: ["--worker-ring", "64"])
        #expect(out.notify.contains { $0.hasSuffix("state:StateChanged") })
        #expect(!out.notify.contains { $0.contains("urn:tactus:error") && $0.contains("rejected") })
    }

    @Test("a worker ring too small for even a request: the edit is refused with advice")
    func workerRingTooSmallForARequest() throws {
        let dir = try PluginProcess.folder([
            "script.transport": rolling120 + "1000 pattern p.pattern\n3000 end\n", "pattern.pattern": oneNote, "p.pattern": oneNote,
        ])
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = try PluginProcess.run(in: dir, blocks: "1000", arguments: ["--worker-ring", "32"])
        #expect(out.notify.contains { $0.contains("worker had no room for") && $0.contains("try again") })
    }
}

@Suite("Plugin: ports, blocks and deactivation")
struct PluginRobustnessTests {
    @Test("unconnected ports and zero-length blocks do not crash, and what is connected still works")
    func unconnectedPortsAndEmptyBlocks() throws {
        let dir = try PluginProcess.folder(["script.transport": rolling120 + "5000 get\n60000 end\n", "pattern.pattern": oneNote])
        defer { try? FileManager.default.removeItem(at: dir) }
        for ports in ["control", "midi", "notify", "control,midi,notify"] {
            let out = try PluginProcess.run(in: dir, blocks: "0,256,0,1", arguments: ["--disconnect", ports])
            #expect(out.status == 0, "\(ports): \(out.stderr)")
            if ports == "notify" { #expect(out.midi.count == 6) }
        }
        let out = try PluginProcess.run(in: dir, blocks: "0,256,0,1")
        #expect(out.midi.map(EventLog.line) == ["0 90 3c 64", "6000 80 3c 00", "24000 90 3c 64", "30000 80 3c 00", "48000 90 3c 64", "54000 80 3c 00"])
    }

    @Test("deactivation ends sounding notes at the next block and forgets the transport")
    func deactivation() throws {
        let dir = try PluginProcess.folder(["script.transport": rolling120 + "60000 end\n", "pattern.pattern": "tactus-pattern 1\nlength 1\nnote 0 1/2 60 100\n"])
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = try PluginProcess.run(in: dir, blocks: "1000", arguments: ["--deactivate-at", "3000"])
        // The note from frame 0 ends at 3000 (the first block after reactivation); then silence, as no position comes.
        #expect(out.midi.map(EventLog.line) == ["0 90 3c 64", "3000 80 3c 00"])
    }

    @Test("a small MIDI buffer keeps note-offs, drops note-ons, and reports the count on notify")
    func smallOutputBuffer() throws {
        var pattern = "tactus-pattern 1\nlength 1\n"
        for key in 30..<90 { pattern += "note 0 1/2 \(key) 100\n" }
        let dir = try PluginProcess.folder(["script.transport": rolling120 + "30000 position speed=0\n40000 end\n", "pattern.pattern": pattern])
        defer { try? FileManager.default.removeItem(at: dir) }
        // 24 bytes an event: a 1032-byte buffer holds 42 events after the 16-byte sequence header.
        // A note-on is written only with room kept for its note-off: 21 of the 60 notes at each of
        // the two loop starts before the stop; the other 78 are dropped and counted.
        let out = try PluginProcess.run(in: dir, blocks: "256", arguments: ["--midi-capacity", "1032"])
        var sounding = Set<Int>()
        for e in out.midi {
            if e.isNoteOn { sounding.insert(e.slot) } else if e.isNoteOff { #expect(sounding.remove(e.slot) != nil) }
        }
        #expect(sounding.isEmpty, "notes left sounding: \(sounding)")
        #expect(out.midi.filter(\.isNoteOn).count == 21 + 21)
        #expect(out.notify.contains { $0.contains("urn:tactus:droppedNoteOns patch:value=78") })
    }
}
