import Testing
import TactusEngine
import TactusModel
import TactusOffline
import TactusTestSupport

// Pattern format version 2 (docs/pattern-format.md, "Version 2") and the
// timing contract's §7. At 120 bpm and 48 kHz a beat is 24000 frames; at
// 44.1 kHz, 22050.

/// The example of the issue and of the pattern format's "Version 2".
private let issueExample = """
    tactus-pattern 2
    seed 7
    lane kick length 4
    note 0 1/4 36 110 10
    note 5/2 1/4 36 90 10 prob=1/2
    lane hats length 3/2 swing 2/3 1/4
    note 0 1/8 42 80 10
    note 1/4 1/8 42 60 10 prob=0.7
    lane bass length 7 follow 48
    note 0 1/2 36 100
    note 3/2 1/4 43 90

    """

private func q(_ n: Int64, _ d: Int64 = 1) -> BeatRational { BeatRational(numerator: n, denominator: d)! }

private func rejection(_ text: String) -> PatternError? {
    do {
        _ = try PatternParser.parse(text)
        return nil
    } catch {
        return error
    }
}

/// The log of a version-2 session (the pattern text used as is).
private func log2(_ pattern: String, _ script: String, blocks: BlockPlan = .fixed(256), rate: Double = 48000) throws -> [String] {
    let result = try SessionHarness.run(
        pattern: pattern, script: "tactus-transport 1\n" + (rate == 48000 ? "" : "rate \(Int(rate))\n") + script, blocks: blocks,
        withReference: false)
    return result.core.map(EventLog.line)
}

@Suite("Pattern format 2: parsing (pattern-format.md, Version 2)")
struct PatternFormat2ParserTests {
    @Test("the issue's example: three lanes, seed 7, a common cycle of 84 beats")
    func issueExampleParses() throws {
        let p = try PatternParser.parse(issueExample)
        #expect(p.version == 2)
        #expect(p.seed == 7)
        #expect(p.laneList.map { String(decoding: $0.name, as: UTF8.self) } == ["kick", "hats", "bass"])
        #expect(p.laneList.map(\.length) == [q(4), q(3, 2), q(7)])
        #expect(p.laneList[1].swingRatio == q(2, 3) && p.laneList[1].swingGrid == q(1, 4))
        #expect(p.laneList[2].followRoot == 48 && p.laneList[2].followChannel == 0)
        #expect(p.length == q(84))  // lcm(4, 3/2, 7)
        #expect(p.notes.map(\.lane) == [0, 0, 1, 1, 2, 2])
        #expect(p.notes.map(\.probability) == [q(1), q(1, 2), q(1), q(7, 10), q(1), q(1)])
        #expect(p.notes.map(\.channel) == [10, 10, 10, 10, 1, 1])
    }

    @Test("a lane's channel is the channel of its notes that name none; options in any order; follow ... in C")
    func laneOptions() throws {
        let p = try PatternParser.parse("tactus-pattern 2\nlane a length 2 follow C3 in 2 channel 5 swing 0.6 1/8\nnote 0 1 60 100\nnote 1 1 60 100 3\n")
        #expect(p.notes.map(\.channel) == [5, 3])
        #expect(p.laneList[0].followRoot == 48 && p.laneList[0].followChannel == 2)
        #expect(p.laneList[0].swingRatio == q(3, 5))
    }

    @Test("version 1 keeps its meaning: one lane 'main', seed 0")
    func version1IsOneLane() throws {
        let p = try PatternParser.parse("tactus-pattern 1\nlength 4\nnote 0 1 60 100\n")
        #expect(p.version == 1 && p.lanes.count == 1 && p.lanes[0].name == Array("main".utf8) && p.seed == 0)
    }

