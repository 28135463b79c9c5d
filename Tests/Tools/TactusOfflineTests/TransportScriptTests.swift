import Testing
import TactusEngine
import TactusModel
import TactusOffline

// Helpers are private so they cannot collide with other test files of this target.

private func parse(_ body: String) throws(TransportScriptError) -> TransportScript {
    try TransportScript(parsing: "tactus-transport 1\n" + body)
}

/// The error a full script text is rejected with, or nil when it parses.
private func scriptError(_ text: String) -> TransportScriptError? {
    do {
        _ = try TransportScript(parsing: text)
        return nil
    } catch {
        return error
    }
}

private func position(_ input: ScriptInput) -> HostPosition? {
    if case .position(let p) = input { return p }
    return nil
}

private func value(_ p: HostPosition, _ key: PositionKey) -> WireValue? {
    p.fields.first { $0.key == key }?.value
}

private struct Delivered: Equatable, CustomStringConvertible {
    var frame: Int64
    var input: ScriptInput
    var description: String { "\(frame): \(input)" }
}

/// Runs a simulated host over the whole script with the given block sizes and
/// returns every input at its absolute frame, plus the block starts.
private func deliver(_ script: TransportScript, blocks: BlockPlan, sampleRate: Double = 48_000) -> (inputs: [Delivered], blockStarts: [Int64]) {
    var host = HostSimulator(script: script, sampleRate: sampleRate)
    var sizes = blocks.makeIterator()
    var start: Int64 = 0
    var inputs: [Delivered] = []
    var starts: [Int64] = []
    while start < script.endFrame {
        let n = min(sizes.next(), Int(script.endFrame - start))
        if n > 0 { starts.append(start) }
        for input in host.inputs(blockStart: start, frameCount: n) {
            #expect(input.offset >= 0 && input.offset < max(n, 1))
            inputs.append(Delivered(frame: start + Int64(input.offset), input: input.input))
        }
        start += Int64(n)
    }
    return (inputs, starts)
}

private func deliver(_ body: String, blocks: BlockPlan = .fixed(256), sampleRate: Double = 48_000) throws -> [Delivered] {
    deliver(try parse(body), blocks: blocks, sampleRate: sampleRate).inputs
}

/// The positions the simulator generated (verbatim `position` lines excluded by the caller's script).
private func updates(_ inputs: [Delivered]) -> [(frame: Int64, position: HostPosition)] {
    inputs.compactMap { d in position(d.input).map { (d.frame, $0) } }
}

/// How a raw `position` action reaches the plugin.
private extension ScriptInput {
    init(action: TransportScript.Action) {
        switch action {
        case .position(let p): self = .position(p)
        case .midi(let bytes): self = .midi(bytes)
        case .pattern(let path): self = .pattern(path)
        default: self = .midi([])  // transport actions are not inputs
        }
    }
}

