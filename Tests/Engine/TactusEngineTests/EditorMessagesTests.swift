import Testing
import TactusEngine
import TactusModel

// The timing contract's §8: what the editor adds to what the engine emits
// (an auditioned note while stopped, the playhead while an editor is open).
// At 48 kHz, 0.25 s is 12000 frames; 1/30 s is 1600.

@Suite("§8 the editor's audition and playhead, in the engine")
struct EditorMessagesTests {
    private static func rolling() -> PositionUpdate {
        var update = PositionUpdate()
        update.speed = 1; update.bar = 0; update.barBeat = 0; update.beatsPerBar = 4; update.beatsPerMinute = 120
        return update
    }

    private static func stopped(atBeat beat: Double) -> PositionUpdate {
        var update = PositionUpdate()
        update.speed = 0; update.beat = beat; update.beatsPerBar = 4; update.beatsPerMinute = 120
        return update
    }

    /// Runs blocks of `size` frames; `step(block, &sequencer)` acts inside each. The log holds `frame status key velocity`.
    private static func run(
        blocks: Int, size: Int, pattern: PatternSnapshot? = nil,
        _ step: (Int, inout Sequencer) -> Void
    ) -> (events: [String], playheads: [(Int, Playhead)]) {
        var sequencer = Sequencer(sampleRate: 48000, eventCapacity: 256, pattern: pattern)
        var events: [String] = []
        var playheads: [(Int, Playhead)] = []
        for block in 0..<blocks {
            sequencer.beginBlock(frameCount: size, eventCapacity: 256)
            step(block, &sequencer)
            sequencer.endBlock()
            for e in sequencer.events { events.append("\(block * size + Int(e.offset)) \(e.status) \(e.data1) \(e.data2)") }
            if sequencer.takeOwed().contains(.playhead) { playheads.append(((block + 1) * size, sequencer.playhead)) }
        }
        return (events, playheads)
    }

