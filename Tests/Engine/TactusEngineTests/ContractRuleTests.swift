import Testing
import TactusEngine
import TactusModel
import TactusOffline

/// Each rule of the timing contract (docs/timing-contract.md), pinned by a
/// small session whose frames are computed by hand in the comments.
/// 120 bpm at 48 kHz: one beat is 24000 frames; at 44.1 kHz, 22050 frames.

/// The log of a session as `FRAME BB BB BB` lines.
func log(_ pattern: String, _ script: String, blocks: BlockPlan = .fixed(256), patterns: [String: String] = [:], capacity: Int = 1 << 16) throws -> [String] {
    let header = script.hasPrefix("tactus-transport") ? "" : "tactus-transport 1\n"
    let result = try SessionHarness.run(
        pattern: pattern.hasPrefix("tactus-pattern") ? pattern : "tactus-pattern 1\n" + pattern,
        script: header + script, blocks: blocks, patterns: patterns, withReference: false, outputCapacity: capacity)
    return result.core.map(EventLog.line)
}

let start120 = "0 position frame=0 speed=1 bar=0 barBeat=0 beatsPerBar=4 beatsPerMinute=120\n"

@Suite("§1 inputs: keys and where b0 comes from")
struct InputRuleTests {
    @Test("a key the update lacks keeps its last value: barBeat alone uses the last bar and tempo")
    func missingKeysKeepLastValues() throws {
        // 60 bpm: a beat is 48000 frames. At 48000 (beat 1) the host says barBeat=3 (bar 0 kept): a jump to beat 3.
        let events = try log("length 4\nnote 3 1/2 60 100\n", """
            0 position speed=1 bar=0 barBeat=0 beatsPerMinute=60
            48000 position barBeat=3
            100000 end
            """)
        #expect(events == ["48000 90 3c 64", "72000 80 3c 00"])
    }

    @Test("initial values: an update with only speed=1 starts at beat 0, 120 bpm, 4/4")
    func initialValues() throws {
        let events = try log("length 1\nnote 1/2 1/4 60 100\n", "100 position speed=1\n30000 end\n")
        #expect(events == ["12100 90 3c 64", "18100 80 3c 00"])
    }

    @Test("time:beat is used when barBeat is absent")
    func beatKey() throws {
        // Beat 2.5 at frame 0; the onset at beat 3 is 0.5 beat = 12000 frames later.
        let events = try log("length 4\nnote 3 1/4 60 100\n", "0 position speed=1 beat=2.5 beatsPerMinute=120\n20000 end\n")
        #expect(events == ["12000 90 3c 64", "18000 80 3c 00"])
    }

    @Test("bar and barBeat are combined with beatsPerBar: bar 2 of 3/4 at barBeat 1 is beat 7")
    func barTimesBeatsPerBar() throws {
        let events = try log("length 8\nnote 7 1 60 100\nnote 7.5 1/4 62 100\n", "0 position speed=1 bar=2 barBeat=1 beatsPerBar=3 beatsPerMinute=120\n20000 end\n")
        #expect(events == ["0 90 3c 64", "12000 90 3e 64", "18000 80 3e 00"])
    }

    @Test("only time:frame: b0 = frame × T / 60R (JACK with no timebase master)")
    func frameOnly() throws {
        // frame 36000 at the default 120 bpm is beat 1.5: the onset at beat 2 is 12000 frames later.
        let events = try log("length 4\nnote 2 1/4 60 100\n", "500 position frame=36000 speed=1\n20000 end\n")
        #expect(events == ["12500 90 3c 64", "18500 80 3c 00"])
        // With a tempo sent earlier, the frame is converted at that tempo: 36000 frames at 60 bpm is beat 0.75.
        let slow = try log("length 4\nnote 1 1/4 60 100\n", "0 position beatsPerMinute=60\n500 position frame=36000 speed=1\n30000 end\n")
        #expect(slow == ["12500 90 3c 64", "24500 80 3c 00"])
    }
}

