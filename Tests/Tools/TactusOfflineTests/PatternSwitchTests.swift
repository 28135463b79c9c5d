import Testing
import TactusEngine
import TactusModel
import TactusOffline
import TactusTestSupport

// Timing contract §9: switches and songs to the frame, through the engine
// every surface runs (OfflineRender is `tactus render`).

/// Note-ons without their note-off at the end of a log.
private func stuckNotes(_ events: [LoggedEvent]) -> Int {
    var sounding = Set<Int>()
    for e in events where e.bytes.count == 3 {
        let slot = Int(e.bytes[0] & 0x0F) * 128 + Int(e.bytes[1])
        if e.bytes[0] & 0xF0 == 0x90 && e.bytes[2] > 0 { sounding.insert(slot) }
        if e.bytes[0] & 0xF0 == 0x80 || (e.bytes[0] & 0xF0 == 0x90 && e.bytes[2] == 0) { sounding.remove(slot) }
    }
    return sounding.count
}

private func patterns(switchLine: String) -> String {
    SwitchTexts.fourAndThree(header: switchLine + "\ntrigger program")
}

/// 120 bpm at 48 kHz: one beat is 24000 frames. A program change 1 (pattern 2) at `frame`.
private func requestScript(at frame: Int, end: Int = 300_000, action: String = "midi c0 01") -> String {
    "tactus-transport 1\nrate 48000\n0 tempo 120\n0 play\n\(frame) \(action)\n\(end) stop\n\(end + 1000) end\n"
}

@Suite("Patterns and songs (timing contract §9)")
struct PatternSwitchTests {
    @Test("§9.2-§9.4 worked example: a request in bar 2 switches at bar 3 (beat 8), 4 beats to 3; restart plays from its start, keep from beat 8 mod 3 = 2")
    func nextBar() throws {
        let restart = try render(patterns(switchLine: "switch at bar"), requestScript(at: 126_000))
        // The 3-beat note of beat 6 is cut at beat 8 (notes cut): its note-off first, then pattern 2's program, then its first onset (origin 8).
        let restartLines = lines(restart)
        let at = try #require(restartLines.firstIndex(of: "192000 80 3e 00"))
        #expect(Array(restartLines[at..<(at + 4)]) == ["192000 80 3e 00", "192000 c0 14", "192000 90 40 5a", "204000 80 40 00"])

        let keep = try render(patterns(switchLine: "switch at bar phase keep"), requestScript(at: 126_000))
        let keepLines = lines(keep)
        let k = try #require(keepLines.firstIndex(of: "192000 80 3e 00"))
        // Phase keep: origin 0, beat 8 is beat 2 of the 3-beat pattern: G4 at once, then E4 at beat 9.
        #expect(Array(keepLines[k..<(k + 5)]) == ["192000 80 3e 00", "192000 c0 14", "192000 90 43 5a", "204000 80 43 00", "216000 90 40 5a"])
    }

    @Test("§9.2 grace: a request one frame after a bar start takes that bar with grace 1/8 (switching at once, beat 4's onset lost), the next without")
    func grace() throws {
        let late = 96_001  // one frame after beat 4
        let withGrace = lines(try render(patterns(switchLine: "switch at bar grace 1/8"), requestScript(at: late)))
        let g = try #require(withGrace.firstIndex(of: "96001 c0 14"))
        // Note-offs first: pattern 1's notes (C4 of beat 4, D4 of beat 2) are cut at the switch.
        #expect(Set(withGrace[(g - 2)..<g]) == ["96001 80 3c 00", "96001 80 3e 00"])
        // Origin 4: the pattern's onset at beat 4 is not played; its next is beat 5.
        #expect(withGrace[g + 1] == "120000 90 41 5a")
        let without = lines(try render(patterns(switchLine: "switch at bar"), requestScript(at: late)))
        #expect(without.contains("192000 c0 14"))
        #expect(!without.contains { $0.hasSuffix("c0 14") && !$0.hasPrefix("192000") })
    }