    @Test("every version-2 error of the table, with its line and exact text")
    func errorTable() {
        let cases: [(String, Int, String)] = [
            ("tactus-pattern 4\nlength 4\n", 1, "unsupported pattern format version '4' (this reader knows versions 1, 2 and 3)"),
            ("length 4\n", 1, "the first statement must be 'tactus-pattern 1', 'tactus-pattern 2' or 'tactus-pattern 3'"),
            ("tactus-pattern 2\nlength 4\n", 2, "'length' belongs to version 1 (in version 2 each 'lane' has its own length)"),
            ("tactus-pattern 2\nnote 0 1 60 100\n", 2, "a note in version 2 must follow a 'lane' line"),
            ("tactus-pattern 2\nseed 1\n", 3, "the pattern has no 'lane' statement"),
            ("tactus-pattern 2\nlane kick\n", 2, "'lane' takes NAME length L [channel C] [swing R G] [follow ROOT [in C]], found 1"),
            ("tactus-pattern 2\nlane k!ck length 4\n", 2, "lane name 'k!ck' must be 1-32 letters, digits, '-' or '_'"),
            ("tactus-pattern 2\nlane kick length 4\nlane kick length 2\n", 3, "lane 'kick' is defined twice (first on line 2)"),
            ("tactus-pattern 2\nlane a length 4 swang 2/3 1/4\n", 2, "unknown lane option 'swang' (expected 'channel', 'swing' or 'follow')"),
            ("tactus-pattern 2\nlane a length 4 swing 2/3 1/4 swing 3/5 1/8\n", 2, "lane option 'swing' is given twice"),
            ("tactus-pattern 2\nlane a length 4 swing 1 1/4\n", 2, "swing ratio must be greater than 0 and less than 1"),
            ("tactus-pattern 2\nlane a length 4 swing 2/3 0\n", 2, "swing grid must be greater than 0"),
            ("tactus-pattern 2\nlane a length 0\n", 2, "length must be greater than 0"),
            ("tactus-pattern 2\nseed\n", 2, "'seed' takes 1 field (an integer 0-4294967295), found 0"),
            ("tactus-pattern 2\nseed 4294967296\nlane a length 1\n", 2, "seed must be 0-4294967295, found 4294967296"),
            ("tactus-pattern 2\nseed 1\nseed 2\n", 3, "seed is given twice (first on line 2)"),
            ("tactus-pattern 2\nlane a length 4\nnote 0 1 60 100 prob=0\n", 3, "probability must be greater than 0 and at most 1"),
            ("tactus-pattern 2\nlane a length 4\nnote 0 1 60 100 prob=half\n", 3,
             "probability 'half' is not a number (write an integer, a decimal like 3.5, or a fraction like 1/3)"),
            ("tactus-pattern 1\nlength 4\nseed 3\n", 3, "'seed' needs 'tactus-pattern 2'"),
            ("tactus-pattern 1\nlength 4\nlane a length 4\n", 3, "'lane' needs 'tactus-pattern 2'"),
            ("tactus-pattern 1\nlength 4\nnote 0 1 60 100 prob=1/2\n", 3, "'prob=' needs 'tactus-pattern 2'"),
            ("tactus-pattern 2\nlane a length 2\nnote 2 1 60 100\n", 3, "note start must be less than the lane length"),
            ("tactus-pattern 2\nlane a length 4\ntempo 120\n", 3, "unknown statement 'tempo' (expected 'seed', 'lane' or 'note')"),
            ("tactus-pattern 2\nlane a length 4\nnote 0 1 60\n", 3, "'note' takes START DURATION KEY VELOCITY [CHANNEL] [prob=P], found 3"),
            ("tactus-pattern 2\nlane a length 4 follow 200\n", 2, "root must be 0-127, found 200"),
            ("tactus-pattern 2\nlane a length 4 follow 48 in 17\n", 2, "input channel must be 1-16, found 17"),
            ("tactus-pattern 2\nlane a length 7\nlane b length 1000000/999999\n", 3,
             "the lanes realign only after more than 1000000 beats (lane 'b' of length 1000000/999999 does not fit the others)"),
            ("tactus-pattern 2\nlane a length 1000000\nlane b length 1/4\nnote 0 1/8 60 100\n", 5,
             "the lanes hold more than 1048576 notes over their common cycle of 1000000 beats"),
        ]
        for (text, line, reason) in cases {
            let error = rejection(text)
            #expect(error?.line == line && error?.reasonText == reason, "\(text.debugDescription): \(error?.message ?? "accepted")")
        }
        // The swing limit (pattern format, "Limits (version 2)").
        let fine = rejection("tactus-pattern 2\nlane a length 1 swing 2147483646/2147483647 1/2\nnote 1/2147483629 1/2147483587 60 100\n")
        #expect(fine?.message == "line 3: this note's swung position in the lanes' common cycle needs a numerator or denominator of 2^62 or more")
        let sixtyFive = "tactus-pattern 2\n" + (1...65).map { "lane l\($0) length 1\n" }.joined()
        #expect(rejection(sixtyFive)?.message == "line 66: the pattern has more than 64 lanes")
    }