@Suite("§2 extrapolation and §3 the frame rule")
struct FrameRuleTests {
    @Test("worked example 1: start at bar 0, a loop of 4 beats, a note crossing the loop end")
    func workedExample1() throws {
        let events = try log("length 4\nnote 0 1/2 60 100\nnote 1/3 1/3 64 90 2\nnote 3.5 1 67 127\n", start120 + "120000 end\n")
        #expect(events == [
            "0 90 3c 64", "8000 91 40 5a", "12000 80 3c 00", "16000 81 40 00", "84000 90 43 7f",
            "96000 90 3c 64", "104000 91 40 5a", "108000 80 3c 00", "108000 80 43 00", "112000 81 40 00",
        ])  // two note-offs on one frame: their order is free; ours is by note-off beat, then channel and key
    }

    @Test("worked example 2: a float barBeat of 0.7 is 0.699999988..., update at offset 10")
    func workedExample2() throws {
        let events = try log("length 4\nnote 1 1/2 60 100\n", "10 position frame=0 speed=1 bar=0 barBeat=0.7 beatsPerBar=4 beatsPerMinute=120\n30000 end\n")
        #expect(events == ["7211 90 3c 64", "19211 80 3c 00"])
    }

    @Test("1/3 and 1/7 beats at 48 kHz and 44.1 kHz")
    func thirdsAndSevenths() throws {
        let pattern = "length 1\nnote 1/3 1/7 60 100\n"
        // 48 kHz: 1/3 beat = 8000 frames; 1/3 + 1/7 = 10/21 beat = 11428.57 frames -> 11429.
        #expect(try log(pattern, start120 + "20000 end\n") == ["8000 90 3c 64", "11429 80 3c 00"])
        // 44.1 kHz: 1/3 beat = 7350; 10/21 beat = 10500 exactly.
        #expect(try log(pattern, "rate 44100\n" + start120 + "20000 end\n") == ["7350 90 3c 64", "10500 80 3c 00"])
        // 44.1 kHz at 133 bpm: a beat is 19894.7368 frames; 1/3 -> 6631.58 -> 6632; 10/21 -> 9473.68 -> 9474.
        let fast = "rate 44100\n0 position speed=1 bar=0 barBeat=0 beatsPerMinute=133\n20000 end\n"
        #expect(try log(pattern, fast) == ["6632 90 3c 64", "9474 80 3c 00"])
    }

    @Test("speed scales the rate: at speed 0.5 a beat is 48000 frames")
    func speed() throws {
        let events = try log("length 4\nnote 1 1/2 60 100\n", "0 position speed=0.5 bar=0 barBeat=0 beatsPerMinute=120\n80000 end\n")
        #expect(events == ["48000 90 3c 64", "72000 80 3c 00"])
    }

    @Test("the tolerance: an onset within 1e-4 frame after a frame is emitted on that frame")
    func tolerance() throws {
        // beat (double) chosen so that beat 1 lies 0.00005 frames after frame 100: emitted at 100, not 101.
        let within = 1.0 - 0.00005 / 24000
        #expect(try log("length 4\nnote 1 1/2 60 100\n", "100 position speed=1 beat=\(within):d beatsPerMinute=120\n20000 end\n").first == "100 90 3c 64")
        // 0.0002 frames after: the next frame.
        let beyond = 1.0 - 0.0002 / 24000
        #expect(try log("length 4\nnote 1 1/2 60 100\n", "100 position speed=1 beat=\(beyond):d beatsPerMinute=120\n20000 end\n").first == "101 90 3c 64")
    }

    @Test("an onset on the update's beat is played even when the host's float is a hair above it")
    func onsetAtUpdateBeat() throws {
        // beat 1 + 2e-9: the onset at 1 has x = -4.8e-5 frames > -1e-4: played at the update's frame.
        #expect(try log("length 4\nnote 1 1/2 60 100\n", "300 position speed=1 beat=1.000000002:d beatsPerMinute=120\n20000 end\n").first == "300 90 3c 64")
        // 1e-8 beat above (x = -2.4e-4): before the update's beat, not played.
        #expect(try log("length 4\nnote 1 1/2 60 100\n", "300 position speed=1 beat=1.00000001:d beatsPerMinute=120\n20000 end\n") == [])
    }
}

