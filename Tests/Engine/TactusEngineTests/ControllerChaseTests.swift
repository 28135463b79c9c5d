import Testing
import TactusEngine
import TactusModel
import TactusOffline

/// Reading (x): a chase's and a restore's "at or before frame f" is §3's
/// frame rule itself (an event counts exactly when the rule puts it at or
/// before f), so a chase at f sends what uninterrupted play sent last up to
/// and including f, and a restore the lanes' value there.
@Suite("Chase and restore at a frame (timing contract §10.4, §10.5, reading (x))")
struct ControllerChaseTests {
    /// The log of `text` under `actions` at `rate`, with `tempo`, blocks of `block`; `edit` is the text a `pattern` action loads.
    static func render(_ text: String, rate: Int = 48000, tempo: String = "120", _ actions: String, block: Int = 256, edit: String? = nil) throws -> [LoggedEvent] {
        let script = "tactus-transport 1\nrate \(rate)\n0 tempo \(tempo)\n0 play\n" + actions
        let pattern = try PatternParser.parse(text)
        var events: [LoggedEvent] = []
        _ = OfflineRender(script: try TransportScript(parsing: script), sampleRate: Double(rate), blocks: .fixed(block)).run(
            pattern: pattern, patternText: Array(text.utf8),
            loadPattern: { _ in
                guard let edit, let p = try? PatternParser.parse(edit) else { return .failure(PatternLoadError("no edit")) }
                return .success((p, Array(edit.utf8)))
            },
            onBlock: { e, _ in events += e })
        return events
    }

    static func lines(_ log: [LoggedEvent], at frame: Int64) -> [String] {
        log.filter { $0.frame == frame }.map { EventLog.line($0) }
    }

    // 120 bpm at 48 kHz: 24000 frames a beat. Beat 1 + 1/480000000 lies 1/20000
    // frame after frame 24000 (within §3's 1e-4: sent at 24000), 2.1e-9 beat
    // after the frame's beat (more than the 1e-9 beat the chase once allowed).
    static let nearEdge = "480000001/480000000"
    // 3/20000 frame after it: past the tolerance, sent a frame later.
    static let pastEdge = "480000003/480000000"

    @Test("a jump's chase counts the event §3 sends at the jump's frame (1/20000 frame after it) and not the one it sends a frame later")
    func chaseAtTheFrameRule() throws {
        let text = "tactus-pattern 3\nlane a length 4\ncc 74 0 10\ncc 74 \(ControllerChaseTests.nearEdge) 20\ncc 1 0 10\ncc 1 \(ControllerChaseTests.pastEdge) 20\n"
        // At frame 30000 play is at beat 1.25: beat 1 is a jump (§4), from frame 30000 at beat 1.
        let log = try ControllerChaseTests.render(text, "30000 locate 1\n60000 stop\n61000 end\n")
        // cc 74: the chase sends 20 at once (the event itself then sends nothing new); cc 1: 10, then its 20 a frame later.
        #expect(ControllerChaseTests.lines(log, at: 30000) == ["30000 b0 01 0a", "30000 b0 4a 14"])
        #expect(ControllerChaseTests.lines(log, at: 30001) == ["30001 b0 01 14"])
    }

    @Test("a restore at a note-off's frame sends the lanes' value with the event §3 sends at that frame counted (no stale value first)")
    func restoreAtTheFrameRule() throws {
        let text = "tactus-pattern 3\nlane a length 4\nnote 0 1 36 100 cc74=120 cc1=120\ncc 74 0 10\ncc 74 \(ControllerChaseTests.nearEdge) 20\ncc 1 0 10\ncc 1 \(ControllerChaseTests.pastEdge) 20\n"
        let log = try ControllerChaseTests.render(text, "60000 stop\n61000 end\n")
        // The note ends at beat 1, frame 24000: cc 1 restores to 10 (its 20 comes a frame later), cc 74 to 20.
        #expect(ControllerChaseTests.lines(log, at: 24000) == ["24000 80 24 00", "24000 b0 01 0a", "24000 b0 4a 14"])
        #expect(ControllerChaseTests.lines(log, at: 24001) == ["24001 b0 01 14"])
    }