@Suite("Transport script: parsing")
struct TransportScriptParsingTests {
    @Test func everyMalformedLineIsRejectedWithItsLineAndReason() {
        let h = "tactus-transport 1\n"
        let cases: [(text: String, line: Int, reason: String)] = [
            ("rate 48000\n0 end", 1, "the first statement must be 'tactus-transport 1'"),
            ("# comment\n\ntactus-transport 2\n0 end", 3, "the first statement must be 'tactus-transport 1'"),
            ("", 1, "the first statement must be 'tactus-transport 1'"),
            (h + "rate 0\n0 end", 2, "'rate' takes one positive number of frames per second"),
            (h + "rate -48000\n0 end", 2, "'rate' takes one positive number of frames per second"),
            (h + "rate inf\n0 end", 2, "'rate' takes one positive number of frames per second"),
            (h + "rate\n0 end", 2, "'rate' takes one positive number of frames per second"),
            (h + "send sometimes\n0 end", 2, "'send' takes 'on-change', 'every-block' or 'on-beat'"),
            (h + "keys every\n0 end", 2, "'keys' takes 'bbt', 'beat', 'frame', 'qtractor', 'muse' or 'all'"),
            (h + "round-ticks 0\n0 end", 2, "'round-ticks' takes a positive number of ticks per beat"),
            (h + "round-ticks 19.2\n0 end", 2, "'round-ticks' takes a positive number of ticks per beat"),
            (h + "atom sequence\n0 end", 2, "'atom' takes 'object' or 'blank'"),
            (h + "tempo 120\n0 end", 2, "expected a setting (rate, send, keys, round-ticks, floor-ticks, atom, pattern, blocks, tolerance) or a frame number, found 'tempo'"),
            (h + "-1 play\n0 end", 2, "expected a setting (rate, send, keys, round-ticks, floor-ticks, atom, pattern, blocks, tolerance) or a frame number, found '-1'"),
            (h + "200 play\n100 stop\n300 end", 3, "frame 100 is before the previous action's frame 200"),
            (h + "100 end\n200 play", 3, "nothing may follow the 'end' line"),
            (h + "100 end\n100 play", 3, "nothing may follow the 'end' line"),
            (h + "0 end", 2, "'end' must come after the last action: the render stops before frame 0"),
            (h + "500 play\n500 end", 3, "'end' must come after the last action: the render stops before frame 500"),
            (h + "100\n200 end", 2, "frame 100 has no action"),
            (h + "100 end now", 2, "'end' takes no arguments"),
            (h + "0 tempo 0\n1 end", 2, "'tempo' takes one number of beats per minute from 0.001 to 100000"),
            (h + "0 tempo fast\n1 end", 2, "'tempo' takes one number of beats per minute from 0.001 to 100000"),
            (h + "0 meter -3\n1 end", 2, "'meter' takes a number of beats per bar above 0, up to 1000000, and optionally a beat unit (meter 6 8)"),
            (h + "0 meter 6 4.5\n1 end", 2, "'meter' takes a beat unit that is a whole number from 1 to 256 (4 a quarter note, 8 an eighth), found '4.5'"),
            (h + "0 thru yes\n1 end", 2, "'thru' takes on or off"),
            (h + "0 meter 6 8 2\n1 end", 2, "'meter' takes a number of beats per bar above 0, up to 1000000, and optionally a beat unit (meter 6 8)"),
            (h + "0 speed -1\n1 end", 2, "'speed' takes one number from 0 to 100000"),
            (h + "0 speed nan\n1 end", 2, "'speed' takes one number from 0 to 100000"),
            (h + "0 play 2\n1 end", 2, "'play' takes no arguments"),
            (h + "0 stop now\n1 end", 2, "'stop' takes no arguments"),
            (h + "0 locate\n1 end", 2, "'locate' takes a beat position (a number or a fraction like 7/3) within ±2^40"),
            (h + "0 locate 1/0\n1 end", 2, "'locate' takes a beat position (a number or a fraction like 7/3) within ±2^40"),
            (h + "0 loop 4 4\n1 end", 2, "'loop' takes START END in beats (within ±2^40) with END > START, or 'off'"),
            (h + "0 loop 4\n1 end", 2, "'loop' takes START END in beats (within ±2^40) with END > START, or 'off'"),
            (h + "0 all-notes-off 1\n1 end", 2, "'all-notes-off' takes no arguments"),
            (h + "0 cc\n1 end", 2, "'cc' takes NUMBER [VALUE [CHANNEL]]"),
            (h + "0 cc 128\n1 end", 2, "'cc' takes NUMBER [VALUE [CHANNEL]]"),
            (h + "0 cc 1 2 3 4\n1 end", 2, "'cc' takes NUMBER [VALUE [CHANNEL]]"),
            (h + "0 cc 1 128\n1 end", 2, "'cc' value must be 0-127 and channel 1-16"),
            (h + "0 cc 1 0 17\n1 end", 2, "'cc' value must be 0-127 and channel 1-16"),
            (h + "0 cc 1 0 0\n1 end", 2, "'cc' value must be 0-127 and channel 1-16"),
            (h + "0 midi\n1 end", 2, "'midi' takes bytes in hex, like 'midi 90 3c 64'"),
            (h + "0 midi 90 3g 64\n1 end", 2, "'midi' takes bytes in hex, like 'midi 90 3c 64'"),
            (h + "0 midi 90 100\n1 end", 2, "'midi' takes bytes in hex, like 'midi 90 3c 64'"),
            (h + "0 position tempo=120\n1 end", 2,
             "'position' takes key=value pairs with keys frame, speed, bar, barBeat, beat, beatsPerBar, beatsPerMinute, beatUnit; found 'tempo=120'"),
            (h + "0 position bar\n1 end", 2,
             "'position' takes key=value pairs with keys frame, speed, bar, barBeat, beat, beatsPerBar, beatsPerMinute, beatUnit; found 'bar'"),
            (h + "0 position bar=2.5:i\n1 end", 2, "'2.5' is not a 32-bit integer"),
            (h + "0 position frame=9223372036854775808:l\n1 end", 2, "'9223372036854775808' is not a 64-bit integer"),
            (h + "0 position barBeat=x:f\n1 end", 2, "'x' is not a number"),
            (h + "0 position beat=y:d\n1 end", 2, "'y' is not a number"),
            (h + "0 position beat=1:q\n1 end", 2, "unknown type ':q' (use :i :l :f :d or :s)"),
            (h + "0 position beat=one\n1 end", 2, "'one' is not a number (add ':s' to send a string)"),
            (h + "0 pattern\n1 end", 2, "'pattern' takes one file path"),
            (h + "0 pattern a b\n1 end", 2, "'pattern' takes one file path"),
            (h + "0 jump 4\n1 end", 2, "unknown action 'jump'"),
            // No end: the error points just past the last line.
            (h + "0 play", 3, "the script has no 'FRAME end' line saying how long to render"),
        ]
        for c in cases {
            let e = scriptError(c.text)
            #expect(e?.line == c.line && e?.reason == c.reason, "script: \(c.text.debugDescription) gave \(String(describing: e))")
        }
    }

    /// "One line past the end of the file", with or without the usual final
    /// line feed (the pattern parser reports line 3 for the same layout).
    @Test func missingEndIsReportedOneLinePastTheLastLine() {
        #expect(scriptError("tactus-transport 1\n0 play")?.line == 3)
        #expect(scriptError("tactus-transport 1\n0 play\n")?.line == 3)
    }

    @Test func errorDescriptionNamesTheLine() {
        let e = scriptError("tactus-transport 1\n\n0 jump\n1 end")
        #expect(e?.description == "transport script line 3: unknown action 'jump'")
    }

    @Test func settingsHaveDefaultsAndCanBeSet() throws {
        let plain = try parse("10 end")
        #expect(plain.sampleRate == nil)
        #expect(plain.sendPolicy == .onChange)
        #expect(plain.keys == .bbt)
        #expect(plain.barBeatTicks == nil)
        #expect(plain.asBlank == false)
        #expect(plain.endFrame == 10)
        #expect(plain.actions.isEmpty)

        let set = try parse("rate 44100\nsend every-block\nkeys beat\nround-ticks 1920\natom blank\n10 end")
        #expect(set.sampleRate == 44_100)
        #expect(set.sendPolicy == .everyBlock)
        #expect(set.keys == .beat)
        #expect(set.barBeatTicks == 1920)
        #expect(set.asBlank)
        #expect(try parse("keys frame\natom object\n1 end").keys == .frame)
        // A setting given twice: the later one wins.
        #expect(try parse("atom blank\natom object\n1 end").asBlank == false)
        #expect(try parse("rate 44100\nrate 96000\n1 end").sampleRate == 96_000)
    }