    @Test("the writer writes version 2 back to an equal pattern")
    func writerRoundTrip() throws {
        let p = try PatternParser.parse(issueExample)
        let again = try PatternParser.parse(PatternWriter.text(for: p))
        #expect(again == p)
    }
}

@Suite("§7 rules, pinned to the frame")
struct LaneRuleTests {
    let start = "0 position frame=0 speed=1 bar=0 barBeat=0 beatsPerBar=4 beatsPerMinute=120\n"

    @Test("§7.1: a 3/2-beat lane against a 4-beat lane drifts and realigns at beat 12 (frame 288000)")
    func polymeterRealigns() throws {
        let events = try log2(
            "tactus-pattern 2\nlane four length 4\nnote 0 1/4 36 100\nlane half length 3/2\nnote 0 1/4 42 80\n",
            start + "288001 end\n")
        // Kick at beats 0, 4, 8 (0, 96000, 192000), hat every 3/2 beat (36000 frames); both at beat 12.
        var expected: [(Int, String)] = []
        for b in stride(from: 0, to: 12, by: 4) { expected.append((b * 24000, "90 24 64")); expected.append((b * 24000 + 6000, "80 24 00")) }
        for k in 0..<8 { expected.append((k * 36000, "90 2a 50")); expected.append((k * 36000 + 6000, "80 2a 00")) }
        expected.append((288000, "90 24 64"))
        expected.append((288000, "90 2a 50"))
        let sorted = expected.enumerated().sorted { a, b in
            if a.element.0 != b.element.0 { return a.element.0 < b.element.0 }
            // Note-offs first, then note-ons in the order of their lines (kick before hat).
            let offA = a.element.1.hasPrefix("80"), offB = b.element.1.hasPrefix("80")
            if offA != offB { return offA }
            return a.offset < b.offset
        }.map { "\($0.element.0) \($0.element.1)" }
        // The end cuts what sounds at 288001.
        #expect(Array(events.prefix(sorted.count)) == sorted)
    }

