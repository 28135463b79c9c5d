import Testing
import TactusEngine
import TactusModel
import TactusOffline

/// A song played once through without a transport script (`tactus export`
/// and `tactus bounce` of a pattern file with a song; timing contract §9.5,
/// docs/midi-files.md M16, docs/bounce.md B3): what `tactus render` plays
/// over the same beats, note for note and program for program.
@Suite("A song once through: export and bounce against tactus render")
struct SongOnceTests {
    /// Triplet cycles (4/3 beats), a program on each pattern, a note held across an entry's end.
    static func text(ending: String) -> String {
        """
        tactus-pattern 3
        pattern a program 1
        lane x length 4/3
        note 0 1/3 60 100
        note 2/3 1/3 62 100
        pattern b program 2 bank 3
        lane x length 2
        note 0 1/2 64 100
        note 3/2 1 67 90
        song \(ending)
        play a 2
        play b

        """
    }

    /// The notes `(on tick, off tick, key)` and programs `(tick, program)` of `tactus render` at 48 kHz, 120 bpm,
    /// over `script`, in ticks of 960 a quarter (a frame is 1/25 of a tick's 25 frames: 24,000 frames a beat).
    static func rendered(_ text: String, script: TransportScript) throws -> (notes: [[Int64]], programs: [[Int64]]) {
        let bytes = Array(text.utf8)
        var log: [LoggedEvent] = []
        _ = OfflineRender(script: script, sampleRate: 48000, blocks: .fixed(256)).run(
            pattern: try PatternParser.parse(bytes: bytes), patternText: bytes, loadPattern: { _ in .failure(PatternLoadError("")) },
            onBlock: { e, _ in log += e })
        var open: [UInt8: Int64] = [:]
        var notes: [[Int64]] = []
        var programs: [[Int64]] = []
        for e in log {
            #expect(e.frame % 25 == 0, "frame \(e.frame) is not on a tick")
            let tick = e.frame / 25
            switch e.bytes[0] & 0xF0 {
            case 0x90 where e.bytes[2] > 0: open[e.bytes[1]] = tick
            case 0x80, 0x90:
                if let on = open.removeValue(forKey: e.bytes[1]) { notes.append([on, tick, Int64(e.bytes[1])]) }
            case 0xC0: programs.append([tick, Int64(e.bytes[1])])
            default: break
            }
        }
        #expect(open.isEmpty, "notes left sounding: \(open)")
        return (notes.sorted { $0.lexicographicallyPrecedes($1) }, programs)
    }

    @Test("tactus export of a song: every note and program change at the tick of tactus render's frame, once through (and twice with --loops 2)", arguments: ["loop", "hold", "stop"])
    func exportEqualsRender(ending: String) throws {
        let text = SongOnceTests.text(ending: ending)
        let bytes = Array(text.utf8)
        let song = try #require(SongOnce(text: bytes))
        #expect(song.length == BeatRational(numerator: 14, denominator: 3)!)
        for times in [1, 2] {
            let file = song.midiFile(pattern: try PatternParser.parse(bytes: bytes), text: bytes, times: times, bpm: 120, name: "song")
            let read = try MIDIFileReader().read(file.bytes)
            #expect(read.ticksPerQuarter == 960)
            let track = try #require(read.tracks.first)
            let notes = track.notes.map { [$0.startTick, $0.endTick, Int64($0.key)] }.sorted { $0.lexicographicallyPrecedes($1) }
            let programs = track.channelEvents.filter { $0.kind == .programChange }.map { [$0.tick, Int64($0.data1)] }
            let expected = try SongOnceTests.rendered(text, script: song.script(times: times, bpm: 120, sampleRate: 48000))
            #expect(notes == expected.notes, "\(ending) × \(times)")
            #expect(programs == expected.programs, "\(ending) × \(times)")
            // Once through: a's two passes (4 notes, from tick 0), b's (2 notes, from 8/3 beats = tick 2560), all ending by 14/3 beats (tick 4480).
            if times == 1 {
                #expect(notes.count == 6 && programs == [[0, 1], [2560, 2]])
                #expect(notes.allSatisfy { $0[1] <= 4480 })
                #expect(track.endTick == 4480)
            } else if ending == "loop" {
                #expect(notes.count == 12 && programs.map { $0[0] } == [0, 2560, 4480, 7040])
            } else if ending == "stop" {
                #expect(notes.count == 6)  // nothing after the song's end
            } else {
                #expect(notes.count > 6 && programs.count == 2)  // b held past the end, with no new program
            }
        }
        #expect(SongOnce(text: Array("tactus-pattern 3\npattern a\nlane x length 1\nnote 0 1/2 60 100\npattern b\nlane x length 1\n".utf8)) == nil)
    }
}