    @Test("§9.5: a song is a function of the beat: entry starts inside blocks, a relocation into an entry sends its program, then plays from there")
    func song() throws {
        let text = """
            tactus-pattern 3
            pattern a program 1
            lane x length 2
            note 0 1/2 60 100
            pattern b program 2
            lane x length 3
            note 0 1/2 70 100
            note 2 1/2 71 100
            song loop
            play a 2
            play b
            """
        let straight = lines(try render(text, "tactus-transport 1\nrate 48000\n0 tempo 120\n0 play\n500000 stop\n501000 end\n", blocks: .fixed(1000)))
        // Entries at beats 0 (a), 4 (b), 7 (a again: the song loops after 7 beats).
        #expect(straight.prefix(2) == ["0 c0 01", "0 90 3c 64"])
        #expect(straight.contains("96000 c0 02") && straight.contains("168000 c0 01") && straight.contains("264000 c0 02"))
        // A relocation to beat 5 (inside entry b): its program, then what lies at beat 5 and later.
        let located = lines(try render(text, "tactus-transport 1\nrate 48000\n0 tempo 120\n0 play\n200000 locate 5\n300000 end\n"))
        let l = try #require(located.firstIndex(of: "200000 c0 02"))
        #expect(located[l + 1] == "224000 90 47 64")
        #expect(located[l + 3] == "248000 c0 01")
        // The same beats give the same events: beat 6 onward of the located run is beat 6 onward of the straight one.
        let shift = 200_000 - 5 * 24_000
        let fromSix = located.compactMap { line -> String? in
            let parts = line.split(separator: " ", maxSplits: 1)
            guard let f = Int(parts[0]), f >= 224_000 else { return nil }
            return "\(f - shift) \(parts[1])"
        }
        let straightFromSix = straight.filter { Int($0.split(separator: " ")[0])! >= 144_000 && Int($0.split(separator: " ")[0])! < 300_000 - shift }
        #expect(fromSix == straightFromSix)
    }

