import Testing
import TactusEngine
import TactusModel

// Pattern format 3's controllers (docs/pattern-format.md, "Version 3"; contract §10):
// the statements, locks, ramp-step, their errors, the writer's round trip and
// the cycle's events (§10.1, §10.2).

private func q(_ n: Int64, _ d: Int64 = 1) -> BeatRational { BeatRational(numerator: n, denominator: d)! }

private let lanes = """
    tactus-pattern 3
    lane bass length 4 channel 2 ramp-step 1/16
    note 0 1 36 100 prob=1/2 cc74=110 cc1=3   # an accent
    note 2 1 38 90 5
    cc 74 0 20
    cc 74 2 100 ramp
    bend 1 -8192 3 ramp
    program 0 5
    pressure 3 64
    lane drums length 1 channel 10
    note 0 1/4 36 120 cc74=127
    cc 7 1/2 90 10
    """

@Suite("Pattern format 3: controllers")
struct ControllerFormatTests {
    @Test("cc, bend, pressure and program points, ramps, ramp-step and locks read as written")
    func readsControllers() throws {
        let p = try PatternParser.parse(lanes)
        #expect(p.laneList[0].rampStep == q(1, 16) && p.laneList[1].rampStep == PatternLane.defaultRampStep)
        #expect(p.notes[0].locks == [ControllerLock(controller: 74, value: 110), ControllerLock(controller: 1, value: 3)])
        #expect(p.notes[0].probability == q(1, 2) && p.notes[1].locks.isEmpty && p.notes[1].channel == 5)
        #expect(p.controllers == [
            ControllerPoint(start: q(0), kind: .control(74), value: 20, channel: 2, lane: 0),
            ControllerPoint(start: q(2), kind: .control(74), value: 100, channel: 2, ramp: true, lane: 0),
            ControllerPoint(start: q(1), kind: .bend, value: -8192, channel: 3, ramp: true, lane: 0),
            ControllerPoint(start: q(0), kind: .program, value: 5, channel: 2, lane: 0),
            ControllerPoint(start: q(3), kind: .pressure, value: 64, channel: 2, lane: 0),
            ControllerPoint(start: q(1, 2), kind: .control(7), value: 90, channel: 10, lane: 1),
        ])
        #expect(p.notes[2].locks == [ControllerLock(controller: 74, value: 127)])
        #expect(p.usesControllers && p.validationError() == nil)
        let a = try PatternParser.arrangement(lanes)
        #expect(a.controllerPointCount == 6 && a.lockCount == 3 && a.needsVersion3 && !a.hasSeveralPatterns)
    }

    @Test("the writer writes version 3 for controllers and its text parses back equal, in every pattern")
    func roundTrip() throws {
        let p = try PatternParser.parse(lanes)
        let written = PatternWriter.text(for: p)
        #expect(written.hasPrefix("tactus-pattern 3\n"))
        #expect(written.contains("lane bass length 4 channel 2 ramp-step 0.0625\n"))
        #expect(written.contains("note 0 1 36 100 prob=0.5 cc74=110 cc1=3\n"))
        #expect(written.contains("bend 1 -8192 3 ramp\n") && written.contains("cc 7 0.5 90\n"))
        #expect(try PatternParser.parse(written) == p)
        let two = lanes.replacingOccurrences(of: "tactus-pattern 3\n", with: "tactus-pattern 3\npattern a\n") + "\npattern b\nlane x length 3\ncc 1 0 0\ncc 1 1 127 ramp\n"
        let a = try PatternParser.arrangement(two)
        let again = PatternWriter.text(for: a)
        #expect(try PatternParser.arrangement(again) == a)
        #expect(a.patterns[1].pattern.controllers.count == 2)
    }

    @Test("errors give the line, the column and the reason; version 2 says what needs version 3")
    func errors() {
        let cases: [(String, Int, Int, String)] = [
            ("lane x length 4\ncc 120 0 0\n", 3, 4, "controller must be 0-119 (120-127 are channel mode messages), found 120"),
            ("lane x length 4\ncc 74 0\n", 3, 1, "'cc' takes N AT VALUE [CHANNEL] [ramp], found 2"),
            ("lane x length 4\nbend 0\n", 3, 1, "'bend' takes AT VALUE [CHANNEL] [ramp], found 1"),
            ("lane x length 4\nprogram 0 1 2 3\n", 3, 1, "'program' takes AT VALUE [CHANNEL], found 4"),
            ("lane x length 4\ncc 74 0 -1\n", 3, 9, "controller value must be 0-127, found -1"),
            ("lane x length 4\npressure 0 128\n", 3, 12, "pressure value must be 0-127, found 128"),
            ("lane x length 4\nprogram 0 128\n", 3, 11, "program value must be 0-127, found 128"),
            ("lane x length 4\nbend 0 -8193\n", 3, 8, "bend value must be -8192 to 8191, found -8193"),
            ("lane x length 4\nbend 0 8191 17\n", 3, 13, "channel must be 1-16, found 17"),
            ("lane x length 4\nprogram 0 5 ramp\n", 3, 13, "a program change cannot ramp"),
            ("lane x length 4\ncc 1 4 0\n", 3, 6, "point start must be less than the lane length"),
            ("lane x length 4\ncc 74 1 0\ncc 74 1 9\n", 4, 0, "cc 74 on channel 1 has two points at beat 1 (first on line 3)"),
            ("lane x length 4\nbend 1/2 0\ncc 1 0 0\nbend 0.5 9 ramp\n", 5, 0, "bend on channel 1 has two points at beat 0.5 (first on line 3)"),
            ("cc 1 0 0\n", 2, 1, "a controller point must follow a 'lane' line"),
            ("pattern a\ncc 1 0 0\n", 3, 1, "a controller point must follow a 'lane' line"),
            ("lane x length 4 ramp-step 0\n", 2, 27, "ramp-step must be greater than 0"),
            ("lane x length 4 ramp-step 1 ramp-step 2\n", 2, 29, "lane option 'ramp-step' is given twice"),
            ("lane x length 4\nnote 0 1 60 100 cc74=x\n", 3, 17, "lock 'cc74=x' must be ccN=V with N 0-119 and V 0-127"),
            ("lane x length 4\nnote 0 1 60 100 cc121=0\n", 3, 17, "lock 'cc121=0' must be ccN=V with N 0-119 and V 0-127"),
            ("lane x length 4\nnote 0 1 60 100 cc1=128\n", 3, 17, "lock 'cc1=128' must be ccN=V with N 0-119 and V 0-127"),
            ("lane x length 4\nnote 0 1 60 100 cc74=1 cc74=2\n", 3, 24, "lock of controller 74 is given twice on this note"),
            ("lane x length 4\nnote 0 1 60 100 1 2\n", 3, 1,
             "'note' takes START DURATION KEY VELOCITY [CHANNEL] [prob=P] [ccN=V ...], found 6"),
            ("lane x length 4 ramp-step 1/1000000\ncc 1 0 0 ramp\n", 4, 0,
             "the lanes send more than 1048576 controller events over their common cycle of 4 beats"),
        ]
        for (body, line, column, reason) in cases {
            do {
                _ = try PatternParser.arrangement("tactus-pattern 3\n" + body)
                Issue.record("accepted: \(body)")
            } catch {
                #expect(error.line == line && error.column == column && error.reasonText == reason, "\(body): \(error.location): \(error.reasonText)")
            }
        }
        let older: [(String, String)] = [
            ("tactus-pattern 2\nlane x length 4\ncc 1 0 0\n", "'cc' needs 'tactus-pattern 3'"),
            ("tactus-pattern 2\nlane x length 4\nprogram 0 0\n", "'program' needs 'tactus-pattern 3'"),
            ("tactus-pattern 2\nlane x length 4 ramp-step 1/8\n", "'ramp-step' needs 'tactus-pattern 3'"),
            ("tactus-pattern 2\nlane x length 4\nnote 0 1 60 100 cc74=110\n", "'cc74=110' needs 'tactus-pattern 3'"),
            ("tactus-pattern 1\nlength 4\nbend 0 0\n", "'bend' needs 'tactus-pattern 3'"),
        ]
        for (text, reason) in older {
            do {
                _ = try PatternParser.arrangement(text)
                Issue.record("accepted: \(text)")
            } catch {
                #expect(error.reasonText == reason, "\(text): \(error.reasonText)")
            }
        }
    }

    @Test("a pattern built in code is checked like a text: range, program ramp, duplicates, locks")
    func validation() {
        let lane = PatternLane(name: Array("x".utf8), length: q(4))
        func problem(_ points: [ControllerPoint], locks: [ControllerLock] = []) -> String? {
            Pattern(
                lanes: [lane], notes: [PatternNote(start: q(0), duration: q(1), key: 60, velocity: 100, locks: locks)], seed: 0,
                commonCycle: q(4), controllers: points
            ).validationError()?.reasonText
        }
        #expect(problem([ControllerPoint(start: q(0), kind: .control(120), value: 0)]) == "controller must be 0-119 (120-127 are channel mode messages), found 120")
        #expect(problem([ControllerPoint(start: q(0), kind: .program, value: 1, ramp: true)]) == "a program change cannot ramp")
        #expect(problem([ControllerPoint(start: q(0), kind: .bend, value: 8192)]) == "bend value must be -8192 to 8191, found 8192")
        #expect(problem([ControllerPoint(start: q(4), kind: .pressure, value: 1)]) == "point start must be less than the lane length")
        #expect(problem([ControllerPoint(start: q(1), kind: .pressure, value: 1), ControllerPoint(start: q(1), kind: .pressure, value: 2)])
            == "pressure on channel 1 has two points at beat 1")
        #expect(problem([], locks: [ControllerLock(controller: 1, value: 1), ControllerLock(controller: 1, value: 2)]) == "lock of controller 1 is given twice on this note")
        #expect(problem([ControllerPoint(start: q(1), kind: .bend, value: -8192, channel: 16, ramp: true)]) == nil)
    }

    @Test("§10.2: a ramp's samples stand on the grid from the previous point, with floor(v0 + (v1 - v0)(g - b0)/(b1 - b0) + 1/2)")
    func rampSamples() throws {
        // cc 74 from 20 at beat 0 to 100 at beat 1, step 1/4: 40, 60, 80, 100.
        let p = try PatternParser.parse("tactus-pattern 3\nlane x length 2 ramp-step 1/4\ncc 74 0 20\ncc 74 1 100 ramp\n")
        let events = try #require(ControllerCycle.events(p))
        #expect(events.map { $0.beat } == [q(0), q(1, 4), q(1, 2), q(3, 4), q(1)])
        #expect(events.map { $0.value } == [20, 40, 60, 80, 100])
        #expect(ControllerCycle.eventCount(p) == 5)
        // Rounding half up, exactly: 0 -> 1 over 3 steps gives 1/3, 2/3, 1: 0, 1, 1.
        let third = try PatternParser.parse("tactus-pattern 3\nlane x length 2 ramp-step 1/3\ncc 1 0 0\ncc 1 1 1 ramp\n")
        #expect(try #require(ControllerCycle.events(third)).map { $0.value } == [0, 0, 1, 1])
        // Across the loop end: the first point ramps from the last, a pass earlier;
        // the samples before the pass's start fall at the end of the cycle.
        let wrap = try PatternParser.parse("tactus-pattern 3\nlane x length 4 ramp-step 1/2\nbend 0 8191 ramp\nbend 3 -8192\n")
        let w = try #require(ControllerCycle.events(wrap))
        #expect(w.map { $0.beat } == [q(0), q(3), q(7, 2)])
        #expect(w.map { $0.value } == [8191, -8192, 0])
        // A step that does not divide the span: samples at 0.3, 0.6, 0.9, then the end 1.
        let odd = try PatternParser.parse("tactus-pattern 3\nlane x length 1 ramp-step 0.3\ncc 1 0 0\ncc 1 0.5 100 ramp\n")
        let o = try #require(ControllerCycle.events(odd))
        #expect(o.map { $0.beat } == [q(0), q(3, 10), q(1, 2)])
        #expect(o.map { $0.value } == [0, 60, 100])
        // One point with ramp glides from itself: one value, once per pass.
        let one = try PatternParser.parse("tactus-pattern 3\nlane x length 1 ramp-step 1/2\ncc 1 0 64 ramp\n")
        #expect(try #require(ControllerCycle.events(one)).map { $0.value } == [64, 64])
    }

    @Test("§10: points are swung like note starts, and lanes of other lengths repeat over the common cycle")
    func swingAndCycle() throws {
        let p = try PatternParser.parse(
            "tactus-pattern 3\nlane a length 1 swing 2/3 1/4\ncc 1 1/4 10\nlane b length 3/2\nprogram 1/2 7 4\n")
        let events = try #require(ControllerCycle.events(p))
        // Cycle 3 beats: lane a three times (1/4 swung to 1/3), lane b twice.
        #expect(events.map { $0.beat } == [q(1, 3), q(1, 2), q(4, 3), q(2), q(7, 3)])
        #expect(events.map { $0.kind } == [.control(1), .program, .control(1), .program, .control(1)])
        #expect(events[1].channel == 4 && events[0].channel == 1)
    }
}