    @Test func actionsParseWithTheirFramesAndLines() throws {
        let script = try parse("""
            # comment line
            0 tempo 97.5
            0 meter 3   # trailing comment
            0\tplay
            100 speed 0.5
            200 locate 7/3
            200 loop 1 2.5
            300 loop off
            300 stop
            400 all-notes-off
            400 cc 64 127 2
            400 cc 1
            500 midi 90 3C 7f
            500 pattern drums.txt
            1000 end
            """)
        #expect(script.actions.map(\.frame) == [0, 0, 0, 100, 200, 200, 300, 300, 400, 400, 400, 500, 500])
        #expect(script.actions.map(\.line) == [3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15])
        #expect(script.actions.map(\.action) == [
            .tempo(97.5), .meter(3), .speed(1), .speed(0.5), .locate(7.0 / 3.0), .loop(start: 1, end: 2.5), .loopOff,
            .speed(0), .midi([0xB0, 123, 0]), .midi([0xB1, 64, 127]), .midi([0xB0, 1, 0]), .midi([0x90, 0x3C, 0x7F]),
            .pattern("drums.txt"),
        ])
        #expect(script.endFrame == 1000)
        #expect(script.actions.map { $0.action.changesTransport } == [
            true, true, true, true, true, true, true, true, false, false, false, false, false,
        ])
    }

    @Test func crlfAndTabsAreBlanks() throws {
        let script = try TransportScript(parsing: "tactus-transport 1\r\n0\tplay\r\n48000 end\r\n")
        #expect(script.actions.map(\.action) == [.speed(1)])
        #expect(script.endFrame == 48_000)
    }

    @Test func positionValuesTakeTheirWrittenTypes() throws {
        let script = try parse("0 position frame=7:i speed=1:l bar=2:f barBeat=0.7:d beat=3:s beatsPerBar=4:f beatsPerMinute=-1:i\n1 end")
        guard case .position(let p) = script.actions[0].action else {
            Issue.record("not a position")
            return
        }
        #expect(p.asBlank == false)
        #expect(p.fields.map(\.key) == [.frame, .speed, .bar, .barBeat, .beat, .beatsPerBar, .beatsPerMinute])
        #expect(p.fields.map(\.value) == [.int(7), .long(1), .float(2), .double(0.7), .string("3"), .float(4), .int(-1)])
    }

    @Test func positionValuesWithoutATypeUseTheHostsUsualTypes() throws {
        let script = try parse(
            "0 position frame=48000 speed=1 bar=3 barBeat=0.7 beat=2.5 beatsPerBar=4 beatsPerMinute=120 beatUnit=4 blank\n"
                + "0 position frame=1.5 bar=2.5 beatUnit=4.5\n1 end")
        guard case .position(let p) = script.actions[0].action, case .position(let odd) = script.actions[1].action else {
            Issue.record("not positions")
            return
        }
        #expect(p.asBlank)
        #expect(p.fields.map(\.value) == [
            .long(48_000), .float(1), .long(3), .float(0.7), .double(2.5), .float(4), .float(120), .int(4),
        ])
        // Integer keys written with a fraction keep it, as a Double.
        #expect(odd.fields.map(\.value) == [.double(1.5), .double(2.5), .double(4.5)])
        #expect(odd.asBlank == false)
    }

    @Test func scriptTextOfAWireValueParsesBackToIt() throws {
        let values: [WireValue] = [.int(-3), .long(9_000_000_000), .float(0.7), .double(0.1), .string("abc")]
        for v in values {
            let script = try parse("0 position beat=\(v.scriptText)\n1 end")
            #expect(script.actions[0].action == .position(HostPosition(fields: [(.beat, v)])))
        }
        #expect(WireValue.float(0.7).scriptText == "0.7:f")
    }
}

@Suite("Host position decoding")
struct HostPositionTests {
    @Test func numericKeysOfAnyTypeDecodeToTheirExactValues() {
        let p = HostPosition(fields: [
            (.frame, .long(5)), (.speed, .float(1)), (.bar, .int(2)), (.barBeat, .float(0.7)), (.beat, .double(3.25)),
            (.beatsPerBar, .int(3)), (.beatsPerMinute, .double(140)), (.beatUnit, .int(8)),
        ])
        let u = p.update
        #expect(u == PositionUpdate(
            frame: 5, speed: 1, bar: 2, barBeat: Double(Float(0.7)), beat: 3.25, beatsPerBar: 3, beatsPerMinute: 140, beatUnit: 8))
        // A Float 0.7 reaches the core as 0.699999988..., not 0.7.
        #expect(u.barBeat == 0.699999988079071)
        #expect(!u.hasInvalidKey)
    }

    @Test func missingKeysStayNil() {
        #expect(HostPosition(fields: []).update.isEmpty)
        let u = HostPosition(fields: [(.speed, .float(0))]).update
        #expect(u == PositionUpdate(speed: 0))
    }

    @Test func aStringValueMarksTheUpdateInvalid() {
        let u = HostPosition(fields: [(.speed, .float(1)), (.beat, .string("4"))]).update
        #expect(u.hasInvalidKey)
        #expect(u.beat == nil)
        #expect(u.speed == 1)
    }

    /// The beat unit reaches the core as it is sent (the MIDI clock counts
    /// quarter notes by it, §12.1); the core, not the decoding, passes over
    /// one it cannot use (4.5).
    @Test func numericBeatUnitIsDecoded() {
        #expect(HostPosition(fields: [(.beatUnit, .int(8))]).update == PositionUpdate(beatUnit: 8))
        #expect(HostPosition(fields: [(.beatUnit, .double(4.5)), (.speed, .int(1))]).update == PositionUpdate(speed: 1, beatUnit: 4.5))
    }

    /// Timing contract §6: a key of a non-numeric type, whichever key, voids the update.
    @Test func aStringBeatUnitAlsoMarksTheUpdateInvalid() {
        #expect(HostPosition(fields: [(.beatUnit, .string("quarter"))]).update.hasInvalidKey)
    }
}

