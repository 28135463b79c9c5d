import Testing
import TactusEngine
import TactusModel
import TactusOffline

// Timing contract §10: controllers to the frame, through the engine every
// surface runs (OfflineRender is `tactus render`); the worked examples 11-14.

private func script(_ actions: String) -> String { "tactus-transport 1\nrate 48000\n0 tempo 120\n0 play\n" + actions }

private let ramp = "tactus-pattern 3\nlane filter length 2 ramp-step 1/4\ncc 74 0 20\ncc 74 1 100 ramp\n"

@Suite("Controllers (timing contract §10)")
struct ControllerTests {
    @Test("worked example 11: a ramp's samples on the grid, floor(v0 + (v1 - v0)(g - b0)/(b1 - b0) + 1/2); the stop sends nothing")
    func example11() throws {
        let log = try render(ramp, script("60000 stop\n70000 end\n"))
        #expect(lines(log) == ["0 b0 4a 14", "6000 b0 4a 28", "12000 b0 4a 3c", "18000 b0 4a 50", "24000 b0 4a 64", "48000 b0 4a 14", "54000 b0 4a 28"])
    }

    @Test("worked example 12: a jump into a ramp chases the last sample at or before the target, then keeps the ramp's grid")
    func example12() throws {
        let log = try render(ramp, script("30000 locate 0.6\n60000 stop\n70000 end\n"))
        #expect(lines(log).suffix(4) == ["24000 b0 4a 64", "30000 b0 4a 3c", "33600 b0 4a 50", "39600 b0 4a 64"])
    }

    @Test("worked example 13: a lock across the loop end holds the lane's point back and restores the lane's value after the note-off")
    func example13() throws {
        let text = "tactus-pattern 3\nlane bass length 2\nnote 3/2 1 36 100 cc74=120\ncc 74 0 40\ncc 74 1 80\n"
        let log = try render(text, script("100000 stop\n110000 end\n"))
        #expect(lines(log) == [
            "0 b0 4a 28", "24000 b0 4a 50", "36000 b0 4a 78", "36000 90 24 64", "60000 80 24 00", "60000 b0 4a 28",
            "72000 b0 4a 50", "84000 b0 4a 78", "84000 90 24 64", "100000 80 24 00",
        ])
    }

    @Test("worked example 14: locks that end at one frame: every note-off of the frame (of every lane), then the restores in note-off order, one note's by controller number")
    func example14() throws {
        let text = "tactus-pattern 3\nlane keys length 2\nnote 0 1 60 100 cc74=120\nnote 0 1 64 100 cc74=120 cc1=90\ncc 74 0 40\ncc 1 0 10\nlane bass length 2 channel 2\nnote 0 1 36 100 cc74=127\ncc 74 0 20\n"
        let log = try render(text, script("40000 stop\n41000 end\n"))
        #expect(lines(log).filter { $0.hasPrefix("24000 ") } == [
            "24000 80 3c 00", "24000 80 40 00", "24000 81 24 00", "24000 b0 01 0a", "24000 b0 4a 28", "24000 b1 4a 14",
        ])
    }

    @Test("§10.5: overlapping locks of one controller: the newest holds, the restore comes when the last ends; with no lane points it returns to the value before the lock")
    func overlappingLocks() throws {
        let text = "tactus-pattern 3\nlane a length 4\nnote 0 2 60 100 cc1=10\nnote 1 2 62 100 cc1=20\nnote 3 1/2 64 100\nlane b length 4\nnote 1/2 1/4 70 100\n"
        // Before any lock nothing was sent for cc 1: the restore sends nothing.
        let log = try render(text, script("90000 stop\n100000 end\n"))
        #expect(lines(log).filter { $0.contains(" b0 ") } == ["0 b0 01 0a", "24000 b0 01 14"])
        // A lane value set before: the restore returns to it.
        let withValue = text + "cc 1 0 64\n"
        let log2 = try render(withValue, script("90000 stop\n100000 end\n"))
        #expect(lines(log2).filter { $0.contains(" b0 ") } == ["0 b0 01 40", "0 b0 01 0a", "24000 b0 01 14", "72000 b0 01 40"])
    }

    @Test("§10.3: a value goes out only when it differs; a pattern's own program counts as sent; §10.4: a switch chases the new pattern's lanes")
    func onlyWhatChangesAndSwitchChase() throws {
        let text = """
            tactus-pattern 3
            trigger program
            pattern a program 5 channel 1
            lane x length 1
            note 0 1/2 60 100
            program 0 5
            cc 7 0 100
            cc 7 1/2 100
            pattern b
            lane x length 1
            note 0 1/2 62 100
            cc 7 0 90
            program 0 6

            """
        let log = lines(try render(text, script("30000 midi c0 01\n100000 stop\n110000 end\n")))
        // At 0: the pattern's program (always), the lane's program 5 is the same: not sent again; cc 7 100 once.
        #expect(log.prefix(3) == ["0 c0 05", "0 b0 07 64", "0 90 3c 64"])
        #expect(!log.contains("24000 b0 07 64"))
        // The switch at the next bar (beat 4, frame 96000): b's program 6 before its cc 7 90.
        #expect(log.contains("96000 c0 06") && log.contains("96000 b0 07 5a"))
        #expect(log.firstIndex(of: "96000 c0 06")! < log.firstIndex(of: "96000 b0 07 5a")!)
    }

    @Test("a muted lane sends no controllers; key-follow moves notes, not controllers")
    func mutesAndFollow() throws {
        let text = "tactus-pattern 3\nlane a length 1 follow 60\nnote 0 1/4 60 100 cc74=1\ncc 10 0 64\nlane b length 1\ncc 11 0 30\ncc 11 1/2 90 ramp\n"
        let muted = lines(try render(text, script("0 mute 1\n48000 stop\n50000 end\n")))
        #expect(!muted.contains { $0.contains(" b0 0b ") })
        #expect(muted.contains("0 b0 0a 40") && muted.contains("0 b0 4a 01"))
        let followed = lines(try render(text, script("0 midi 90 3e 64\n48000 stop\n50000 end\n")))
        #expect(followed.contains("0 90 3e 64") && followed.contains("0 b0 0a 40"))
    }

    @Test("any block partition gives the same log: ramps, locks, programs, bends, jumps, a loop and tempo changes")
    func partitionInvariance() throws {
        let text = """
            tactus-pattern 3
            lane bass length 4 channel 2 ramp-step 1/64 swing 3/5 1/4
            note 0 1 36 100 cc74=120
            note 1/2 1 38 90 cc74=10 cc1=64
            note 3 3/2 40 90 cc74=50
            cc 74 0 0
            cc 74 3 127 ramp
            bend 2 -8192 ramp
            bend 3 8191 ramp
            pressure 1 64
            program 0 7
            lane lead length 3/2 channel 3
            note 0 1/4 60 100 cc74=90
            note 1/4 1/4 62 100 cc74=91 cc7=1
            cc 1 0 0
            cc 1 1 127 ramp

            """
        let actions = "50000 tempo 97.3\n130000 locate 7.25\n200000 loop 2 5\n400000 loop off\n420000 tempo 150\n480000 stop\n500000 play\n600000 stop\n610000 end\n"
        let reference = try render(text, script(actions))
        #expect(reference.count > 500)
        for plan in [BlockPlan.fixed(1), .fixed(4096), .random(minimum: 1, maximum: 3000, seed: 7), .random(minimum: 1, maximum: 64, seed: 8)] {
            #expect(try render(text, script(actions), blocks: plan) == reference, "blocks \(plan)")
        }
    }
}
