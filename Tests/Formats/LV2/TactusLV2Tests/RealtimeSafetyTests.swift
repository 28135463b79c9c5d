import Foundation
import Testing
import TactusOffline

/// The second proof of realtime safety (the first is `@_noLocks` in the
/// source): the plugin runs through the host for well over 10^5 blocks with a
/// rolling transport, tempo changes, seeks, stops, all-notes-off, patch:Get and
/// pattern edits by text and by file, good and bad, an open editor (its
/// playhead and auditions, timing contract §8; its pattern requests and the
/// scene messages, §9), with the MIDI clock on
/// (§12: its `clock` toggle, in the hosts with a worker), for three kinds of host,
/// while a preloaded interposer counts every allocator and lock call made
/// inside `run()` and `work_response()`.
@Suite("Realtime safety")
struct RealtimeSafetyTests {
    /// The kinds of host: positions on change (jalv, Ardour); every block as
    /// `atom:Blank` (Carla); and one without a worker, whose edits `run()` refuses.
    static let hosts = ["on-change", "every-block-blank", "no-worker"]

    @Test("no allocator or lock call inside run() or work_response() in 10^5 blocks", arguments: hosts)
    func noAllocationsOrLocks(host: String) throws {
        var script = "tactus-transport 1\nrate 48000\n0 tempo 120\n0 play\n"
        if host == "every-block-blank" { script += "send every-block\natom blank\n" }
        var frame: Int64 = 0
        var i = 0
        let actions = [
            "tempo 133.7", "locate 17.25", "pattern a.pattern", "tempo 90", "stop", "play", "all-notes-off", "get",
            "pattern-file b.pattern", "loop 4 6", "loop off", "locate 3.001", "tempo 174", "pattern b.pattern", "get pattern",
            "position barBeat=2.5:d", "cc 120", "pattern bad.pattern", "pattern-file missing.pattern", "get error",
            // Version 2 (timing contract §7): lanes, swing, chance, a followed key, CC 121.
            "pattern c.pattern", "midi 90 43 64", "locate 1.5", "midi 91 30 40", "midi b0 79 00", "midi 80 43 00",
            // The editor's pattern messages (docs/plugin.md, "Messages"): a 50 KB pattern the plugin sends in
            // pieces, a one-note edit (a change), an edit of every note (in pieces, with receipts), back again.
            "pattern big.pattern", "edit big-one.pattern", "edit big-every.pattern", "edit big-one.pattern", "get pattern",
            // Version 3 (timing contract §9): patterns switched by program, note and cc triggers; a song across seeks.
            "pattern d.pattern", "midi c0 01", "midi b0 00 00", "midi c0 02", "locate 9", "midi 90 24 64", "midi c0 00",
            "midi b0 14 02", "stop", "midi c0 01", "play", "request chorus", "request fill now", "request verse bars 2",
            "pattern-file e.pattern", "locate 30.5", "loop 2 7", "song off", "request b end", "loop off", "request a", "song on",
            // Controllers (timing contract §10): ramps, points, locks, chases at starts, jumps and switches.
            "pattern f.pattern", "locate 6.5", "midi c0 01", "stop", "play", "loop 1 3", "loop off", "tempo 150",
        ]
        while frame < 8_000_000 {
            frame += 20_011
            script += "\(frame) \(actions[i % actions.count])\n"
            i += 1
        }
        script += "\(frame + 10_000) end\n"
        let dir = try PluginProcess.folder([
            "script.transport": script,
            "a.pattern": "tactus-pattern 1\nlength 1\nnote 0 1/8 60 100\nnote 1/3 1/3 64 90 2\n",
            "b.pattern": "tactus-pattern 1\nlength 7/3\nnote 0 2 48 100\nnote 1/7 1/4 67 80\nnote 2 1/100000 72 60\n",
            "bad.pattern": "tactus-pattern 1\nlength 2\nnote 3 1 60 100\n",
            "big.pattern": RealtimeSafetyTests.big(key: 60, shift: 0),
            "big-one.pattern": RealtimeSafetyTests.big(key: 61, shift: 0),
            "big-every.pattern": RealtimeSafetyTests.big(key: 61, shift: 5),
            "d.pattern": """
                tactus-pattern 3
                switch at bar phase keep notes ring grace 1/16
                trigger program
                trigger note C1
                trigger cc 20 in 1
                pattern verse program 3 bank 1 2
                lane a length 4
                note 0 1 60 100
                note 3 3 62 90
                pattern chorus program 4 channel 2
                lane a length 3
                note 0 1/2 64 90
                lane b length 5/2 swing 2/3 1/4
                note 1/4 1/8 42 80 10
                pattern fill
                lane a length 1
                note 0 1/8 38 100 10

                """,
            "e.pattern": """
                tactus-pattern 3
                pattern a program 1
                lane x length 2
                note 0 1/2 60 100
                pattern b program 2
                lane x length 3
                note 0 5 70 100
                song loop
                play a 2
                play b 3

                """,
            "f.pattern": """
                tactus-pattern 3
                trigger program
                pattern sweep program 5
                lane bass length 4 channel 2 ramp-step 1/64
                note 0 1 36 100 cc74=120
                note 1/2 1 38 90 cc74=10 cc1=64
                cc 74 0 0
                cc 74 3 127 ramp
                bend 2 -8192 ramp
                bend 3 8191 ramp
                pressure 1 64
                program 0 7
                pattern lead
                lane a length 3/2 swing 2/3 1/4
                note 0 1/4 60 100 cc74=90
                cc 1 0 0
                cc 1 1 127 ramp

                """,
            "c.pattern": """
                tactus-pattern 2
                seed 3
                lane kick length 4
                note 0 1/4 36 110 10
                note 5/2 1/4 36 90 10 prob=1/2
                lane hats length 3/2 swing 2/3 1/4
                note 0 1/8 42 80 10
                note 1/4 1/8 42 60 10 prob=0.7
                lane bass length 7 follow 48
                note 0 1/2 36 100
                note 3/2 1/4 43 90

                """,
        ])
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = try PluginProcess.run(
            in: dir, blocks: "random:1-128@11", arguments: ["--quiet", "--editor"] + (host == "no-worker" ? ["--no-worker"] : ["--clock"]), rtcheck: true)
        #expect(out.status == 0, "\(out.stderr)")
        let report = out.stderr.split(separator: "\n").first { $0.hasPrefix("rtcheck:") }.map(String.init) ?? out.stderr
        let words = report.split(separator: " ")
        let blocks = words.count > 1 ? Int(words[1]) ?? 0 : 0
        #expect(blocks >= 100_000, "\(report)")
        #expect(report.contains(" 0 allocator calls and 0 lock calls"), "\(report)")
        // The edits were really applied (each accepted edit is announced on notify), and the bad ones refused.
        let notify = try String(contentsOf: dir.appendingPathComponent("notify.log"), encoding: .utf8).split(separator: "\n")
        let changes = notify.filter { $0.hasSuffix("state:StateChanged") }.count
        let refusals = notify.filter { $0.contains("urn:tactus:error") }.count
        // An editor was open all along (§8): the playhead went out, about 30 times a second while it rolled.
        let playheads = notify.filter { $0.contains("urn:tactus:playhead") }.count
        #expect(playheads > 137 * 15, "\(playheads) playheads")
        // §9: what plays and what waits went out at each change (the editor's requests, the triggers, the song).
        let scenes = notify.filter { $0.contains("urn:tactus:scene") }.count
        #expect(host == "no-worker" || scenes > 120, "\(scenes) scene messages")
        if host == "no-worker" {
            #expect(changes == 0 && refusals > 60)
        } else {
            #expect(changes > 40 && refusals > 40)
            // The large pattern went out in pieces and the editor's large edits came in with receipts.
            #expect(notify.filter { $0.contains("urn:tactus:textPiece") }.count > 20)
            #expect(notify.filter { $0.contains("urn:tactus:textReceipt") }.count > 50)
        }
    }

    /// 1,800 notes (about 50 KB of text): more than an announcement in one message (32 KiB), so it travels in pieces both ways.
    static func big(key: Int, shift: Int) -> String {
        var text = "tactus-pattern 1\n# 1,800 notes\nlength 400\n"
        for k in 0..<1800 { text += "note \(k)/10 1/16 \(k == 3 ? key : 40 + k % 30) \(1 + (k + shift) % 127)  # a comment for length \(k)\n" }
        return text
    }
}