@Suite("Block plans")
struct BlockPlanTests {
    @Test func validSpecsParse() throws {
        #expect(try BlockPlan(parsing: "256") == .fixed(256))
        #expect(try BlockPlan(parsing: "64,256,1024") == .cycle([64, 256, 1024]))
        #expect(try BlockPlan(parsing: "0,5") == .cycle([0, 5]))
        #expect(try BlockPlan(parsing: "1048576") == .fixed(1 << 20))
        #expect(try BlockPlan(parsing: "random") == .random(minimum: 1, maximum: 8192, seed: 1))
        #expect(try BlockPlan(parsing: "random:16-32@7") == .random(minimum: 16, maximum: 32, seed: 7))
        #expect(try BlockPlan(parsing: "random@5") == .random(minimum: 1, maximum: 8192, seed: 5))
        #expect(try BlockPlan(parsing: "random:0-1") == .random(minimum: 0, maximum: 1, seed: 1))
    }

    @Test(arguments: [
        "", "abc", "0", "0,0", "-1", "1048577", "64,x", "12.5", "random:5-4", "random:0-0", "random:1-1048577",
        "random:x", "random:1-2-3", "random@", "random:1-2@-1", "random:1-2@x", "randomly", "random:", "random 1-2",
        "64,,256", "64,256,", ",64",
    ])
    func invalidSpecsAreRejected(spec: String) {
        #expect(throws: BlockPlan.ParseError.self) { try BlockPlan(parsing: spec) }
    }

    /// A stray minus sign must not vanish: negative or malformed ranges are rejected.
    @Test(arguments: ["random:-1-5", "random:1--5", "random:-1--5@2"])
    func rangesWithExtraMinusSignsAreRejected(spec: String) {
        #expect(throws: BlockPlan.ParseError.self) { try BlockPlan(parsing: spec) }
    }

    @Test func descriptionParsesBackToThePlan() throws {
        for plan: BlockPlan in [.fixed(256), .cycle([1, 0, 4096]), .random(minimum: 3, maximum: 900, seed: 42)] {
            #expect(try BlockPlan(parsing: plan.description) == plan)
        }
    }

    @Test func fixedRepeatsAndCycleGoesRoundInOrder() {
        var fixed = BlockPlan.fixed(128).makeIterator()
        #expect((0..<5).map { _ in fixed.next() } == [128, 128, 128, 128, 128])
        var cycle = BlockPlan.cycle([64, 256, 1024]).makeIterator()
        #expect((0..<7).map { _ in cycle.next() } == [64, 256, 1024, 64, 256, 1024, 64])
    }

    @Test func randomIsReproducibleForASeedAndStaysInRange() {
        func sizes(_ plan: BlockPlan, _ n: Int = 2_000) -> [Int] {
            var it = plan.makeIterator()
            return (0..<n).map { _ in it.next() }
        }
        let a = sizes(.random(minimum: 10, maximum: 20, seed: 99))
        #expect(a == sizes(.random(minimum: 10, maximum: 20, seed: 99)))
        #expect(a.allSatisfy { (10...20).contains($0) })
        #expect(Set(a) == Set(10...20), "every size in range shows up")
        #expect(a != sizes(.random(minimum: 10, maximum: 20, seed: 100)))
        #expect(sizes(.random(minimum: 7, maximum: 7, seed: 1), 50).allSatisfy { $0 == 7 })
        // Pinned: the sizes are the same on every machine, so a failing seed can be replayed anywhere.
        var rng = SplitMix64(seed: 99)
        #expect(a.prefix(5) == ArraySlice((0..<5).map { _ in 10 + Int(rng.next() % 11) }))
    }

    @Test func splitMix64MatchesTheReferenceSequence() {
        // First outputs for seed 0 of the published SplitMix64 algorithm.
        var rng = SplitMix64(seed: 0)
        #expect(rng.next() == 0xE220_A839_7B1D_CDAF)
        #expect(rng.next() == 0x6E78_9E6A_A1B9_65F4)
        #expect(rng.next() == 0x06C4_5D18_8009_454F)
    }
}

@Suite("Event log")
struct EventLogTests {
    @Test func lineIsFrameThenLowerCaseTwoDigitHex() {
        #expect(EventLog.line(LoggedEvent(frame: 12_000, bytes: [0x80, 0x3C, 0x00])) == "12000 80 3c 00")
        #expect(EventLog.line(LoggedEvent(frame: 0, bytes: [0x9F, 0x0A, 0xFF])) == "0 9f 0a ff")
        #expect(EventLog.line(LoggedEvent(frame: 9_000_000_000, bytes: [0xB0, 0x7B, 0x00])) == "9000000000 b0 7b 00")
    }

