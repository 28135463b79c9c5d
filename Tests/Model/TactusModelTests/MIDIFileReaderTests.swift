import Testing
import TactusEngine
import TactusModel

// Standard MIDI Files, byte by byte: every rule of docs/midi-files.md (M1-M6)
// with the smallest file that shows it. Delta times are one byte unless said.

/// `MThd`, length 6, format, track count, division.
private func header(format: UInt8 = 0, tracks: UInt8 = 1, division: (UInt8, UInt8) = (0x00, 0x60)) -> [UInt8] {
    [0x4D, 0x54, 0x68, 0x64, 0, 0, 0, 6, 0, format, 0, tracks, division.0, division.1]
}

/// `MTrk` with its body's length.
private func track(_ body: [UInt8]) -> [UInt8] {
    [0x4D, 0x54, 0x72, 0x6B, 0, 0, UInt8(body.count >> 8), UInt8(body.count & 0xFF)] + body
}

private let endOfTrack: [UInt8] = [0x00, 0xFF, 0x2F, 0x00]

private func read(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> MIDIFile? {
    do {
        return try MIDIFileReader().read(bytes)
    } catch {
        Issue.record("refused: \(error.message)", sourceLocation: sourceLocation)
        return nil
    }
}

private func refusal(_ bytes: [UInt8], reader: MIDIFileReader = MIDIFileReader()) -> String? {
    do {
        _ = try reader.read(bytes)
        return nil
    } catch {
        return error.message
    }
}

private func note(_ start: Int64, _ end: Int64, key: UInt8 = 60, velocity: UInt8 = 100, channel: UInt8 = 1) -> MIDIFileNote {
    MIDIFileNote(startTick: start, endTick: end, key: key, velocity: velocity, channel: channel)
}

@Suite("Standard MIDI File reader (docs/midi-files.md M1-M6)")
struct MIDIFileReaderTests {
    @Test("M1: a format 0 file with one note, every byte written out")
    func formatZeroOneNote() {
        let bytes: [UInt8] = [
            0x4D, 0x54, 0x68, 0x64, 0x00, 0x00, 0x00, 0x06, 0x00, 0x00, 0x00, 0x01, 0x01, 0xE0,  // MThd, format 0, 1 track, 480 PPQ
            0x4D, 0x54, 0x72, 0x6B, 0x00, 0x00, 0x00, 0x0D,  // MTrk, 13 bytes
            0x00, 0x90, 0x3C, 0x64,  // tick 0: note-on C4 velocity 100
            0x83, 0x60, 0x80, 0x3C, 0x40,  // delta 480 (two-byte quantity): note-off
            0x00, 0xFF, 0x2F, 0x00,  // End of Track
        ]
        guard let file = read(bytes) else { return }
        #expect(file.format == 0)
        #expect(file.ticksPerQuarter == 480)
        #expect(file.tracks.count == 1)
        #expect(file.tracks[0].notes == [note(0, 480)])
        #expect(file.tracks[0].hasEndOfTrack)
        #expect(file.tracks[0].endTick == 480)
    }

    @Test("M2: running status is kept across a meta event, so the note-off after it is not lost")
    func runningStatusAcrossMeta() {
        let body: [UInt8] = [
            0x00, 0x90, 0x3C, 0x64,  // note-on
            0x30, 0xFF, 0x01, 0x02, 0x68, 0x69,  // delta 48: text meta "hi"
            0x30, 0x3C, 0x00,  // delta 48: running status 90, velocity 0 = note-off (M4)
        ] + endOfTrack
        guard let file = read(header() + track(body)) else { return }
        #expect(file.tracks[0].notes == [note(0, 96)])
        #expect(file.tracks[0].unmatchedNoteOffs == 0)
    }

    @Test("M2: running status is kept across SysEx (F0) and escapes (F7), which are skipped by their length")
    func sysExSkipped() {
        let body: [UInt8] = [
            0x00, 0x90, 0x3C, 0x64,
            0x00, 0xF0, 0x03, 0x43, 0x12, 0xF7,  // SysEx, 3 bytes
            0x00, 0xF7, 0x02, 0xF3, 0x01,  // escape: 2 raw bytes, a status among them
            0x10, 0x3C, 0x00,  // running status: note-off at 16
        ] + endOfTrack
        guard let file = read(header() + track(body)) else { return }
        #expect(file.tracks[0].notes == [note(0, 16)])
    }

    @Test("M4: a note-on with velocity 0 is a note-off; a note-off with no open note is ignored and counted")
    func velocityZeroIsNoteOff() {
        let body: [UInt8] = [0x00, 0x91, 0x40, 0x50, 0x20, 0x91, 0x40, 0x00, 0x00, 0x81, 0x41, 0x00] + endOfTrack
        guard let file = read(header() + track(body)) else { return }
        #expect(file.tracks[0].notes == [note(0, 32, key: 0x40, velocity: 0x50, channel: 2)])
        #expect(file.tracks[0].unmatchedNoteOffs == 1)
    }

    @Test("M4: overlapping notes of one key: every note-on is a note, note-offs end the earliest open one (FIFO)")
    func overlappingNotesPairFirstInFirstOut() {
        let body: [UInt8] = [
            0x00, 0x90, 0x3C, 0x64,  // on at 0 (velocity 100)
            0x0A, 0x90, 0x3C, 0x32,  // on at 10 (velocity 50)
            0x0A, 0x80, 0x3C, 0x00,  // off at 20: ends the note from 0
            0x0A, 0x80, 0x3C, 0x00,  // off at 30: ends the note from 10
            0x00, 0x90, 0x3C, 0x10,  // on at 30, same key, after both ended
            0x05, 0x99, 0x3C, 0x10,  // on at 35 on channel 10: a different queue
            0x05, 0x89, 0x3C, 0x00,  // off at 40, channel 10
            0x05, 0x80, 0x3C, 0x00,  // off at 45, channel 1
        ] + endOfTrack
        guard let file = read(header() + track(body)) else { return }
        #expect(file.tracks[0].notes == [
            note(0, 20), note(10, 30, velocity: 50), note(30, 45, velocity: 16), note(35, 40, velocity: 16, channel: 10),
        ])
    }

    @Test("M4: a note never ended ends at End of Track; with no End of Track, at the track's last event")
    func unterminatedNotes() {
        let ended: [UInt8] = [0x00, 0x90, 0x3C, 0x64, 0x60, 0xFF, 0x2F, 0x00]  // EOT at 96
        guard let a = read(header() + track(ended)) else { return }
        #expect(a.tracks[0].notes == [note(0, 96)])
        let missing: [UInt8] = [0x00, 0x90, 0x3C, 0x64, 0x40, 0xB0, 0x07, 0x64]  // no EOT; last event (a controller) at 64
        guard let b = read(header() + track(missing)) else { return }
        #expect(b.tracks[0].notes == [note(0, 64)])
        #expect(!b.tracks[0].hasEndOfTrack)
        #expect(b.tracks[0].endTick == 64)
    }

    @Test("M2: an early End of Track ends the track; the rest of the chunk is ignored")
    func earlyEndOfTrack() {
        let body: [UInt8] = [0x00, 0x90, 0x3C, 0x64, 0x10, 0xFF, 0x2F, 0x00, 0x10, 0x90, 0x3E, 0x64, 0x00, 0x42]
        guard let file = read(header() + track(body)) else { return }
        #expect(file.tracks[0].notes == [note(0, 16)])
    }

    @Test("M2: a chunk of unknown type is skipped, a header longer than 6 bytes is accepted, short trailing padding is tolerated")
    func toleratedStructure() {
        var bytes: [UInt8] = [0x4D, 0x54, 0x68, 0x64, 0, 0, 0, 8, 0, 1, 0, 1, 0, 0x60, 0xAB, 0xCD]  // header of 8 bytes
        bytes += [0x58, 0x46, 0x49, 0x48, 0, 0, 0, 3, 1, 2, 3]  // "XFIH" chunk, 3 bytes
        bytes += track([0x00, 0x90, 0x3C, 0x64, 0x60, 0x80, 0x3C, 0x00] + endOfTrack)
        bytes += [0, 0, 0]  // padding
        guard let file = read(bytes) else { return }
        #expect(file.format == 1)
        #expect(file.tracks.count == 1)
        #expect(file.tracks[0].notes == [note(0, 96)])
    }

    @Test("M6: program, control, bend and pressure events are kept with their ticks, running status included")
    func otherChannelEvents() {
        let body: [UInt8] = [
            0x00, 0xC2, 0x05,  // program 5, channel 3
            0x10, 0x07,  // running status C2: program 7 at 16
            0x00, 0xE0, 0x00, 0x40,  // pitch bend centre
            0x00, 0xD0, 0x30, 0x00, 0xA0, 0x3C, 0x20, 0x00, 0xB0, 0x40, 0x7F,
        ] + endOfTrack
        guard let file = read(header() + track(body)) else { return }
        let events = file.tracks[0].channelEvents
        #expect(events.map(\.tick) == [0, 16, 16, 16, 16, 16])
        #expect(events.map(\.kind) == [.programChange, .programChange, .pitchBend, .channelPressure, .polyphonicPressure, .controlChange])
        #expect(events[1] == MIDIChannelEvent(tick: 16, status: 0xC2, data1: 7, data2: 0))
    }

    @Test("M6: tempo map, time signatures and the first track name are kept")
    func metaKept() {
        let body: [UInt8] = [
            0x00, 0xFF, 0x03, 0x04, 0x42, 0x61, 0x73, 0x73,  // name "Bass"
            0x00, 0xFF, 0x03, 0x01, 0x58,  // a second name: ignored
            0x00, 0xFF, 0x51, 0x03, 0x07, 0xA1, 0x20,  // 500000 us = 120 bpm
            0x00, 0xFF, 0x58, 0x04, 0x03, 0x02, 0x18, 0x08,  // 3/4
            0x81, 0x40, 0xFF, 0x51, 0x03, 0x0F, 0x42, 0x40,  // at 192: 1000000 us = 60 bpm
        ] + endOfTrack
        guard let file = read(header() + track(body)) else { return }
        let t = file.tracks[0]
        #expect(t.name == Array("Bass".utf8))
        #expect(t.tempoChanges == [MIDITempoChange(tick: 0, microsecondsPerQuarter: 500_000), MIDITempoChange(tick: 192, microsecondsPerQuarter: 1_000_000)])
        #expect(t.timeSignatures == [MIDITimeSignature(tick: 0, numerator: 3, denominatorPower: 2)])
    }

    @Test("M1: format 2 tracks are read, each its own sequence")
    func formatTwo() {
        let one = track([0x00, 0x90, 0x3C, 0x64, 0x60, 0x80, 0x3C, 0x00] + endOfTrack)
        let two = track([0x00, 0x90, 0x3E, 0x64, 0x30, 0x80, 0x3E, 0x00] + endOfTrack)
        guard let file = read(header(format: 2, tracks: 2) + one + two) else { return }
        #expect(file.format == 2)
        #expect(file.tracks.map { $0.notes } == [[note(0, 96)], [note(0, 48, key: 62)]])
    }

    @Test("M3: every refusal names the byte, the track and the reason")
    func refusals() {
        let ok = track([0x00, 0x90, 0x3C, 0x64] + endOfTrack)
        #expect(refusal(Array("RIFF....".utf8)) == "byte 0: not a Standard MIDI File (it does not start with 'MThd')")
        #expect(refusal([0x4D, 0x54, 0x68, 0x64, 0, 0]) == "byte 6: the file ends after 6 bytes, inside the header chunk")
        #expect(refusal([0x4D, 0x54, 0x68, 0x64, 0, 0, 0, 4, 0, 0, 0, 1]) == "byte 4: the header chunk is 4 bytes, fewer than the 6 it needs")
        #expect(refusal(header(format: 3) + ok) == "byte 8: unknown SMF format 3 (0, 1 and 2 exist)")
        #expect(refusal(header(division: (0xE7, 0x28)) + ok)
            == "byte 12: the division is SMPTE time (25 frames a second, 40 ticks a frame); a pattern counts beats, so only ticks per quarter note can be read")
        #expect(refusal(header(division: (0, 0)) + ok) == "byte 12: the division is 0 ticks per quarter note")
        // A truncated chunk: the length says 8 bytes, 4 are there.
        #expect(refusal(header() + [0x4D, 0x54, 0x72, 0x6B, 0, 0, 0, 8, 0x00, 0x90, 0x3C, 0x64])
            == "byte 14, track 1: the 'MTrk' chunk claims 8 bytes but the file has 4 left")
        // A length beyond the file, in the second track.
        #expect(refusal(header(tracks: 2) + ok + [0x4D, 0x54, 0x72, 0x6B, 0xFF, 0xFF, 0xFF, 0xFF])
            == "byte 30, track 2: the 'MTrk' chunk claims 4294967295 bytes but the file has 0 left")
        #expect(refusal(header() + track([0xFF, 0xFF, 0xFF, 0xFF, 0x7F, 0x90, 0x3C, 0x64]))
            == "byte 22, track 1: a variable-length quantity longer than 4 bytes")
        #expect(refusal(header() + track([0x00, 0x3C, 0x64] + endOfTrack))
            == "byte 23, track 1: data byte 0x3C with no running status before it")
        #expect(refusal(header() + track([0x00, 0x90, 0x3C, 0x90, 0x3C]))
            == "byte 25, track 1: status byte 0x90 where a data byte was expected")
        #expect(refusal(header() + track([0x00, 0x90, 0x3C])) == "byte 22, track 1: the event runs past the end of the track chunk")
        #expect(refusal(header() + track([0x00, 0xFF, 0x01, 0x05, 0x41])) == "byte 22, track 1: the event runs past the end of the track chunk")
        #expect(refusal(header() + track([0x00, 0xF2, 0x00, 0x00] + endOfTrack))
            == "byte 23, track 1: status byte 0xF2 is not an event a MIDI file may hold")
    }

    @Test("M3: the limits refuse before memory is spent: file size, track count, notes")
    func limits() {
        var small = MIDIFileReader()
        small.maximumFileBytes = 100
        #expect(refusal(Array("MThd".utf8) + [UInt8](repeating: 0, count: 97), reader: small) == "byte 0: the file is 101 bytes; a MIDI file may have at most 100")
        var twoTracks = MIDIFileReader()
        twoTracks.maximumTracks = 2
        let empty = track(endOfTrack)
        #expect(refusal(header(format: 1, tracks: 3) + empty + empty + empty, reader: twoTracks)
            == "byte 38, track 3: more than 2 tracks")
        var threeNotes = MIDIFileReader()
        threeNotes.maximumNotes = 3
        let notes: [UInt8] = [0x00, 0x90, 0x3C, 0x64, 0x00, 0x3D, 0x64, 0x00, 0x3E, 0x64, 0x00, 0x3F, 0x64]
        #expect(refusal(header() + track(notes), reader: threeNotes) == "byte 32, track 1: more than 3 notes")
        // The default: 16 MiB, one byte more is refused before it is parsed.
        #expect(refusal(Array("MThd".utf8) + [UInt8](repeating: 0, count: (16 << 20) - 3)) == "byte 0: the file is 16777217 bytes; a MIDI file may have at most 16777216")
        // What the file is comes before its size: a 40 MB WAV is not a MIDI file (not "too large").
        #expect(refusal(Array("RIFF\0\0\0\0WAVEfmt ".utf8) + [UInt8](repeating: 0, count: 40_000_000)) == "byte 0: not a Standard MIDI File (it does not start with 'MThd')")
    }

    @Test("M3: 100,000 empty tracks (the header's count is not trusted) are refused at the 65,536th")
    func manyTracks() {
        var bytes = header(format: 1, tracks: 0xFF)
        for _ in 0..<100_000 { bytes += [0x4D, 0x54, 0x72, 0x6B, 0, 0, 0, 0] }
        #expect(refusal(bytes) == "byte \(14 + 65_535 * 8), track 65536: more than 65535 tracks")
    }
}