@Suite("§4 updates while rolling")
struct RollingUpdateTests {
    @Test("worked example 3: a repeat with a new tempo stretches the sounding note")
    func workedExample3() throws {
        let events = try log("length 1\nnote 0 1/2 60 100\n", start120 + "11976 position bar=0 barBeat=0.499 speed=1 beatsPerBar=4 beatsPerMinute=60\n70000 end\n")
        #expect(events == ["0 90 3c 64", "12024 80 3c 00", "36024 90 3c 64", "60024 80 3c 00"])
    }

    @Test("worked example 4: a seek cuts the sounding note and plays the onset at the new position")
    func workedExample4() throws {
        let events = try log("length 4\nnote 0 2 60 100\nnote 2 1 62 100\n", start120 + "25700 position bar=0 barBeat=2 speed=1 beatsPerBar=4 beatsPerMinute=120\n80000 end\n")
        #expect(events == ["0 90 3c 64", "25700 80 3c 00", "25700 90 3e 64", "49700 80 3e 00", "73700 90 3c 64"])
    }

    @Test("worked example 5: host 1/512 beat ahead: a correction, the late onset is played at the update")
    func workedExample5() throws {
        let events = try log("length 1\nnote 0 1/4 60 100\n", start120 + "24000 position bar=0 barBeat=1.001953125 speed=1 beatsPerBar=4 beatsPerMinute=120\n60000 end\n", blocks: .fixed(100))
        #expect(events == ["0 90 3c 64", "6000 80 3c 00", "24000 90 3c 64", "29954 80 3c 00", "47954 90 3c 64", "53954 80 3c 00"])
    }

    @Test("worked example 6: float noise within 1/1920 beat is a repeat: nothing moves")
    func workedExample6() throws {
        let events = try log("length 1\nnote 0 1/4 60 100\n", start120 + "24000 position bar=0 barBeat=1.00002 speed=1 beatsPerBar=4 beatsPerMinute=120\n60000 end\n", blocks: .fixed(100))
        #expect(events == ["0 90 3c 64", "6000 80 3c 00", "24000 90 3c 64", "30000 80 3c 00", "48000 90 3c 64", "54000 80 3c 00"])
    }

    @Test("host behind by 1/512 beat: a correction; the onset already played is not replayed, later ones move")
    func correctionBehind() throws {
        // At 12010 (beat 0.5 + 10/24000) the host says 1/512 beat less. The onset at beat 0.5 went out at
        // 12000 and is not replayed; its note-off at 0.625 now lies 3036.875 frames after 12010 -> 15047;
        // the onset at beat 1 lies 12036.875 frames after 12010 -> 24047.
        let host = 0.5 + 10.0 / 24000 - 1.0 / 512
        let events = try log("length 1/2\nnote 0 1/8 60 100\n", start120 + "12010 position barBeat=\(host):d\n30000 end\n")
        #expect(events == ["0 90 3c 64", "3000 80 3c 00", "12000 90 3c 64", "15047 80 3c 00", "24047 90 3c 64", "27047 80 3c 00"])
    }

    @Test("host behind at an onset's frame: the update acts first, so that onset moves with the correction")
    func correctionBehindAtOnsetFrame() throws {
        // At 12000 the host says 0.5 - 1/512 (exact in a float): beat 0.5 is 46.875 frames ahead -> 12047.
        let events = try log("length 1/2\nnote 0 1/8 60 100\n", start120 + "12000 position bar=0 barBeat=0.498046875 speed=1\n30000 end\n")
        #expect(events == ["0 90 3c 64", "3000 80 3c 00", "12047 90 3c 64", "15047 80 3c 00", "24047 90 3c 64", "27047 80 3c 00"])
    }