    @Test("§10.6: every note-off of a frame before its first restore; restores in note-off order, one note's by controller number")
    func noteOffsBeforeRestores() throws {
        let text = """
            tactus-pattern 3
            lane a length 4
            note 0 1 36 100 cc74=120 cc1=100
            note 0 1 38 100 cc7=90
            cc 74 0 10 2
            cc 1 0 11
            cc 7 0 12
            cc 74 0 13
            lane b length 4 channel 2
            note 0 1 40 100 cc74=50

            """
        let log = try ControllerChaseTests.render(text, "60000 stop\n61000 end\n")
        #expect(ControllerChaseTests.lines(log, at: 24000) == [
            "24000 80 24 00", "24000 80 26 00", "24000 81 28 00",
            "24000 b0 01 0b", "24000 b0 4a 0d", "24000 b0 07 0c", "24000 b1 4a 0a",
        ])
    }

    @Test("§10.6 with §5 rule 3: a retrigger's note-off is one of the frame's note-offs (after the others), before the restores, the controllers and the note-on")
    func retriggerAmongNoteOffs() throws {
        let text = "tactus-pattern 3\nlane a length 4\nnote 0 1 62 100 cc1=90\nnote 0 2 60 100 cc74=120\nnote 1 1 60 100\ncc 74 0 40\ncc 1 0 10\ncc 7 0 1\ncc 7 1 64\n"
        let log = try ControllerChaseTests.render(text, "60000 stop\n61000 end\n")
        #expect(ControllerChaseTests.lines(log, at: 24000) == [
            "24000 80 3e 00", "24000 80 3c 00", "24000 b0 01 0a", "24000 b0 4a 28", "24000 b0 07 40", "24000 90 3c 64",
        ])
    }

    /// A random lane of `cc 74` points (ramps across the loop end too), swing, and notes that lock
    /// `cc 74` without touching one another; with the locks, and without (the uninterrupted lane).
    static func randomLane(_ rng: inout SplitMix64) -> (locked: String, free: String) {
        func pick<T>(_ xs: [T]) -> T { xs[Int(rng.next() % UInt64(xs.count))] }
        let length = pick([3, 4, 5])
        var lane = "lane a length \(length) ramp-step " + pick(["1/7", "1/16", "1/5", "1/3"])
        if rng.next() % 2 == 0 { lane += " swing " + pick(["3/5 1/4", "2/3 1/3", "0.57 1/2"]) }
        var points = ""
        var used: Set<Int> = []
        for _ in 0..<(2 + Int(rng.next() % 5)) {
            let at = Int(rng.next() % UInt64(length * 12))
            guard used.insert(at).inserted else { continue }
            points += "cc 74 \(at)/12 \(rng.next() % 128)" + (rng.next() % 2 == 0 ? " ramp" : "") + "\n"
        }
        var locked = ""
        var free = ""
        var at = Int(rng.next() % 6)
        while at + 2 < length * 6 {
            let duration = 1 + Int(rng.next() % UInt64(min(8, length * 6 - at - 1)))
            locked += "note \(at)/6 \(duration)/6 \(40 + at) 100 cc74=\(rng.next() % 128)\n"
            free += "note \(at)/6 \(duration)/6 \(40 + at) 100\n"
            at += duration + 1 + Int(rng.next() % 6)
        }
        return ("tactus-pattern 3\n" + lane + "\n" + locked + points, "tactus-pattern 3\n" + lane + "\n" + free + points)
    }

    /// The last `cc 74` value of `log` at or before `frame` (nil: none yet).
    static func value(_ log: [LoggedEvent], atOrBefore frame: Int64) -> UInt8? {
        log.last { $0.frame <= frame && $0.bytes.count == 3 && $0.bytes[0] == 0xB0 && $0.bytes[1] == 74 }?.bytes[2]
    }

    @Test("property: at every note-off that ends a lock, the restore leaves cc 74 at what the uninterrupted lane sent last at or before that frame, with no other value first; a chase at a new text sends nothing the uninterrupted run had not sent (random points, ramps, swing, tempos, rates)")
    func chaseEqualsUninterruptedPlay() throws {
        var restores = 0
        var edits = 0
        for seed in UInt64(1)...UInt64(60) {
            var rng = SplitMix64(seed: seed)
            let (locked, free) = ControllerChaseTests.randomLane(&rng)
            let rate = [44100, 48000, 96000, 22050][Int(rng.next() % 4)]
            let tempo = ["120", "97.3", "133.7", "61.25", "187.5"][Int(rng.next() % 5)]
            let end = Int64(rate) * 12
            let change = Int64(rng.next() % UInt64(end / 2)) + end / 4
            let newTempo = ["90", "143.21", "71.5"][Int(rng.next() % 3)]
            func actions(editAt at: Int64? = nil) -> String {
                var lines = [(change, "tempo \(newTempo)")]
                if let at { lines.append((at, "pattern same")) }
                return lines.sorted { $0.0 < $1.0 }.map { "\($0.0) \($0.1)\n" }.joined() + "\(end) stop\n\(end + 100) end\n"
            }
            let uninterrupted = try ControllerChaseTests.render(free, rate: rate, tempo: tempo, actions())
            // Restores: after each note-off, cc 74 is the lanes' value there, and is nothing else at that frame.
            let withLocks = try ControllerChaseTests.render(locked, rate: rate, tempo: tempo, actions())
            for off in withLocks where off.bytes[0] == 0x80 && off.frame < end {
                let lanes = ControllerChaseTests.value(uninterrupted, atOrBefore: off.frame)
                let sent = withLocks.filter { $0.frame == off.frame && $0.bytes.count == 3 && $0.bytes[0] == 0xB0 && $0.bytes[1] == 74 }
                #expect(sent.allSatisfy { $0.bytes[2] == lanes }, "seed \(seed): at \(off.frame) \(sent.map { EventLog.line($0) }), lanes \(String(describing: lanes))\n\(locked)")
                #expect(ControllerChaseTests.value(withLocks, atOrBefore: off.frame) == lanes || lanes == nil, "seed \(seed): at \(off.frame)\n\(locked)")
                restores += 1
            }
            // A chase at a new text (the same text, at a random frame): the log is the uninterrupted one.
            let at = Int64(rng.next() % UInt64(end - 1000))
            let edited = try ControllerChaseTests.render(free, rate: rate, tempo: tempo, actions(editAt: at), edit: free)
            #expect(edited == uninterrupted, "seed \(seed): an edit at \(at) changed the log\n\(free)")
            edits += 1
        }
        #expect(restores > 300 && edits == 60, "\(restores) restores")
    }
}