    @Test("§7.2: swing 2/3 1/4 plays 0, 1/4, 1/2, 3/4 at 0, 1/3, 1/2, 5/6; ends warped too (48 kHz)")
    func swingAt48k() throws {
        let events = try log2(
            "tactus-pattern 2\nlane h length 1 swing 2/3 1/4\nnote 0 1/8 42 80\nnote 1/4 1/8 42 80\nnote 1/2 1/8 42 80\nnote 3/4 1/8 42 80\n",
            start + "24000 end\n")
        #expect(events == [
            "0 90 2a 50", "4000 80 2a 00", "8000 90 2a 50", "10000 80 2a 00",
            "12000 90 2a 50", "16000 80 2a 00", "20000 90 2a 50", "22000 80 2a 00",
        ])
    }

    @Test("§7.2: the same swing at 44.1 kHz: 3/8 → 5/12 beat is frame 9187.5 → 9188")
    func swingAt44k() throws {
        let events = try log2(
            "tactus-pattern 2\nlane h length 1 swing 2/3 1/4\nnote 0 1/8 42 80\nnote 1/4 1/8 42 80\nnote 1/2 1/8 42 80\nnote 3/4 1/8 42 80\n",
            start + "22050 end\n", rate: 44100)
        #expect(events == [
            "0 90 2a 50", "3675 80 2a 00", "7350 90 2a 50", "9188 80 2a 00",
            "11025 90 2a 50", "14700 80 2a 00", "18375 90 2a 50", "20213 80 2a 00",
        ])
    }

    @Test("§7.2: a partial last pair stays straight; an end past the lane's length is warped in its pass")
    func swingEdges() throws {
        // Length 3/4, grid 1/4: one whole pair [0, 1/2) and a partial one. The note at 1/2 lies in
        // the partial pair: straight, 12000 to 15000. A note at 1/4 (played at 1/3, 8000) of
        // duration 3/4 ends at 1 = pass 1 + 1/4, warped to 1/3: beat 3/4 + 1/3 = 13/12 (26000),
        // where pass 1's own onset of it retriggers (§5 rule 3).
        let events = try log2(
            "tactus-pattern 2\nlane h length 3/4 swing 2/3 1/4\nnote 1/4 3/4 60 100\nnote 1/2 1/8 62 100\n",
            start + "18001 end\n")
        #expect(Array(events.prefix(3)) == ["8000 90 3c 64", "12000 90 3e 64", "15000 80 3e 00"])
        let more = try log2(
            "tactus-pattern 2\nlane h length 3/4 swing 2/3 1/4\nnote 1/4 3/4 60 100\n", start + "30001 end\n")
        #expect(Array(more.prefix(3)) == ["8000 90 3c 64", "26000 80 3c 00", "26000 90 3c 64"])
    }

    @Test("§7.5: a follow input in the same frame as an onset transposes it; the key is latched after release and kept by CC 123")
    func followSameFrame() throws {
        let events = try log2(
            "tactus-pattern 2\nlane bass length 1 follow 48\nnote 0 1/4 48 100\n",
            start + "24000 midi 90 3c 64\n30000 midi 80 3c 00\n40000 midi b0 7b 00\n48000 midi 90 3e 64\n60000 midi b0 79 00\n72000 midi 90 ff 00\n80000 end\n")
        #expect(events == [
            "0 90 30 64", "6000 80 30 00",
            "24000 90 3c 64", "30000 80 3c 00",  // input at 24000 acts before the onset at 24000: +12
            "48000 90 3e 64", "54000 80 3e 00",  // note-off (30000) and CC 123 (40000) kept the latch; 62 at 48000: +14
            "72000 90 30 64", "78000 80 30 00",  // CC 121 at 60000 cleared it
        ])
    }

    @Test("§7.5: 'in C' listens to one channel; a transposed key outside 0-127 is skipped; sounding notes keep their key")
    func followChannelAndRange() throws {
        let events = try log2(
            "tactus-pattern 2\nlane a length 1 follow 0 in 2\nnote 0 1/2 120 100\n",
            start + "1 midi 90 3c 64\n12000 midi 91 0a 64\n24000 midi 91 05 64\n40000 end\n")
        // Channel 1's note-on is ignored; channel 2's key 10 at 12000 makes the next onset 130: skipped.
        // The note sounding at 12000 (key 120) still ends at 12000 (1/2 beat) with key 120.
        #expect(events == ["0 90 78 64", "12000 80 78 00", "24000 90 7d 64", "36000 80 7d 00"])
    }

    @Test("§7.4: probability is the contract's hash, the same for any block partition and on a seek back")
    func probabilityIsDeterministic() throws {
        let pattern = "tactus-pattern 2\nseed 7\nlane a length 1\nnote 0 1/8 60 100 prob=1/2\n"
        let script = start + "240000 position frame=240000 speed=1 bar=0 barBeat=0 beatsPerBar=4 beatsPerMinute=120\n480000 end\n"
        let a = try log2(pattern, script)
        let b = try log2(pattern, script, blocks: .random(minimum: 1, maximum: 3000, seed: 5))
        #expect(a == b)
        // Passes 0-9 decided by the written hash, independently of the renderer.
        let key = NoteChance.key(seed: 7, laneNameHash: NoteChance.nameHash(Array("a".utf8)), start: q(0), key: 60, channel: 1, rank: 0)
        let limit = NoteChance.limit(q(1, 2))
        #expect(limit == UInt64(1) << 63 - 1)
        var expected: [String] = []
        for pass in 0..<10 where NoteChance.step(key, UInt64(pass)) < (UInt64(1) << 63) {
            expected.append("\(pass * 24000) 90 3c 64")
        }
        let firstTen = a.filter { $0.hasSuffix("90 3c 64") && Int($0.split(separator: " ")[0])! < 240000 }
        #expect(firstTen == expected)
        #expect(firstTen.count > 0 && firstTen.count < 10)
        // The jump back to beat 0 at 240000 replays the same choices, 240000 frames later.
        let replay = a.filter { $0.hasSuffix("90 3c 64") }.compactMap { Int($0.split(separator: " ")[0]) }.filter { $0 >= 240000 && $0 < 480000 }
        #expect(replay.map { $0 - 240000 } == firstTen.compactMap { Int($0.split(separator: " ")[0]) })
    }

    @Test("§7.6: a muted lane plays no onset from the mute's frame; its sounding note keeps its note-off")
    func mutes() throws {
        let snapshot = PatternSnapshot.make(try PatternParser.parse(
            "tactus-pattern 2\nlane a length 1\nnote 0 1/2 60 100\nlane b length 1\nnote 0 1/4 62 100\n"))
        var events: [String] = []
        var update = PositionUpdate()
        update.speed = 1; update.bar = 0; update.barBeat = 0; update.beatsPerBar = 4; update.beatsPerMinute = 120
        var sequencer = Sequencer(sampleRate: 48000, eventCapacity: 256, pattern: snapshot)
        for block in 0..<(72000 / 1000) {
            _ = sequencer.beginBlock(frameCount: 1000, eventCapacity: 256)
            if block == 0 { sequencer.apply(update, atOffset: 0) }
            if block == 12 { sequencer.apply(.laneMutes(1), atOffset: 500) }  // frame 12500: lane a muted, its note ends at 12000 anyway
            if block == 24 { sequencer.apply(.laneMutes(0), atOffset: 0) }
            if block == 30 { sequencer.setPortMutes(2) }  // frame 30000: lane b muted by a port from then on
            sequencer.endBlock()
            for e in sequencer.events { events.append("\(Int64(block) * 1000 + Int64(e.offset)) \(e.status) \(e.data1)") }
        }
        #expect(events == [
            "0 144 60", "0 144 62", "6000 128 62", "12000 128 60",
            "24000 144 60", "24000 144 62", "30000 128 62", "36000 128 60",
            "48000 144 60", "60000 128 60",
        ])
    }

    @Test("§7.6: mute controls the renderer reads itself, only in blocks that play an onset, give the notes of mute bits set at every block start")
    func muteControlsReadLazily() throws {
        // Eight lanes of different lengths and densities, so that some blocks play no onset at all.
        var text = "tactus-pattern 2\n"
        for lane in 0..<8 { text += "lane l\(lane) length \(lane + 1)/2\nnote 0 1/8 \(60 + lane) 100\nnote 1/4 1/16 \(70 + lane) 90\n" }
        let pattern = try PatternParser.parse(text)
        var rng = SplitMix64(seed: 76)
        for _ in 0..<20 {
            let levels = UnsafeMutablePointer<Float>.allocate(capacity: 8)
            levels.initialize(repeating: 0, count: 8)
            let table = UnsafeMutablePointer<UnsafePointer<Float>>.allocate(capacity: 8)
            for i in 0..<8 { table[i] = UnsafePointer(levels + i) }
            defer { levels.deallocate(); table.deallocate() }
            var everyBlock = Sequencer(sampleRate: 48000, eventCapacity: 256, pattern: PatternSnapshot.make(pattern))
            var lazily = Sequencer(sampleRate: 48000, eventCapacity: 256, pattern: PatternSnapshot.make(pattern))
            lazily.readPortMutes(from: MuteControls(levels: UnsafePointer(table), count: 8))
            var update = PositionUpdate()
            update.speed = 1; update.bar = 0; update.barBeat = 0; update.beatsPerBar = 4; update.beatsPerMinute = 120
            var a: [String] = [], b: [String] = []
            var frame: Int64 = 0
            for block in 0..<400 {
                // The host moves a few controls between blocks (0.5 mutes; 0.49 does not).
                if rng.next() % 4 == 0 {
                    levels[Int(rng.next() % 8)] = [0, 0.49, 0.5, 1][Int(rng.next() % 4)]
                }
                let frames = [1, 64, 256, 1000, 3000][Int(rng.next() % 5)]
                var bits: UInt64 = 0
                for i in 0..<8 where levels[i] >= 0.5 { bits |= 1 << UInt64(i) }
                _ = everyBlock.beginBlock(frameCount: frames, eventCapacity: 256)
                everyBlock.setPortMutes(bits)
                _ = lazily.beginBlock(frameCount: frames, eventCapacity: 256)
                if block == 0 {
                    everyBlock.apply(update, atOffset: 0)
                    lazily.apply(update, atOffset: 0)
                }
                everyBlock.endBlock()
                lazily.endBlock()
                for e in everyBlock.events { a.append("\(frame + e.offset) \(e.status) \(e.data1) \(e.data2)") }
                for e in lazily.events { b.append("\(frame + e.offset) \(e.status) \(e.data1) \(e.data2)") }
                frame += Int64(frames)
            }
            #expect(a == b)
            #expect(a.count > 100)
            if a != b { return }
        }
    }

    @Test("worked example 8 (timing contract): two lanes, one swung, to the frame")
    func workedExample8() throws {
        let events = try log2(
            "tactus-pattern 2\nlane kick length 2 channel 10\nnote 0 1/4 36 100\nlane hats length 3/2 channel 10 swing 2/3 1/4\nnote 0 1/8 42 80\nnote 1/4 1/8 42 60\n",
            start + "144000 end\n")
        #expect(events == [
            "0 99 24 64", "0 99 2a 50", "4000 89 2a 00", "6000 89 24 00", "8000 99 2a 3c", "10000 89 2a 00",
            "36000 99 2a 50", "40000 89 2a 00", "44000 99 2a 3c", "46000 89 2a 00",
            "48000 99 24 64", "54000 89 24 00",
            "72000 99 2a 50", "76000 89 2a 00", "80000 99 2a 3c", "82000 89 2a 00",
            "96000 99 24 64", "102000 89 24 00",
            "108000 99 2a 50", "112000 89 2a 00", "116000 99 2a 3c", "118000 89 2a 00",
        ])
    }
}

@Suite("Pattern errors name a column (pattern format, Error messages)")
struct PatternErrorColumnTests {
    @Test("the column of the wrong field, of the statement, or none for checks at the end")
    func columns() {
        func column(_ text: String) -> Int? {
            do { _ = try PatternParser.parse(text); return nil } catch { return error.column }
        }
        #expect(column("tactus-pattern 2\nlane a length 4 swing 1 1/4\n") == 23)  // the ratio
        #expect(column("tactus-pattern 2\nlane a length 4\nnote 0 1 60 100 prob=0\n") == 17)  // prob=0
        #expect(column("tactus-pattern 2\nlane a length 4;  bogus 1\n") == 19)  // a statement after ';'
        #expect(column("tactus-pattern 1\nlength 4\nnote 0 1 G#9 100\n") == 10)
        #expect(column("\u{FEFF}tactus-pattern 4\n") == 16)  // a byte-order mark is not counted
        #expect(column("tactus-pattern 1\nnote 0 1 60 100\n") == 0)  // no length: found at the end
        #expect(column("tactus-pattern 2\nlane a length 7\nlane b length 1000000/999999\n") == 0)
    }
}