    @Test("band edges: 1/2048 beat is a repeat, 1/1024 a correction, 1/16 a correction, 1/16 + 1/1024 a jump")
    func bandEdges() throws {
        // A note sounding from beat 0 to 2; the update comes at beat 1 (frame 24000).
        let pattern = "length 4\nnote 0 2 60 100\n"
        func at(_ barBeat: Double) throws -> [String] {
            try log(pattern, start120 + "24000 position barBeat=\(barBeat):d\n60000 end\n")
        }
        #expect(try at(1 + 1.0 / 2048) == ["0 90 3c 64", "48000 80 3c 00"])  // repeat: nothing moves
        #expect(try at(1 + 1.0 / 1024) == ["0 90 3c 64", "47977 80 3c 00"])  // correction: 23.4375 frames earlier
        #expect(try at(1 + 1.0 / 16) == ["0 90 3c 64", "46500 80 3c 00"])  // correction: 1500 frames earlier
        #expect(try at(1 + 1.0 / 16 + 1.0 / 1024) == ["0 90 3c 64", "24000 80 3c 00"])  // jump: cut at once
    }

    @Test("an update exactly on the repeat band's edge is a repeat, despite floating-point noise")
    func exactlyOnTheRepeatEdge() throws {
        // Frame-only positions at speed 0.5 (48000 frames a beat): from host frame 614558 at 142341,
        // 53 frames later the host says 614597, 39 host frames on where we extrapolate 26.5: exactly
        // 12.5/24000 = 1/1920 beat ahead. A repeat: the note-off stays where the first update put it.
        let events = try log("length 1\nnote 0 1/8 60 100\n", "142341 position frame=614558 speed=0.5\n142394 position frame=614597\n200000 end\n")
        // Beat 25.6065833... at 142341: the onset at beat 26 is 0.3934166 beat = 18884 frames later
        // (a correction would have put it at 161200).
        #expect(events == ["161225 90 3c 64", "167225 80 3c 00"])
    }

    @Test("stop cuts every sounding note at its frame; nothing plays while stopped; a start resumes at its beat")
    func stopAndStart() throws {
        let events = try log("length 4\nnote 0 3 60 100\nnote 1 1/2 62 100\nnote 2 1/2 64 100\n", start120 + """
            30000 position speed=0
            40000 position speed=1 bar=0 barBeat=2
            60000 end
            """)
        // The stop at 30000 cuts 60 (due at 72000) and 62 (due at 36000); the start at 40000 plays beat 2 at once.
        #expect(events == ["0 90 3c 64", "24000 90 3e 64", "30000 80 3c 00", "30000 80 3e 00", "40000 90 40 64", "52000 80 40 00"])
    }

    @Test("the host's loop wrapping is a jump: the note crossing the loop end is cut at the wrap")
    func hostLoopWrap() throws {
        // Host loop [0, 2) beats: wraps at frame 48000; the note from beat 1.5 (36000) for 1 beat is cut there.
        let events = try log("length 4\nnote 0 1/4 60 100\nnote 1.5 1 62 100\n", """
            0 tempo 120
            0 loop 0 2
            0 play
            100000 end
            """)
        #expect(events == [
            "0 90 3c 64", "6000 80 3c 00", "36000 90 3e 64", "48000 80 3e 00", "48000 90 3c 64", "54000 80 3c 00",
            "84000 90 3e 64", "96000 80 3e 00", "96000 90 3c 64",
        ])
    }
}

@Suite("§5 order, overlap and edits")
struct OrderRuleTests {
    @Test("a note-off and a note-on on one frame: the note-off first")
    func offBeforeOn() throws {
        let events = try log("length 2\nnote 0 1 60 100\nnote 1 1 62 100\n", start120 + "30000 end\n")
        #expect(events == ["0 90 3c 64", "24000 80 3c 00", "24000 90 3e 64"])
    }

    @Test("an update at a frame decides the onsets at that frame")
    func updateDecidesOnsetsAtItsFrame() throws {
        // At 24000 the onset at beat 1 would sound, but a jump to beat 3 arrives at 24000: beat 3's onset plays instead.
        let events = try log("length 4\nnote 1 1/4 60 100\nnote 3 1/4 64 100\n", start120 + "24000 position barBeat=3\n40000 end\n")
        #expect(events == ["24000 90 40 64", "30000 80 40 00"])
    }

