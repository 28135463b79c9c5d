import Testing
import TactusEngine
import TactusModel
import TactusOffline

// Import (docs/midi-files.md M10-M15) and export (M16-M18).

private func header(format: UInt8 = 1, tracks: UInt8 = 1, ppq: UInt8 = 96) -> [UInt8] {
    [0x4D, 0x54, 0x68, 0x64, 0, 0, 0, 6, 0, format, 0, tracks, 0, ppq]
}

private func track(_ body: [UInt8]) -> [UInt8] {
    [0x4D, 0x54, 0x72, 0x6B, 0, 0, UInt8(body.count >> 8), UInt8(body.count & 0xFF)] + body
}

private func beats(_ n: Int64, _ d: Int64 = 1) -> BeatRational { BeatRational(numerator: n, denominator: d)! }

private func imported(_ bytes: [UInt8], _ options: MIDIImportOptions = MIDIImportOptions(), sourceLocation: SourceLocation = #_sourceLocation) -> MIDIImport? {
    do {
        let file = try MIDIFileReader().read(bytes)
        do {
            return try MIDIFileImport.importPattern(file, options: options)
        } catch {
            Issue.record("import refused: \(error.message)", sourceLocation: sourceLocation)
        }
    } catch {
        Issue.record("read refused: \(error.message)", sourceLocation: sourceLocation)
    }
    return nil
}

private func importRefusal(_ bytes: [UInt8], _ options: MIDIImportOptions) -> String? {
    guard let file = try? MIDIFileReader().read(bytes) else { return "unreadable" }
    do {
        _ = try MIDIFileImport.importPattern(file, options: options)
        return nil
    } catch {
        return error.message
    }
}

/// Two tracks at PPQ 7 (so beats are sevenths): a tempo track in 3/4 with a
/// program change, and a track with notes on channels 1 and 2.
private let twoTracks: [UInt8] = header(tracks: 2, ppq: 7)
    + track([
        0x00, 0xFF, 0x51, 0x03, 0x07, 0xA1, 0x20,  // 120 bpm
        0x00, 0xFF, 0x58, 0x04, 0x03, 0x02, 0x18, 0x08,  // 3/4
        0x00, 0xFF, 0x2F, 0x00,
    ])
    + track([
        0x00, 0xFF, 0x03, 0x03, 0x4C, 0x65, 0x61,  // "Lea"
        0x00, 0xC0, 0x05,  // program change
        0x03, 0x90, 0x3C, 0x64,  // tick 3 = 3/7 beat
        0x07, 0x80, 0x3C, 0x00,  // tick 10
        0x00, 0x91, 0x40, 0x50,  // channel 2 at 10
        0x00, 0x81, 0x40, 0x00,  // ended at once: zero length (M12)
        0x1C, 0x90, 0x43, 0x46,  // tick 38: bar 2 starts at 21 ticks (3 beats of 7)
        0x07, 0x80, 0x43, 0x00,  // tick 45
        0x00, 0xFF, 0x2F, 0x00,
    ])