    @Test func linesParseBackToTheEvents() throws {
        var rng = SplitMix64(seed: 5)
        var events: [LoggedEvent] = []
        var frame: Int64 = 0
        for _ in 0..<500 {
            frame += Int64.random(in: 0...5000, using: &rng)
            events.append(LoggedEvent(frame: frame, bytes: (0..<Int.random(in: 1...4, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }))
        }
        let text = "# tactus event log: rate 48000\n" + events.map(EventLog.line).joined(separator: "\n") + "\n"
        #expect(try EventLog.parse(text) == events)
    }

    @Test func parseSkipsCommentsBlankLinesAndCarriageReturns() throws {
        let text = "# header\n\n0 90 3C 64   # upper case hex is read too\r\n\t\n12000\t80 3c 00\r\n"
        #expect(try EventLog.parse(text) == [
            LoggedEvent(frame: 0, bytes: [0x90, 0x3C, 0x64]), LoggedEvent(frame: 12_000, bytes: [0x80, 0x3C, 0x00]),
        ])
    }

    @Test func parseErrorsNameTheLine() {
        let cases: [(text: String, line: Int, reason: String)] = [
            ("0 90 3c 64\nabc 90 3c 64\n", 2, "'abc' is not a frame number"),
            ("# c\n\n1.5 90 3c 64\n", 3, "'1.5' is not a frame number"),
            ("0 90 3c 64\n100\n", 2, "expected FRAME followed by MIDI bytes in hex"),
            ("100 90 zz 00\n", 1, "expected FRAME followed by MIDI bytes in hex"),
            ("100 90 100 00\n", 1, "expected FRAME followed by MIDI bytes in hex"),
        ]
        for c in cases {
            do {
                _ = try EventLog.parse(c.text)
                Issue.record("accepted \(c.text.debugDescription)")
            } catch {
                #expect(error.line == c.line && error.reason == c.reason, "\(c.text.debugDescription)")
                #expect(error.description == "event log line \(c.line): \(c.reason)")
            }
        }
    }

    @Test func equalityIgnoresTheDisplayPosition() {
        let a = LoggedEvent(frame: 5, bytes: [0x90, 60, 100], position: MusicalPosition(beats: 1, beatsPerBar: 4))
        let b = LoggedEvent(frame: 5, bytes: [0x90, 60, 100])
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(MusicalPosition(beats: 5.5, beatsPerBar: 4).barBeatText == "2:2.500")
    }
}

@Suite("Host simulator")
struct HostSimulatorTests {
    /// 120 bpm at 48 kHz: one beat is 24000 frames.
    static let framesPerBeat: Int64 = 24_000