    @Test("CC 123 and CC 120 end the notes sounding before their frame, not a note starting at it; other CCs do nothing")
    func allNotesOff() throws {
        let pattern = "length 2\nnote 0 2 60 100\nnote 1 1/2 62 100\n"
        for cc in ["all-notes-off", "cc 120", "cc 123 0 16"] {
            let events = try log(pattern, start120 + "24000 \(cc)\n40000 end\n")
            #expect(events == ["0 90 3c 64", "24000 80 3c 00", "24000 90 3e 64", "36000 80 3e 00"], "\(cc)")
        }
        let ignored = try log(pattern, start120 + "24000 cc 64 127\n24000 midi 90 3c 64\n40000 end\n")
        #expect(ignored == ["0 90 3c 64", "24000 90 3e 64", "36000 80 3e 00"])
    }

    @Test("retrigger: an onset on a sounding key ends it just before; its later note-off is dropped")
    func retrigger() throws {
        let events = try log("length 4\nnote 0 2 60 100\nnote 1 1/2 60 80\n", start120 + "60000 end\n")
        #expect(events == ["0 90 3c 64", "24000 80 3c 00", "24000 90 3c 50", "36000 80 3c 00"])
    }

    @Test("a note shorter than a frame lasts one frame")
    func minimumOneFrame() throws {
        // Start 1/48000 beat = 0.5 frame -> frame 1; its end 0.74 frame would also be frame 1 -> frame 2.
        let events = try log("length 1\nnote 1/48000 1/100000 60 100\n", start120 + "30000 end\n")
        #expect(events == ["1 90 3c 64", "2 80 3c 00", "24001 90 3c 64", "24002 80 3c 00"])
    }

    @Test("same key on the same frame: played once, as the onset whose note-off is latest")
    func sameFrameMerge() throws {
        // Two notes at beat 0 (1/2 and 1 beat): one note-on with the longer note's velocity, off at beat 1.
        #expect(try log("length 4\nnote 0 1/2 60 100\nnote 0 1 60 50\n", start120 + "30000 end\n") == ["0 90 3c 32", "24000 80 3c 00"])
        // A tie on the note-off beat: the earlier line wins.
        #expect(try log("length 4\nnote 0 1 60 100\nnote 0 1 60 50\n", start120 + "30000 end\n") == ["0 90 3c 64", "24000 80 3c 00"])
        // Different starts on one frame (0.5 and 0.8 frame -> frame 1): the later start has the later end here.
        #expect(try log("length 4\nnote 1/48000 1/2 60 100\nnote 1/30000 1/2 60 70\n", start120 + "30000 end\n") == ["1 90 3c 46", "12001 80 3c 00"])
        // Different channels are different notes.
        #expect(try log("length 4\nnote 0 1/2 60 100\nnote 0 1 60 50 2\n", start120 + "30000 end\n") == ["0 90 3c 64", "0 91 3c 32", "12000 80 3c 00", "24000 81 3c 00"])
    }

    @Test("same key on the same frame across a loop boundary: a tie on the note-off beat keeps the earlier start, exactly")
    func sameFrameMergeAcrossTheLoop() throws {
        // Loop 1/5 beat = 4800 frames. Note A starts 0.19999 (4799.76 frames -> 4800) and ends at 3/10;
        // note B starts at the next pass (4800) and ends at 1/5 + 1/10 = 3/10 too: a tie, which A (the
        // earlier start) wins, in every pass, although 0.2 + 0.1 rounds above 0.3 in binary.
        let events = try log("length 1/5\nnote 0.19999 0.10001 60 100\nnote 0 1/10 60 50\n", start120 + "14000 end\n")
        #expect(events == ["0 90 3c 32", "2400 80 3c 00", "4800 90 3c 64", "7200 80 3c 00", "9600 90 3c 64", "12000 80 3c 00"])
    }

