import Testing
import TactusEngine
import TactusModel

/// What the fuzzers found in the core, pinned (docs/robustness.md).
@Suite("Robustness regressions (core)")
struct RobustnessRegressionTests {
    @Test("a stop stops even after the transport ran past 2^32 beats (reading (n))")
    func stopBeyondTheBeatLimit() throws {
        // 1000 bpm at speed 1000 and 1 frame a second: 16,667 beats a frame, so
        // 300,000 frames run past 2^32 beats; a stop with no position must still stop.
        var renderer = BlockRenderer(sampleRate: 1)
        _ = renderer.install(PatternSnapshot.make(try PatternParser.parse("tactus-pattern 1\nlength 1\nnote 0 1000000 60 100\n")))
        defer { renderer.install(nil)?.destroy() }
        var output = MIDIEventBuffer(storageCapacity: 64)
        renderer.beginBlock(frameCount: 300_000, output: &output)
        #expect(renderer.apply(PositionUpdate(speed: 1000, beat: 0, beatsPerMinute: 1000), atOffset: 0, output: &output) == .start)
        renderer.endBlock(output: &output)
        #expect(renderer.clock.beat(atFrame: 300_000).approximateValue > 4_294_967_296)

        // The next block starts a note at its first frame (the onsets of the frames after it
        // are beyond the block's work bound); the stop at offset 3 must end it there.
        renderer.beginBlock(frameCount: 16, output: &output)
        #expect(renderer.apply(PositionUpdate(speed: 0), atOffset: 3, output: &output) == .stop)
        renderer.endBlock(output: &output)
        #expect(!renderer.clock.isRolling)
        #expect(renderer.tracker.count == 0)
        #expect(output.events.map(\.offset) == [0, 3])
        #expect(output.events.map(\.isNoteOn) == [true, false])
    }

    @Test("a position beyond 2^32 beats from the host is still ignored whole (§6)")
    func hostPositionBeyondTheLimitIsIgnored() {
        var clock = TransportClock(sampleRate: 48000)
        #expect(clock.apply(PositionUpdate(speed: 1, beat: 5e9, beatsPerMinute: 120), atFrame: 0) == .ignored)
        #expect(clock.apply(PositionUpdate(speed: 1, bar: 2e9, barBeat: 0, beatsPerBar: 4), atFrame: 0) == .ignored)
        #expect(!clock.isRolling)
    }

    @Test("error messages quote fields with control characters escaped and long ones cut, so the reason survives")
    func quotedFields() {
        func message(_ text: String) -> String {
            do { _ = try PatternParser.parse(text); return "accepted" } catch { return error.message }
        }
        #expect(message("tactus-pattern 1\nlength 4\nnote 0 1 6\u{0}0 100\n") == "line 3: key '6\\x000' must be a whole number")
        #expect(message("tactus-pattern 1\nlength 4\nnote 0 \u{1B}[31m 60 100\n")
            == "line 3: duration '\\x1b[31m' is not a number (write an integer, a decimal like 3.5, or a fraction like 1/3)")
        let long = String(repeating: "9", count: 500)
        #expect(message("tactus-pattern 1\nlength 4\nnote 0 1 \(long) 100\n") == "line 3: key must be 0-127, found \(String(repeating: "9", count: 40))...")
        #expect(message("tactus-pattern 1\nlength 4\n\(String(repeating: "é", count: 30)) 1\n")
            == "line 3: unknown statement '\(String(repeating: "é", count: 20))...' (expected 'length' or 'note')")
    }
}

extension RobustnessRegressionTests {
    @Test("a block longer than 2^31 frames gives offsets inside it (64-bit offsets)")
    func blockLongerThanInt32() throws {
        // 120 bpm at 48 kHz: beat 95000 is frame 2,280,000,000, past 2^31 - 1.
        var renderer = BlockRenderer(sampleRate: 48000)
        let pattern = "tactus-pattern 1\nlength 100000\nnote 0 1/4 60 100\nnote 95000 1/4 62 100\n"
        _ = renderer.install(PatternSnapshot.make(try PatternParser.parse(pattern)))
        defer { renderer.install(nil)?.destroy() }
        var output = MIDIEventBuffer(storageCapacity: 64)
        renderer.beginBlock(frameCount: 3_000_000_000, output: &output)
        renderer.apply(PositionUpdate(speed: 1, beat: 0, beatsPerMinute: 120), atOffset: 0, output: &output)
        renderer.endBlock(output: &output)
        // The second pass starts at beat 100000, frame 2,400,000,000.
        #expect(output.events.map(\.offset) == [0, 6000, 2_280_000_000, 2_280_006_000, 2_400_000_000, 2_400_006_000])
    }
}