@Suite("Standard MIDI File import and export (docs/midi-files.md M10-M18)")
struct MIDIFileImportTests {
    @Test("M11, M13, M15a: every track and channel, ticks as exact beats, loop rounded up to whole 3/4 bars; the program change kept as a point in its track's lane")
    func defaults() {
        guard let result = imported(twoTracks) else { return }
        #expect(result.pattern.length == beats(9))  // tick 45 = 45/7 beats, up to 3 bars of 3 beats
        #expect(result.pattern.notes == [
            PatternNote(start: beats(3, 7), duration: beats(1), key: 60, velocity: 100),
            PatternNote(start: beats(10, 7), duration: beats(1, 7), key: 64, velocity: 80, channel: 2),  // zero length: one tick
            PatternNote(start: beats(38, 7), duration: beats(1), key: 67, velocity: 70),
        ])
        #expect(result.pattern.laneList.map { String(decoding: $0.name, as: UTF8.self) } == ["track2"])
        #expect(result.pattern.controllers == [ControllerPoint(start: .zero, kind: .program, value: 5, channel: 1)])
        #expect(result.report == [
            "tempo: 120 bpm; the pattern plays at the host's tempo",
            "1 controller point kept (control changes, programs, pressure, pitch bend as steps), one lane per track",
            "1 note of zero length given one tick",
        ])
        #expect(result.text == """
            tactus-pattern 3
            # imported from a Standard MIDI File: format 1, 7 ticks per quarter note, 2 tracks
            # tempo at tick 0: 120 bpm
            # time signature at tick 0: 3/4
            # track 2: Lea
            lane track2 length 9
            note 3/7 1 60 100
            note 10/7 1/7 64 80 2
            note 38/7 1 67 70
            program 0 5

            """)
        #expect((try? PatternParser.parse(result.text)) == result.pattern)
        // Without its controllers the file imports as before: one loop, version 1.
        guard let notesOnly = imported(twoTracks, MIDIImportOptions(channel: 2)) else { return }
        #expect(notesOnly.pattern.version == 1 && notesOnly.text.hasPrefix("tactus-pattern 1\nlength 9\n"))
    }

    @Test("M10: --channel, --from/--to in bars of the file's time signature, --length")
    func options() {
        guard let ch2 = imported(twoTracks, MIDIImportOptions(channel: 2)) else { return }
        #expect(ch2.pattern.notes.map(\.key) == [64])
        guard let bar2 = imported(twoTracks, MIDIImportOptions(fromBar: 2, toBar: 3)) else { return }
        #expect(bar2.pattern.length == beats(3))
        #expect(bar2.pattern.notes == [PatternNote(start: beats(38 - 21, 7), duration: beats(1), key: 67, velocity: 70)])
        guard let short = imported(twoTracks, MIDIImportOptions(length: beats(2))) else { return }
        #expect(short.pattern.length == beats(2))
        #expect(short.pattern.notes.count == 2)
        #expect(short.report.contains("1 note starting at or after the loop length left out"))
        #expect(importRefusal(twoTracks, MIDIImportOptions(track: 3)) == "there is no track 3; the file has tracks 1-2")
        #expect(importRefusal(twoTracks, MIDIImportOptions(fromBar: 3, toBar: 2))
            == "--to 2 must come after --from 3 (bars from 3 up to but not including 2)")
    }

    @Test("M14: a format 2 file needs --track")
    func formatTwo() {
        let one = track([0x00, 0x90, 0x3C, 0x64, 0x60, 0x80, 0x3C, 0x00, 0x00, 0xFF, 0x2F, 0x00])
        let two = track([0x00, 0x90, 0x3E, 0x64, 0x30, 0x80, 0x3E, 0x00, 0x00, 0xFF, 0x2F, 0x00])
        let file = header(format: 2, tracks: 2) + one + two
        #expect(importRefusal(file, MIDIImportOptions()) == "a format 2 file holds 2 separate sequences; choose one with --track N")
        guard let second = imported(file, MIDIImportOptions(track: 2)) else { return }
        #expect(second.pattern.notes == [PatternNote(start: .zero, duration: beats(1, 2), key: 62, velocity: 100)])
        #expect(second.pattern.length == beats(4))
    }

    @Test("M15: more notes than a pattern holds refuse the import")
    func tooManyNotes() {
        var body: [UInt8] = []
        for _ in 0..<(Pattern.maximumNoteCount + 1) { body += [0x00, 0x90, 0x3C, 0x64] }
        body += [0x00, 0xFF, 0x2F, 0x00]
        let n = body.count
        let bytes = header() + [0x4D, 0x54, 0x72, 0x6B, UInt8(n >> 24), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)] + body
        #expect(importRefusal(bytes, MIDIImportOptions())
            == "more than 65536 notes, the most a pattern holds; narrow the import with --track, --channel or --from/--to")
    }

    @Test("M17: the smallest exact PPQ of at least 96, or 960 with the largest error stated")
    func ticksPerQuarter() {
        let triplets = Pattern(length: beats(4), notes: [PatternNote(start: beats(1, 3), duration: beats(1, 5), key: 60, velocity: 100)])
        #expect(PatternExport.exactTicksPerQuarter(for: triplets) == 105)  // lcm 15, times 7
        let odd = Pattern(length: beats(4), notes: [PatternNote(start: beats(1, 1009), duration: beats(1, 1013), key: 60, velocity: 100)])
        #expect(PatternExport.exactTicksPerQuarter(for: odd) == nil)
        let export = PatternExport.export(odd)
        #expect(export.ticksPerQuarter == 960)
        #expect(!export.isExact)
        #expect(export.largestErrorBeats > 0 && export.largestErrorBeats <= 0.5 / 960)
    }

    @Test("M18: a pattern exported and imported again is the same pattern (its notes in start order)")
    func roundTrip() throws {
        let pattern = try PatternParser.parse("""
            tactus-pattern 1
            length 7/2
            note 0 1/3 60 100
            note 0 1/2 64 90 2
            note 1/3 1/3 60 80
            note 2.75 2 67 127 16
            note 3.25 1/4 36 1 10
            """)
        let export = PatternExport.export(pattern, loops: 2, microsecondsPerQuarter: 600_000)
        #expect(export.isExact)
        #expect(export.ticksPerQuarter == 96)
        let file = try MIDIFileReader().read(export.bytes)
        #expect(file.tracks[0].tempoChanges == [MIDITempoChange(tick: 0, microsecondsPerQuarter: 600_000)])
        let back = try MIDIFileImport.importPattern(file)
        #expect(back.pattern == pattern)
        #expect(back.report.contains("5 notes starting at or after the loop length left out"))  // the second loop
    }

    @Test("M16: variable-length quantities as the spec's examples write them")
    func quantities() {
        for (value, bytes) in [(0, [0x00]), (0x7F, [0x7F]), (0x80, [0x81, 0x00]), (0x2000, [0xC0, 0x00]), (0x0FFF_FFFF, [0xFF, 0xFF, 0xFF, 0x7F])] as [(UInt32, [UInt8])] {
            var out: [UInt8] = []
            MIDIFileWriter.appendQuantity(value, to: &out)
            #expect(out == bytes)
        }
    }
}