    @Test("a pattern edit takes effect at the start of the block after the one it arrived in; sounding notes keep their note-offs")
    func patternEditTiming() throws {
        // Blocks of 1000 frames. The edit arrives at 5500 (block 5000-5999): the new pattern plays from 6000.
        // The old note (beat 0, 1 beat long) keeps its note-off at 24000.
        let new = "tactus-pattern 1\nlength 1/8\nnote 0 1/16 64 100\n"
        let events = try log("length 4\nnote 0 1 60 100\n", start120 + "5500 pattern new\n25000 end\n", blocks: .fixed(1000), patterns: ["new": new])
        // 1/8 beat = 3000 frames: the new pattern's onsets at or after 6000 are at 6000, 9000, ...
        #expect(events.prefix(4) == ["0 90 3c 64", "6000 90 40 64", "7500 80 40 00", "9000 90 40 64"])
        #expect(events.contains("24000 80 3c 00"))
    }

    @Test("a rejected pattern edit keeps the pattern in use")
    func rejectedEditKeepsPattern() throws {
        let broken = "tactus-pattern 1\nlength 4\nnote 5 1 60 100\n"
        let result = try SessionHarness.run(
            pattern: "tactus-pattern 1\nlength 1\nnote 0 1/4 60 100\n", script: "tactus-transport 1\n" + start120 + "1000 pattern bad\n50000 end\n",
            blocks: .fixed(256), patterns: ["bad": broken], withReference: false)
        #expect(result.core.map(EventLog.line) == ["0 90 3c 64", "6000 80 3c 00", "24000 90 3c 64", "30000 80 3c 00", "48000 90 3c 64"])
        #expect(result.report.editFailures.first?.message == "line 3: note start must be less than the pattern length")
    }

    @Test("re-activation (reading (e)) ends every sounding note at the next block and forgets the transport")
    func deactivation() throws {
        var renderer = BlockRenderer(sampleRate: 48000)
        var out = MIDIEventBuffer(storageCapacity: 64)
        let snapshot = PatternSnapshot.make(try PatternParser.parse("tactus-pattern 1\nlength 1\nnote 0 1/2 60 100\nnote 0 1/2 64 100 3\n"))
        _ = renderer.install(snapshot)
        renderer.beginBlock(frameCount: 256, output: &out)
        renderer.apply(PositionUpdate(speed: 1, bar: 0, barBeat: 0, beatsPerMinute: 120), atOffset: 0, output: &out)
        renderer.endBlock(output: &out)
        #expect(out.count == 2)
        renderer.activate()
        renderer.beginBlock(frameCount: 256, output: &out)
        renderer.endBlock(output: &out)
        #expect(Array(out.events) == [MIDIEvent(offset: 0, status: 0x80, data1: 60, data2: 0), MIDIEvent(offset: 0, status: 0x82, data1: 64, data2: 0)])
        #expect(!renderer.clock.isRolling)
        renderer.beginBlock(frameCount: 48000, output: &out)
        renderer.endBlock(output: &out)
        #expect(out.count == 0)
        renderer.install(nil)?.destroy()
    }

    @Test("activating a fresh renderer, once or twice, changes nothing it plays")
    func activationOfAFreshRenderer() throws {
        func played(activations: Int) throws -> [MIDIEvent] {
            var renderer = BlockRenderer(sampleRate: 48000)
            var out = MIDIEventBuffer(storageCapacity: 64)
            _ = renderer.install(PatternSnapshot.make(try PatternParser.parse("tactus-pattern 1\nlength 1\nnote 1/3 1/2 60 100\n")))
            for _ in 0..<activations { renderer.activate() }
            var events: [MIDIEvent] = []
            for block in 0..<4 {
                renderer.beginBlock(frameCount: 24000, output: &out)
                if block == 0 { renderer.apply(PositionUpdate(speed: 1, bar: 0, barBeat: 0, beatsPerMinute: 120), atOffset: 0, output: &out) }
                renderer.endBlock(output: &out)
                events += out.events.map { MIDIEvent(offset: $0.offset + Int64(24000 * block), status: $0.status, data1: $0.data1, data2: $0.data2) }
            }
            renderer.install(nil)?.destroy()
            return events
        }
        let once = try played(activations: 1)
        #expect(once.count == 8)
        #expect(try played(activations: 0) == once)
        #expect(try played(activations: 2) == once)
    }
}