    @Test("random requests, settings, stops, locates and loops: the same log for any block partition, and no stuck notes")
    func anyPartition() throws {
        var rng = SplitMix64(seed: 29)
        let grids = ["now", "beat", "bar", "bars 2", "end"]
        var switched = 0
        defer { #expect(switched >= 10, "sessions that played another pattern than the first: \(switched)") }
        for session in 0..<40 {
            let grid = grids[Int(rng.next() % 5)]
            let phase = rng.next() % 2 == 0 ? "restart" : "keep"
            let notes = rng.next() % 2 == 0 ? "cut" : "ring"
            let grace = ["0", "1/8", "1/3"][Int(rng.next() % 3)]
            var text = "tactus-pattern 3\nswitch at \(grid) phase \(phase) notes \(notes) grace \(grace)\ntrigger program\n"
            let count = 2 + Int(rng.next() % 3)
            for p in 0..<count {
                text += "pattern p\(p)" + (rng.next() % 2 == 0 ? " program \(p)" : "") + "\n"
                let length = 1 + Int(rng.next() % 5)
                text += "lane x length \(length)/\(1 + rng.next() % 2)\n"
                for n in 0..<(1 + Int(rng.next() % 4)) {
                    text += "note \(n)/8 \(1 + rng.next() % 6)/2 \(40 + p * 5 + n) 100\n"
                }
            }
            if session % 4 == 3 { text += "song \(["loop", "stop", "hold"][Int(rng.next() % 3)])\nplay p0 \(1 + rng.next() % 2)\nplay p1\n" }
            var script = "tactus-transport 1\nrate 48000\n0 tempo \(90 + rng.next() % 60)\n0 play\n"
            var frame = 0
            for _ in 0..<12 {
                frame += 1 + Int(rng.next() % 60_000)
                switch rng.next() % 8 {
                case 0: script += "\(frame) locate \(rng.next() % 40)\n"
                case 1: script += "\(frame) stop\n\(frame + 5000) play\n"; frame += 5000
                case 2: script += "\(frame) tempo \(80 + rng.next() % 100)\n"
                case 3: script += "\(frame) meter \(2 + rng.next() % 5)\n"
                default: script += "\(frame) midi c0 \(String(rng.next() % UInt64(count + 1), radix: 16))\n"
                }
            }
            script += "\(frame + 10_000) stop\n\(frame + 20_000) end\n"
            let reference = try render(text, script, blocks: .fixed(256))
            if reference.contains(where: { $0.bytes[0] & 0xF0 == 0x90 && $0.bytes[1] >= 45 }) { switched += 1 }
            for plan in [BlockPlan.fixed(1), .fixed(64), .fixed(4096), .random(minimum: 1, maximum: 2000, seed: UInt64(session))] {
                let other = try render(text, script, blocks: plan)
                #expect(other == reference, "session \(session), blocks \(plan):\n\(text)\n\(script)")
                if other != reference { return }
            }
            #expect(stuckNotes(reference) == 0, "session \(session):\n\(text)\n\(script)")
        }
    }

    @Test("a script's 'request NAME' (tactus jack's 'play NAME', journaled) plays as the trigger of the same pattern at that frame; 'request NAME WHEN' takes its own grid; an unknown name is a warning and no request")
    func requestByName() throws {
        let text = patterns(switchLine: "switch at bar")
        for frame in [0, 126_000, 192_000, 200_017] {
            let byTrigger = lines(try render(text, requestScript(at: frame)))
            let byName = lines(try render(text, requestScript(at: frame, action: "request three")))
            #expect(byName == byTrigger, "request at \(frame)")
        }
        // `request three now` at 126000: the switch happens at that frame, not at beat 8.
        let now = lines(try render(text, requestScript(at: 126_000, action: "request three now")))
        #expect(now.contains("126000 c0 14"))
        #expect(!now.contains("192000 c0 14"))
        let script = try TransportScript(parsing: requestScript(at: 1000, action: "request five"))
        let bytes = Array(text.utf8)
        let report = OfflineRender(script: script, sampleRate: 48000, blocks: .fixed(256)).run(
            pattern: try PatternParser.parse(bytes: bytes), patternText: bytes, loadPattern: { _ in .failure(PatternLoadError("no edits")) },
            onBlock: { _, _ in })
        #expect(report.requestFailures == ["frame 1000: request 'five': the text playing has no pattern of that name (its patterns: 'four', 'three')"])
        #expect(throws: TransportScriptError.self) { try TransportScript(parsing: "tactus-transport 1\n0 request three soon\n10 end\n") }
        #expect(throws: TransportScriptError.self) { try TransportScript(parsing: "tactus-transport 1\n0 request\n10 end\n") }
    }

    @Test("§9.7: an edit keeps the playing pattern by name (its phase too) and a pending request whose target's name survives (its boundary too); a renamed target drops the request, a renamed playing pattern gives way to the new text's first")
    func editKeepsPlayingAndPending() throws {
        let text = patterns(switchLine: "switch at bar")
        /// Renders with `edited` installed by a script edit at frame 150,000 (between the request at 126,000 and its boundary, beat 8 = 192,000).
        func withEdit(_ edited: String) throws -> [String] {
            let script = try TransportScript(parsing: "tactus-transport 1\nrate 48000\n0 tempo 120\n0 play\n126000 midi c0 01\n150000 pattern edited.pattern\n300000 stop\n301000 end\n")
            let bytes = Array(text.utf8)
            var events: [LoggedEvent] = []
            let report = OfflineRender(script: script, sampleRate: 48000, blocks: .fixed(256)).run(
                pattern: try PatternParser.parse(bytes: bytes), patternText: bytes,
                loadPattern: { _ in
                    do { return .success((try PatternParser.parse(edited), Array(edited.utf8))) } catch { return .failure(PatternLoadError("\(error)")) }
                },
                onBlock: { e, _ in events += e })
            #expect(report.editFailures.isEmpty, "\(report.editFailures)")
            return lines(events)
        }
        let unedited = lines(try render(text, requestScript(at: 126_000)))
        #expect(unedited.contains("192000 c0 14"))
        // The same patterns in another order, and a new one first: `four` plays on at its phase, `three` still comes at beat 8.
        let reordered = """
            tactus-pattern 3
            trigger program
            pattern two
            lane a length 2
            note 1/2 1/2 50 100
            pattern three program 20
            lane a length 3
            note 0 1/2 64 90
            note 1 1/2 65 90
            note 2 1/2 67 90
            pattern four
            lane a length 4
            note 0 1 60 100
            note 2 3 62 100
            """
        #expect(try withEdit(reordered) == unedited)
        // `three` renamed: the request is dropped, `four` plays on (its D4 of beat 6 rings to beat 9, then C4 at beat 8 as ever).
        let renamedTarget = try withEdit(reordered.replacingOccurrences(of: "pattern three", with: "pattern tri"))
        #expect(!renamedTarget.contains { $0.hasSuffix(" c0 14") })
        #expect(Array(renamedTarget.filter { $0.hasPrefix("192000 ") }) == ["192000 90 3c 64"])
        #expect(renamedTarget.contains("216000 80 3e 00"))
        // `four` renamed: the new text's pattern 1 (`two`) plays from origin 0 from the edit on (its note at beat 6.5;
        // 8.5 is past the switch), and the request, whose target's name survives, switches to `three` at beat 8 as before.
        let renamedPlaying = try withEdit(reordered.replacingOccurrences(of: "pattern four", with: "pattern vier"))
        #expect(renamedPlaying.filter { $0.hasSuffix(" 90 32 64") } == ["156000 90 32 64"])
        #expect(renamedPlaying.contains("192000 c0 14"))
        #expect(!renamedPlaying.contains { $0.hasSuffix(" 90 3c 64") && Int($0.split(separator: " ")[0])! > 150_000 })
    }

    @Test("--annotate names a pattern's bank select and program change as the text spells them")
    func annotations() {
        #expect(LoggedEvent(frame: 0, bytes: [0xC0, 20]).summary == "program 20 ch 1")
        #expect(LoggedEvent(frame: 0, bytes: [0xB9, 0, 3]).summary == "cc 0 = 3 ch 10 (bank select MSB)")
        #expect(LoggedEvent(frame: 0, bytes: [0xB0, 32, 1]).summary == "cc 32 = 1 ch 1 (bank select LSB)")
        #expect(LoggedEvent(frame: 0, bytes: [0xB0, 7, 100]).summary == "cc 7 = 100 ch 1")
    }
}