    @Test("§8.1: an audition while stopped sounds at its frame and ends at the first block start 0.25 s later")
    func auditionWhileStopped() {
        let log = Self.run(blocks: 40, size: 1000) { block, s in
            if block == 2 { let on = s.audition(key: 60, velocity: 90, channel: 3, atOffset: 300); #expect(on) }
        }.events
        // Note-on at 2300; 2300 + 12000 = 14300; the first block start at or after it is 15000.
        #expect(log == ["2300 146 60 90", "15000 130 60 0"])
    }

    @Test("§8.1: a second audition ends the first at its own frame; rolling ignores auditions and ends a sounding one")
    func auditionReplacedAndRolling() {
        let log = Self.run(blocks: 40, size: 1000) { block, s in
            if block == 1 { s.audition(key: 60, velocity: 90, channel: 1, atOffset: 0) }
            if block == 3 { s.audition(key: 64, velocity: 80, channel: 1, atOffset: 10) }
            if block == 5 { s.apply(Self.rolling(), atOffset: 500) }
            if block == 6 { let on = s.audition(key: 67, velocity: 80, channel: 1, atOffset: 0); #expect(!on) }
        }.events
        #expect(log.contains("1000 144 60 90"))
        #expect(log.contains("3010 128 60 0"))
        #expect(log.contains("3010 144 64 80"))
        #expect(log.contains("6000 128 64 0"))  // the block start after the transport started
        #expect(!log.contains { $0.hasSuffix(" 67 80") })
    }

    @Test("§8.1: CC 123 and re-activation end an auditioned note: none is left sounding")
    func auditionNeverStuck() {
        let cut = Self.run(blocks: 10, size: 1000) { block, s in
            if block == 1 { s.audition(key: 50, velocity: 90, channel: 1, atOffset: 0) }
            if block == 2 { s.allNotesOff(atOffset: 700) }
        }.events
        #expect(cut == ["1000 144 50 90", "2700 128 50 0"])
        let deactivated = Self.run(blocks: 10, size: 1000) { block, s in
            if block == 1 { s.audition(key: 50, velocity: 90, channel: 1, atOffset: 0) }
            if block == 2 { s.activate() }
        }.events
        #expect(deactivated == ["1000 144 50 90", "3000 128 50 0"])
    }

    @Test("§8.1: bad auditions are refused (key, velocity, channel out of range)")
    func auditionRefused() {
        let log = Self.run(blocks: 3, size: 100) { block, s in
            guard block == 0 else { return }
            do { let on = s.audition(key: 128, velocity: 90, channel: 1, atOffset: 0); #expect(!on) }
            do { let on = s.audition(key: 60, velocity: 0, channel: 1, atOffset: 0); #expect(!on) }
            do { let on = s.audition(key: 60, velocity: 90, channel: 17, atOffset: 0); #expect(!on) }
            do { let on = s.audition(key: 60, velocity: 90, channel: 0, atOffset: 0); #expect(!on) }
        }.events
        #expect(log.isEmpty)
    }

    @Test("§8.2: no playhead without a lease; with one, at its first block, at once on a start, every 1/30 s while rolling, until the lease runs out")
    func playheadLease() {
        let result = Self.run(blocks: 200, size: 1000) { block, s in
            if block == 10 { s.editorOpened() }
            if block == 20 { s.apply(Self.rolling(), atOffset: 0) }
        }
        let frames = result.playheads.map(\.0)
        // The end of the block the lease started in; nothing more while stopped; the start at once;
        // then 1/30 s = 1600 frames: with 1000-frame blocks, every second block.
        #expect(frames.prefix(5) == [11000, 21000, 23000, 25000, 27000])
        // A lease of 3 s (144000 frames) from 10000: nothing after 154000 + one block.
        #expect(frames.last! <= 155000)
        #expect(frames.last! >= 150000)
        // Rolling at 120 bpm from beat 0 at frame 20000: the beat at the end of block 29 is (30000 - 20000) / 24000.
        let at30000 = result.playheads.first { $0.0 == 31000 || $0.0 == 30000 }!
        #expect(at30000.1.speed == 1)
        #expect(at30000.1.beatsPerMinute == 120)
        #expect(abs(at30000.1.beat - Double(at30000.0 - 20000) / 24000) < 1e-9)
    }

    @Test("§8.2: editorClosed stops the playhead; a locate while stopped is sent at once")
    func playheadClosedAndLocate() {
        let result = Self.run(blocks: 60, size: 64) { block, s in
            if block == 0 { s.editorOpened() }
            if block == 3 { s.apply(Self.stopped(atBeat: 8), atOffset: 0) }
            if block == 40 { s.editorClosed() }
        }
        // The lease's first block, then the locate: nothing else while stopped, nothing after the close.
        #expect(result.playheads.map(\.0) == [64, 4 * 64])
        #expect(result.playheads[1].1.beat == 8 && result.playheads[1].1.speed == 0)
    }

    @Test("§8: the pattern's own events are the same, frame for frame, with an editor open and auditions refused while rolling")
    func patternUnchanged() throws {
        let snapshot = { PatternSnapshot.make(try! PatternParser.parse("tactus-pattern 1\nlength 1\nnote 0 1/2 60 100\nnote 1/3 1/4 64 90 2\n")) }
        let plain = Self.run(blocks: 300, size: 256, pattern: snapshot()) { block, s in
            if block == 0 { s.apply(Self.rolling(), atOffset: 17) }
        }.events
        let withEditor = Self.run(blocks: 300, size: 256, pattern: snapshot()) { block, s in
            if block == 0 { s.apply(Self.rolling(), atOffset: 17) }
            if block % 50 == 0 { s.editorOpened() }
            if block % 7 == 0 { s.audition(key: 70, velocity: 100, channel: 1, atOffset: 3) }
        }.events
        #expect(plain == withEditor)
        #expect(plain.count > 10)
    }
}