@Suite("§6 limits and bad input")
struct LimitRuleTests {
    @Test("bad updates are ignored as a whole; the last good state stays")
    func badUpdatesIgnored() throws {
        let pattern = "length 1\nnote 0 1/4 60 100\nnote 1/2 1/4 62 100\n"
        let clean = try log(pattern, start120 + "100000 end\n")
        for bad in [
            "barBeat=nan:d", "barBeat=inf:d", "beatsPerMinute=1001", "beatsPerMinute=-1", "speed=1001", "speed=-1001",
            "beatsPerBar=0", "beatsPerBar=-4", "beat=4294967297:d", "bar=2000000000", "barBeat=x:s", "speed=fast:s",
            "frame=1e300:d", "barBeat=0 beatsPerMinute=nan:d",
        ] {
            let events = try log(pattern, start120 + "30000 position \(bad)\n100000 end\n")
            #expect(events == clean, "\(bad)")
        }
    }

    @Test("a loop shorter than a block wraps as many times as it must")
    func tinyLoop() throws {
        // 1/100 beat = 240 frames; blocks of 8192 frames hold 34 passes.
        let events = try log("length 1/100\nnote 0 1/200 60 100\n", start120 + "8192 end\n", blocks: .fixed(8192))
        let ons = events.filter { $0.contains(" 90 ") }
        #expect(ons.count == 35)
        #expect(ons.prefix(3) == ["0 90 3c 64", "240 90 3c 64", "480 90 3c 64"])
        #expect(events.contains("120 80 3c 00"))
    }

    @Test("block lengths of 0, 1, odd sizes and 8192 give the same log")
    func anyBlockLength() throws {
        let pattern = "length 7/3\nnote 0 1/3 60 100\nnote 1/7 2 62 90\nnote 2 1/2 64 80\n"
        let script = start120 + "50000 position barBeat=1.5\n90000 position speed=0\n95000 position speed=1\n200000 end\n"
        let reference = try log(pattern, script, blocks: .fixed(256))
        for plan in [BlockPlan.cycle([0, 1, 0, 7]), .fixed(8192), .fixed(1), .cycle([0, 4095, 3, 8192]), .random(minimum: 0, maximum: 8192, seed: 9)] {
            #expect(try log(pattern, script, blocks: plan) == reference, "\(plan)")
        }
    }

    @Test("however dense the pattern, a block's work is bounded and every note-on still gets its note-off")
    func boundedWork() throws {
        // A loop of 1/2147483647 beat at 1000 bpm and 8 kHz: millions of onsets per frame.
        let pattern = "length 1/2147483647\nnote 0 1/2147483647 60 100\n"
        let script = "rate 8000\n0 position speed=1000 bar=0 barBeat=0 beatsPerMinute=1000\n16384 position speed=0\n20000 end\n"
        let result = try SessionHarness.run(pattern: "tactus-pattern 1\n" + pattern, script: "tactus-transport 1\n" + script, blocks: .fixed(8192), withReference: false, outputCapacity: 512)
        #expect(result.report.statistics.droppedNoteOns > 1_000_000)
        #expect(invariantViolations(result, endsStopped: true).isEmpty)
    }

    @Test("a full output buffer keeps note-offs and drops note-ons, counted")
    func overflowKeepsNoteOffs() throws {
        // 40 keys start together and stop together; the block can hold 16 events.
        var pattern = "length 1\n"
        for key in 40..<80 { pattern += "note 0 1/2 \(key) 100\n" }
        let result = try SessionHarness.run(
            pattern: "tactus-pattern 1\n" + pattern, script: "tactus-transport 1\n" + start120 + "30000 position speed=0\n40000 end\n",
            blocks: .fixed(256), withReference: false, outputCapacity: 16)
        #expect(invariantViolations(result, endsStopped: true).isEmpty)
        let ons = result.core.filter(\.isNoteOn).count
        // A note-on is admitted while it and its note-off fit beside the note-offs every sounding note
        // keeps room for: 8 note-ons + 8 reserved note-offs fill 16. Two loop starts before the stop.
        #expect(ons == 8 + 8)
        #expect(result.report.statistics.droppedNoteOns == 2 * 40 - Int64(ons))
    }
}