extension RobustnessRegressionTests {
    @Test("an onset a day of frames after the anchor lands where the exact rule puts it (106-bit offsets)")
    func dayLongExtrapolation() {
        // Found by the 24-hour soak with a host that reports nothing after its start.
        // 133.7 bpm (a float) at 96 kHz; beat 191582 + 2/3 lies at x - 1e-4 =
        // 8,253,673,786 + 6.6e-7 frames exactly, so it goes on frame 8,253,673,787.
        // In doubles the product comes to 8,253,673,786.0001 and put it a frame early.
        var clock = TransportClock(sampleRate: 96000)
        let tempo = Double(Float(133.7))
        #expect(clock.apply(PositionUpdate(speed: 1, bar: 0, barBeat: 0, beatsPerBar: 4, beatsPerMinute: tempo), atFrame: 0) == .start)
        let beat = BeatRational(191_582).position + BeatRational(numerator: 2, denominator: 3)!.position
        #expect(clock.frame(of: beat) == 8_253_673_787)
    }

    @Test("double-double arithmetic: exact sums and products, and the ceiling decided by the low part")
    func doubleDouble() {
        let p = DoubleDouble.twoProduct(0.1, 3)
        #expect(p.hi == 0.30000000000000004 && p.lo == -2.7755575615628914e-17)
        let s = DoubleDouble.twoSum(1e16, 1)
        #expect(s.hi == 1e16 && s.lo == 1)
        #expect(DoubleDouble(5, 1e-30).ceiling() == 6)
        #expect(DoubleDouble(5, -1e-30).ceiling() == 5)
        #expect(DoubleDouble(5.5, 1e-30).ceiling() == 6)
        #expect(DoubleDouble(-5, 1e-30).ceiling() == -4)
        #expect(DoubleDouble(.nan).ceiling() == nil)
        let third = DoubleDouble(1) / DoubleDouble(3)
        let back = third * DoubleDouble(3)
        #expect(back.hi == 1 && abs(back.lo) < 1e-30)
    }
}

extension RobustnessRegressionTests {
    @Test("a block past the work bound at an absurd rate costs one skip search, not one per onset")
    func skipSearchOncePerSegment() throws {
        // Found by the run() fuzzer: 0.00048 frames a second, 1000 bpm at speed 1000
        // (35 million beats a frame) and a MIDI buffer of one event, so that every
        // onset is dropped. The skip search cannot settle at such beats; it was
        // repeated for each onset the work bound allows, some 8000 searches of up
        // to 128 frame computations each, in every block.
        var renderer = BlockRenderer(sampleRate: 0.0004767922794117647)
        _ = renderer.install(PatternSnapshot.make(try PatternParser.parse("tactus-pattern 1\nlength 7/2\nnote 0 1/2 60 100\nnote 1.75 1/2 67 100\n")))
        defer { renderer.install(nil)?.destroy() }
        var output = MIDIEventBuffer(storageCapacity: 1)
        for block in 0..<8 {
            renderer.beginBlock(frameCount: 13878, output: &output)
            if block == 0 {
                renderer.apply(PositionUpdate(speed: 1000, bar: 10, barBeat: 3.375, beatsPerBar: 7, beatsPerMinute: 1000), atOffset: 0, output: &output)
            }
            renderer.endBlock(output: &output)
            #expect(output.count == 0)
        }
        #expect(renderer.statistics.droppedNoteOns > 8 * 1000)
        // Work, not time: a bounded number of searches a block (two here), each of up to 128
        // frame computations, then the skipped onsets one at a time. Before the fix the search
        // ran again for each onset the bound allows: 15,476 searches in these 8 blocks.
        #expect(renderer.statistics.skipSearches <= 2 * 8, "\(renderer.statistics.skipSearches) skip searches in 8 blocks")
    }
}