    @Test func onChangeSendsOneUpdateAtEachTransportActionFrame() throws {
        let inputs = try deliver("""
            0 tempo 120
            0 play
            1000 midi 90 3c 64
            24000 locate 8
            30000 tempo 90
            30000 meter 3
            48000 stop
            60000 end
            """)
        let ups = updates(inputs)
        #expect(ups.map(\.frame) == [0, 24_000, 30_000, 48_000])
        #expect(inputs.count == 5)
        #expect(inputs[1] == Delivered(frame: 1000, input: .midi([0x90, 0x3C, 0x64])))

        let located = ups[1].position
        #expect(value(located, .bar) == .long(2))
        #expect(value(located, .barBeat) == .float(0))
        #expect(value(located, .frame) == .long(192_000))  // beat 8 at 120 bpm

        // Both actions at frame 30000 are in the one update: 90 bpm, 3 beats a bar.
        let changed = ups[2].position
        #expect(changed.fields.map(\.value) == [
            .long(198_000), .float(1), .long(2), .float(2.25), .int(4), .float(3), .float(90),
        ])
        // 18000 frames at 90 bpm is 0.5625 beat: 8.8125 = bar 2 (of 3 beats) + 2.8125.
        let stopped = ups[3].position
        #expect(stopped.fields.map(\.value) == [
            .long(216_000), .float(0), .long(2), .float(2.8125), .int(4), .float(3), .float(90),
        ])
    }

    @Test func updateFollowsTheLastTransportActionOfItsFrameInScriptOrder() throws {
        let inputs = try deliver("""
            0 midi 90 3c 64
            0 play
            0 cc 1 2
            0 tempo 100
            0 position beat=1
            0 midi 80 3c 00
            0 pattern p.txt
            1000 end
            """)
        #expect(inputs.map(\.frame) == [0, 0, 0, 0, 0, 0])
        #expect(inputs[0].input == .midi([0x90, 0x3C, 0x64]))
        #expect(inputs[1].input == .midi([0xB0, 1, 2]))
        let update = try #require(position(inputs[2].input))
        // It reports the state after every transport action at the frame.
        #expect(value(update, .speed) == .float(1))
        #expect(value(update, .beatsPerMinute) == .float(100))
        #expect(inputs[3].input == .position(HostPosition(fields: [(.beat, .double(1))])))
        #expect(inputs[4].input == .midi([0x80, 0x3C, 0x00]))
        #expect(inputs[5].input == .pattern("p.txt"))
    }

    @Test func stoppedHostSendsNothingWithoutActions() throws {
        #expect(try deliver("100000 end").isEmpty)
    }

    @Test func everyBlockAddsOneUpdateAtEachBlockStart() throws {
        let script = try parse("send every-block\n0 play\n2500 tempo 60\n3000 tempo 90\n3100 midi 90 3c 64\n5000 end")
        let (inputs, starts) = deliver(script, blocks: .fixed(1000))
        #expect(starts == [0, 1000, 2000, 3000, 4000])
        // One at each block start (the one at 3000 doubles as the tempo change's), one mid-block.
        #expect(updates(inputs).map(\.frame) == [0, 1000, 2000, 2500, 3000, 4000])
        #expect(inputs.filter { position($0.input) == nil }.map(\.frame) == [3100])
    }

    @Test func everyBlockUpdatePrecedesOtherInputsAtTheBlockStart() throws {
        let script = try parse("send every-block\n0 play\n1000 midi 90 3c 64\n2000 end")
        let (inputs, _) = deliver(script, blocks: .fixed(1000))
        #expect(inputs.count == 3)
        #expect(position(inputs[1].input) != nil && inputs[1].frame == 1000)
        #expect(inputs[2] == Delivered(frame: 1000, input: .midi([0x90, 0x3C, 0x64])))
    }

    /// A change later in the block must not leak into the report of the block's start.
    @Test func everyBlockStartUpdateReportsTheStateAtTheBlockStart() throws {
        let script = try parse("send every-block\n0 play\n1500 stop\n2000 play\n2200 tempo 60\n4000 end")
        let ups = updates(deliver(script, blocks: .fixed(1000)).inputs)
        #expect(ups.map(\.frame) == [0, 1000, 1500, 2000, 2200, 3000])
        let atBlockStart = ups[1].position
        #expect(value(atBlockStart, .speed) == .float(1))
        #expect(value(atBlockStart, .barBeat) == .float(Float(1000 * (120.0 / (60 * 48_000)))))
        #expect(value(atBlockStart, .frame) == .long(1000))
        #expect(value(ups[3].position, .beatsPerMinute) == .float(120))
        #expect(value(ups[5].position, .beatsPerMinute) == .float(60))
    }

    /// A loop wrap in the middle of a block shows in its own report and in the next block's.
    @Test func everyBlockStartUpdateOfTheBlockAfterAWrap() throws {
        let script = try parse("send every-block\nkeys beat\n0 play\n0 loop 0 1/2\n30000 end")
        let ups = updates(deliver(script, blocks: .fixed(10_000)).inputs)
        #expect(ups.map(\.frame) == [0, 10_000, 12_000, 20_000, 24_000])
        let beatsPerFrame = 120.0 / (60 * 48_000)  // the host's own double arithmetic
        #expect(value(ups[1].position, .beat) == .double(10_000 * beatsPerFrame))
        #expect(value(ups[2].position, .beat) == .double(0))
        #expect(value(ups[3].position, .beat) == .double(8_000 * beatsPerFrame))
    }

    /// `meter N U` sets the beat unit every key set that reports one sends
    /// (`time:beatUnit`, which the MIDI clock counts by, §12.1); `meter N` keeps it.
    @Test func meterWithABeatUnitIsReported() throws {
        for keys in ["bbt", "qtractor", "muse", "all"] {
            let reports = updates(try deliver("keys \(keys)\n0 play\n100 meter 6 8\n200 meter 3\n300 stop\n400 end"))
            let units = reports.map { r in r.position.fields.first { $0.key == .beatUnit }?.value }
            #expect(units == [.int(4), .int(8), .int(8), .int(8)], "keys \(keys)")
            #expect(reports[1].position.update.beatUnit == 8 && reports[1].position.update.beatsPerBar == 6, "keys \(keys)")
        }
    }

    @Test func keySetsChooseTheKeysAndTheirTypes() throws {
        let bbt = try #require(updates(try deliver("0 play\n10 end")).first?.position)
        #expect(bbt.fields.map(\.key) == [.frame, .speed, .bar, .barBeat, .beatUnit, .beatsPerBar, .beatsPerMinute])
        #expect(bbt.fields.map(\.value) == [.long(0), .float(1), .long(0), .float(0), .int(4), .float(4), .float(120)])
        #expect(!bbt.asBlank)

        let beat = try #require(updates(try deliver("keys beat\natom blank\n0 locate 5/2\n0 play\n10 end")).first?.position)
        #expect(beat.fields.map(\.key) == [.frame, .speed, .beat, .beatsPerMinute])
        #expect(beat.fields.map(\.value) == [.long(60_000), .float(1), .double(2.5), .float(120)])
        #expect(beat.asBlank)

        let frame = try #require(updates(try deliver("keys frame\n0 play\n10 end")).first?.position)
        #expect(frame.fields.map(\.key) == [.frame, .speed])
    }

    @Test func roundTicksRoundsBarBeatToWholeTicks() throws {
        // At 97 bpm, frame 12345 is beat 0.41579...: 798.3 ticks.
        let body = "0 tempo 97\n0 play\n12345 tempo 97\n20000 end"
        let exact = updates(try deliver(body))[1].position
        let rounded = updates(try deliver("round-ticks 1920\n" + body))[1].position
        guard case .float(let raw) = value(exact, .barBeat), case .float(let ticked) = value(rounded, .barBeat) else {
            Issue.record("barBeat is not a Float")
            return
        }
        #expect(abs(Double(raw) * 1920 - 798.3) < 0.1)
        #expect(ticked == Float(798.0 / 1920.0))
        // Everything but barBeat is the same.
        #expect(exact.fields.filter { $0.key != .barBeat }.map(\.value) == rounded.fields.filter { $0.key != .barBeat }.map(\.value))
    }

    @Test func roundTicksCarriesIntoTheNextBar() throws {
        // Beat 3.99999 is 7679.98 ticks into bar 0: it rounds to beat 0 of bar 1.
        let update = try #require(updates(try deliver("round-ticks 1920\n0 locate 3.99999\n0 play\n10 end")).first?.position)
        #expect(value(update, .bar) == .long(1))
        #expect(value(update, .barBeat) == .float(0))
    }

    @Test func loopRangeWrapsAtTheFirstFrameReachingItsEnd() throws {
        // Loop 1..2 from beat 0: beat 2 is frame 48000; then every 24000 frames.
        let ups = updates(try deliver("keys beat\n0 play\n0 loop 1 2\n100000 end"))
        #expect(ups.map(\.frame) == [0, 48_000, 72_000, 96_000])
        for u in ups.dropFirst() {
            #expect(value(u.position, .beat) == .double(1))
            #expect(value(u.position, .frame) == .long(24_000))
        }
        // An end between frames: 2.00001 beats is frame 48000.24, so the wrap is at 48001,
        // and the next 1.00001 beats later (24000.24 frames, so 24001).
        let ragged = updates(try deliver("keys beat\n0 play\n0 loop 1 2.00001\n80000 end"))
        #expect(ragged.map(\.frame) == [0, 48_001, 72_002])
    }

    @Test func shortLoopWrapsManyTimesInsideOneBlock() throws {
        // 1/8 beat is 3000 frames: 15 wraps inside the first 48000-frame block.
        let script = try parse("keys beat\n0 play\n0 loop 0 1/8\n96000 end")
        var host = HostSimulator(script: script, sampleRate: 48_000)
        let first = host.inputs(blockStart: 0, frameCount: 48_000)
        #expect(first.map(\.offset) == [0] + (1...15).map { $0 * 3000 })
        for input in first.dropFirst() {
            #expect(position(input.input).flatMap { value($0, .beat) } == .double(0))
        }
        let second = host.inputs(blockStart: 48_000, frameCount: 48_000)
        #expect(second.map(\.offset) == (0...15).map { $0 * 3000 })
    }

    /// The complete example of docs/transport-script.md, position for position.
    @Test func theDocumentedCompleteExampleSendsTheDocumentedPositions() throws {
        let script = try TransportScript(parsing: """
            tactus-transport 1
            rate 48000          # frames per second
            send on-change      # positions only when the transport changes
            keys bbt            # bar, barBeat, beatsPerBar, beatsPerMinute, ...
            round-ticks 1920    # barBeat rounded to Ardour's ticks
            atom object

            0       play            # roll from beat 0 at 120 bpm (24000 frames a beat)
            48000   tempo 90        # at beat 2: 90 bpm, 32000 frames a beat
            100000  loop 4 8        # loop the second bar; the host is at beat 3.625
            #                         at beat 8 (frame 240000) the host wraps to beat 4
            250000  loop off        # beat 4.3125: play on
            360000  all-notes-off   # beat 7.75: cuts the G4 that started at beat 7.5
            380000  stop            # beat 8.375: cuts the C4 and E4 sounding
            400000  locate 2        # move while stopped: nothing sounds
            420000  play            # resume at beat 2
            480000  stop            # beat 3.875: cuts the G4 that started at beat 3.5
            490000  end
            """)
        // The documented list, read back through the script's own raw-position syntax.
        let documented = try TransportScript(parsing: """
            tactus-transport 1
            0       position frame=0:l      speed=1.0:f bar=0:l barBeat=0.0:f    beatUnit=4:i beatsPerBar=4.0:f beatsPerMinute=120.0:f
            48000   position frame=48000:l  speed=1.0:f bar=0:l barBeat=2.0:f    beatUnit=4:i beatsPerBar=4.0:f beatsPerMinute=90.0:f
            100000  position frame=100000:l speed=1.0:f bar=0:l barBeat=3.625:f  beatUnit=4:i beatsPerBar=4.0:f beatsPerMinute=90.0:f
            240000  position frame=128000:l speed=1.0:f bar=1:l barBeat=0.0:f    beatUnit=4:i beatsPerBar=4.0:f beatsPerMinute=90.0:f
            250000  position frame=138000:l speed=1.0:f bar=1:l barBeat=0.3125:f beatUnit=4:i beatsPerBar=4.0:f beatsPerMinute=90.0:f
            380000  position frame=268000:l speed=0.0:f bar=2:l barBeat=0.375:f  beatUnit=4:i beatsPerBar=4.0:f beatsPerMinute=90.0:f
            400000  position frame=64000:l  speed=0.0:f bar=0:l barBeat=2.0:f    beatUnit=4:i beatsPerBar=4.0:f beatsPerMinute=90.0:f
            420000  position frame=64000:l  speed=1.0:f bar=0:l barBeat=2.0:f    beatUnit=4:i beatsPerBar=4.0:f beatsPerMinute=90.0:f
            480000  position frame=124000:l speed=0.0:f bar=0:l barBeat=3.875:f  beatUnit=4:i beatsPerBar=4.0:f beatsPerMinute=90.0:f
            490000  end
            """)
        let expected = documented.actions.map { Delivered(frame: $0.frame, input: ScriptInput(action: $0.action)) }
        let inputs = deliver(script, blocks: .fixed(256)).inputs
        #expect(inputs.filter { position($0.input) != nil } == expected)
        #expect(inputs.filter { position($0.input) == nil } == [Delivered(frame: 360_000, input: .midi([0xB0, 0x7B, 0x00]))])
    }

    @Test func barsComeFromTheWholeBeatTimeline() throws {
        // After meter 3 at beat 6 the host reports bar 2, barBeat 0.
        let atSix = updates(try deliver("0 play\n144000 meter 3\n150000 end"))[1].position
        #expect(value(atSix, .bar) == .long(2) && value(atSix, .barBeat) == .float(0))
        // Beat -1 in 3/4 is bar -1, barBeat 2.
        let negative = updates(try deliver("0 meter 3\n0 locate -1\n10 end"))[0].position
        #expect(value(negative, .bar) == .long(-1) && value(negative, .barBeat) == .float(2))
    }

    @Test func frameKeysReportTheTransportFrameAtTheHostsTempo() throws {
        // Documented: with keys frame, 0 tempo 60, 0 play and 30000 locate 2, the host sends frame=96000 at 30000.
        let ups = updates(try deliver("keys frame\n0 tempo 60\n0 play\n30000 locate 2\n40000 end"))
        #expect(ups.map(\.frame) == [0, 30_000])
        #expect(ups[1].position.fields.map(\.value) == [.long(96_000), .float(1)])
    }

    @Test func hostAtOrPastTheLoopEndDoesNotWrap() throws {
        let ups = updates(try deliver("0 locate 3\n0 play\n0 loop 1 2\n100000 end"))
        #expect(ups.map(\.frame) == [0])
        let atEnd = updates(try deliver("0 locate 2\n0 play\n0 loop 1 2\n100000 end"))
        #expect(atEnd.map(\.frame) == [0])
    }

    // The simulated host keeps frames in Int64: values that would overflow them
    // are rejected when parsing, and the simulator saturates at the limits.

    @Test func valuesBeyondTheSimulatorsRangeAreRejectedWhenParsing() {
        for text in ["0 locate 1e15", "0 tempo 1e-12", "0 speed 1e300", "0 loop 0 1e20", "0 tempo 1e9"] {
            #expect(scriptError("tactus-transport 1\n\(text)\n100 end")?.line == 2, "\(text)")
        }
    }

    @Test func theSimulatorSurvivesTheExtremesTheParserAccepts() throws {
        for text in [
            "0 locate 1099511627776\n0 play", "0 locate -1099511627776\n0 play", "0 tempo 0.001\n0 play\n0 loop 0 4",
            "0 speed 100000\n50 stop", "0 tempo 100000\n0 speed 100000\n0 loop 0 1/1000\n0 locate 1099511627775",
        ] {
            let script = try TransportScript(parsing: "tactus-transport 1\n\(text)\n100000 end")
            var host = HostSimulator(script: script, sampleRate: 192_000)
            var start: Int64 = 0
            while start < 100_000 {
                _ = host.inputs(blockStart: start, frameCount: 8192)
                start += 8192
            }
        }
    }

    @Test func blockSizesDoNotChangeWhatIsDeliveredOrWhen() throws {
        let script = try parse("""
            0 tempo 133
            0 play
            0 loop 2 2.75
            7000 midi 90 3c 64
            50000 tempo 71.5
            50000 position bar=9
            61111 meter 7
            70000 loop off
            70001 locate 1/3
            90000 stop
            91000 cc 123
            100000 speed 1.5
            100000 loop 0 1/64
            100000 locate 0
            110000 loop off
            120000 pattern next.txt
            130000 end
            """)
        let reference = deliver(script, blocks: .fixed(130_000)).inputs
        #expect(updates(reference).count > 20, "the loops wrapped")
        let plans: [BlockPlan] = [
            .fixed(1), .fixed(64), .fixed(1000), .fixed(4096), .cycle([0, 1, 333, 4096]),
            .random(minimum: 0, maximum: 5000, seed: 3), .random(minimum: 1, maximum: 64, seed: 4),
        ]
        for plan in plans {
            let inputs = deliver(script, blocks: plan).inputs
            #expect(inputs == reference, "blocks \(plan)")
        }
    }

    /// `quietBlock` (what the offline render asks first, allocating nothing)
    /// answers only for blocks where `inputs` delivers nothing or one report at
    /// the first frame, and then the same thing: two hosts, one asked only
    /// `inputs`, the other `quietBlock` first, in lockstep over random scripts.
    @Test func quietBlocksDeliverWhatInputsDelivers() throws {
        var rng = SplitMix64(seed: 1_616)
        var quiet = 0, blocks = 0
        for round in 0..<240 {
            let policy = ["every-block", "on-change", "on-beat"][round % 3]
            let keys = ["bbt", "bbt\nround-ticks 1920", "beat", "frame", "qtractor", "muse"][Int(rng.next() % 6)]
            var lines = ["rate 48000", "send \(policy)", "keys \(keys)", "0 tempo 120", "0 play"]
            var frame: Int64 = Int64(rng.next() % 300)
            for _ in 0..<10 {
                frame += Int64(rng.next() % 30_000)
                switch rng.next() % 8 {
                case 0: lines.append("\(frame) tempo \(40 + Double(rng.next() % 20_000) / 100)")
                case 1: lines.append("\(frame) locate \(Double(rng.next() % 256) / 16)")
                case 2:  // short loops, so that the host wraps inside blocks and at their edges
                    let loopStart = Double(rng.next() % 32) / 4
                    lines.append("\(frame) loop \(loopStart) \(loopStart + 0.25 + Double(rng.next() % 16) / 4)")
                case 3: lines.append("\(frame) meter \(1 + rng.next() % 7)")
                case 4: lines.append("\(frame) \(rng.next() % 3 == 0 ? "stop" : "play")")
                case 5: lines.append("\(frame) all-notes-off")
                case 6: lines.append("\(frame) loop off")
                default: lines.append("\(frame) position beat=\(rng.next() % 64):d")
                }
            }
            lines.append("\(frame + 20_000) end")
            let script = try parse(lines.joined(separator: "\n") + "\n")
            var reference = HostSimulator(script: script, sampleRate: 48_000)
            var host = HostSimulator(script: script, sampleRate: 48_000)
            var start: Int64 = 0
            while start < script.endFrame {
                // Empty blocks, blocks of a few frames (a wrap on their last frame), and longer ones.
                let sizes: [Int64] = [0, 1 + Int64(rng.next() % 4), 1 + Int64(rng.next() % 4), 1 + Int64(rng.next() % 2048), 1 + Int64(rng.next() % 2048)]
                let n = Int(min(sizes[Int(rng.next() % 5)], script.endFrame - start))
                let expected = reference.inputs(blockStart: start, frameCount: n)
                if let got = host.quietBlock(blockStart: start, frameCount: n) {
                    quiet += 1
                    switch got {
                    case .nothing:
                        #expect(expected.isEmpty, "round \(round), block at \(start): quiet, but inputs delivers \(expected)")
                    case .report(let update):
                        #expect(expected.count == 1 && expected[0].offset == 0 && position(expected[0].input)?.update == update,
                                "round \(round), block at \(start): a quiet report \(update), but inputs delivers \(expected)")
                    }
                } else {
                    #expect(host.inputs(blockStart: start, frameCount: n) == expected, "round \(round), block at \(start)")
                }
                blocks += 1
                start += Int64(n)
            }
        }
        #expect(quiet > blocks / 2)
    }
}
