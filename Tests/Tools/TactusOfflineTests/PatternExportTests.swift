import Testing
import TactusEngine
import TactusModel
import TactusOffline

/// `tactus export` of one pattern (docs/midi-files.md, M16-M18): the file
/// holds the events `tactus render` sends over the same passes (the engine
/// plays the pattern), locks and their restores included (timing contract §10.5).
@Suite("Export: what tactus render sends, locks included")
struct PatternExportTests {
    /// Two lanes: locks (overlapping on one controller, one across the loop
    /// end), a ramp across the loop end, swing, a `prob=` note, a bend.
    static let text = """
        tactus-pattern 3
        seed 7
        lane a length 4 channel 1
        note 0 1/2 60 100 cc74=110
        note 1 1 62 100
        note 3/2 1 67 90 cc74=30
        note 7/2 1 64 100 cc74=5 cc71=64
        note 5/2 1/4 65 100 prob=1/2
        cc 74 0 20
        cc 74 2 90 ramp
        cc 71 1 40
        lane b length 3 channel 2 swing 2/3 1/2
        note 0 1/4 36 120
        note 1/2 1/4 38 100
        note 2 1/2 42 80 cc1=127
        bend 1 4000 ramp

        """

    /// The channel messages of a Standard MIDI File's first track, `(tick, bytes)` in file order
    /// (the writer writes every status byte: no running status).
    static func trackEvents(_ file: [UInt8]) -> [(tick: Int64, bytes: [UInt8])] {
        var i = 14
        precondition(Array(file[i..<(i + 4)]) == Array("MTrk".utf8))
        i += 8
        var tick: Int64 = 0
        var out: [(tick: Int64, bytes: [UInt8])] = []
        func quantity() -> Int64 {
            var v: Int64 = 0
            while true {
                let b = file[i]
                i += 1
                v = v << 7 | Int64(b & 0x7F)
                if b & 0x80 == 0 { return v }
            }
        }
        while i < file.count {
            tick += quantity()
            let status = file[i]
            if status == 0xFF {
                let type = file[i + 1]
                i += 2
                let n = Int(quantity())
                i += n
                if type == 0x2F { break }
                continue
            }
            let length = status & 0xF0 == 0xC0 || status & 0xF0 == 0xD0 ? 2 : 3
            out.append((tick, Array(file[i..<(i + length)])))
            i += length
        }
        return out
    }

    @Test("M16: the export's events are tactus render's over the same passes, at the same beats and in the same order (24,000 frames a beat, 96 ticks: a tick is 250 frames); after the end only the note-offs of the notes still sounding and their locks' restores")
    func exportIsRender() throws {
        let pattern = try PatternParser.parse(bytes: Array(Self.text.utf8))
        for loops in [1, 3] {
            let export = PatternExport.export(pattern, text: Array(Self.text.utf8), loops: loops)
            #expect(export.isExact)
            let ppq = Int64(export.ticksPerQuarter)
            #expect(24_000 % ppq == 0)
            let framesPerTick = 24_000 / ppq
            let endFrame = Int64(loops) * 12 * 24_000  // the common cycle: 12 beats
            // The render plays on past the end (a loop plays on), so a note across it ends where it would.
            let played = try render(Self.text, "tactus-transport 1\nrate 48000\n0 tempo 120\n0 play\n\(endFrame + 48_000 * 4) stop\n\(endFrame + 48_000 * 5) end\n")
            let exported = Self.trackEvents(export.bytes).map { (frame: $0.tick * framesPerTick, bytes: $0.bytes) }
            let before = exported.filter { $0.frame < endFrame }
            let renderedBefore = played.filter { $0.frame < endFrame }
            #expect(before.map(\.frame) == renderedBefore.map(\.frame), "loops \(loops)")
            #expect(before.map(\.bytes) == renderedBefore.map(\.bytes), "loops \(loops)")
            // After the end: E4's note-off (beat 4.5 of the last cycle's third pass of lane a) and its restores.
            let after = exported.filter { $0.frame >= endFrame }
            #expect(after.allSatisfy { e in played.contains { $0.frame == e.frame && $0.bytes == e.bytes } })
            #expect(after.contains { $0.bytes == [0x80, 64, 0] && $0.frame == endFrame + 12_000 })
            #expect(after.filter { $0.bytes[0] & 0xF0 == 0x90 }.isEmpty)
            #expect(export.noteCount == renderedBefore.filter { $0.bytes[0] & 0xF0 == 0x90 && $0.bytes[2] > 0 }.count)
        }
    }

    @Test("§10.5 in the file: a lock's control change just before its note-on, its restore just after its note-off, at the note's ticks")
    func lockInTheFile() throws {
        let text = """
            tactus-pattern 3
            lane a length 4
            note 1 1 60 100 cc74=110
            cc 74 0 20

            """
        let export = PatternExport.export(try PatternParser.parse(bytes: Array(text.utf8)), text: Array(text.utf8))
        let events = Self.trackEvents(export.bytes)
        #expect(export.ticksPerQuarter == 96)
        #expect(events.map { [$0.tick] + $0.bytes.map(Int64.init) } == [
            [0, 0xB0, 74, 20],  // the chase at the start (§10.4)
            [96, 0xB0, 74, 110], [96, 0x90, 60, 100],  // the lock, then the note-on
            [192, 0x80, 60, 0], [192, 0xB0, 74, 20],  // the note-off, then the restore
        ])
    }

    @Test("M18: export then import keeps a lock's control changes as points (steps) at the note's start and end; the note comes back without its lock (a file cannot say it was one)")
    func lockRoundTrip() throws {
        let text = """
            tactus-pattern 3
            lane a length 4
            note 1 1 60 100 cc74=110
            note 3 1/2 62 90
            cc 74 0 20

            """
        let export = PatternExport.export(try PatternParser.parse(bytes: Array(text.utf8)), text: Array(text.utf8))
        let back = try MIDIFileImport.importPattern(try MIDIFileReader().read(export.bytes))
        #expect(back.pattern.length == BeatRational(4))
        #expect(back.pattern.notes.map(\.start) == [BeatRational(1), BeatRational(3)])
        #expect(back.pattern.notes.allSatisfy { $0.locks.isEmpty })
        let points = back.pattern.controllers.map { [$0.start.approximateValue, Double($0.value)] }
        #expect(points == [[0, 20], [1, 110], [2, 20]])
    }
}
