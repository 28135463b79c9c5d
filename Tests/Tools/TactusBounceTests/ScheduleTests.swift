import Foundation
import TactusBounce
import TactusEngine
import TactusModel
import TactusOffline
import Testing

/// The frame schedule a bounce sends its instrument (docs/bounce.md, B1-B3).
@Suite struct ScheduleTests {
    /// PPQ 480; 120 bpm until tick 960, then 150 bpm; the channel-voice kinds
    /// of M6 on every channel, and a note on channel 10.
    static func file() -> [UInt8] {
        var events: [MIDIFileEvent] = [.tempo(tick: 0, microsecondsPerQuarter: 500_000), .tempo(tick: 960, microsecondsPerQuarter: 400_000)]
        for channel in UInt8(0)..<16 { events.append(MIDIFileEvent(tick: 0, bytes: [0xC0 | channel, channel * 8])) }
        events.append(MIDIFileEvent(tick: 100, bytes: [0xB3, 7, 90]))
        events.append(MIDIFileEvent(tick: 481, bytes: [0xE4, 0x00, 0x50]))
        events.append(MIDIFileEvent(tick: 481, bytes: [0xD5, 64]))
        events.append(MIDIFileEvent(tick: 500, bytes: [0xA6, 60, 33]))
        events.append(MIDIFileEvent(tick: 1200, bytes: [0x99, 38, 100]))
        events.append(MIDIFileEvent(tick: 1201, bytes: [0x89, 38, 0]))
        return MIDIFileWriter.bytes(ticksPerQuarter: 480, tracks: [trackInTickOrder(events)], endTicks: [1920])
    }

    @Test("B2: every channel-voice event of a MIDI file at its tick's frame, through the tempo map (48 kHz and 44.1 kHz)")
    func midiFileFrames() throws {
        let file = try MIDIFileReader().read(Self.file())
        // Frames by hand: before tick 960 a tick is 500000/480 µs; after it 400000/480.
        // 48 kHz: tick t < 960 is frame 50t; tick 1200 is 48000 + 240·40 = 57600; 1201 is 57640; 1920 is 86400.
        let at48 = MIDIFileSchedule.make(file, sampleRate: 48000)
        var expected = (0..<16).map { BounceEvent(frame: 0, status: 0xC0 | UInt8($0), data1: UInt8($0) * 8) }
        expected += [
            BounceEvent(frame: 5000, status: 0xB3, data1: 7, data2: 90),
            BounceEvent(frame: 24050, status: 0xE4, data1: 0, data2: 0x50),
            BounceEvent(frame: 24050, status: 0xD5, data1: 64),
            BounceEvent(frame: 25000, status: 0xA6, data1: 60, data2: 33),
            BounceEvent(frame: 57600, status: 0x99, data1: 38, data2: 100),
            BounceEvent(frame: 57640, status: 0x89, data1: 38, data2: 0),
        ]
        #expect(at48.events == expected)
        #expect(at48.endFrame == 86400, "through End of Track, not only the last note")
        // 44.1 kHz: tick 481 is 481·500000·44100/480e6 = 22095.9375, so frame 22096 (the first at or after it).
        let at44 = MIDIFileSchedule.make(file, sampleRate: 44100)
        #expect(at44.events.first { $0.status == 0xE4 }?.frame == 22096)
        #expect(at44.events.first { $0.status == 0xB3 }?.frame == 4594)  // 4593.75
        #expect(at44.events.first { $0.status == 0x99 }?.frame == 52920)  // 44100 + 240·36.75
        #expect(at44.endFrame == 79380)
    }

    @Test("B2: at one frame, controllers and programs first, then note-offs, then note-ons")
    func orderAtAFrame() {
        let s = BounceSchedule(events: [
            BounceEvent(frame: 10, status: 0x90, data1: 60, data2: 100),
            BounceEvent(frame: 10, status: 0x80, data1: 60),
            BounceEvent(frame: 10, status: 0xC0, data1: 5),
            BounceEvent(frame: 3, status: 0x90, data1: 60, data2: 100),
        ], endFrame: 0, sampleRate: 48000)
        #expect(s.events.map(\.status) == [0x90, 0xC0, 0x80, 0x90])
        #expect(s.endFrame == 11, "never before the last event")
    }

    static var examples: String {
        let here = #filePath
        return String(here[..<here.range(of: "/Tests/")!.lowerBound]) + "/examples/"
    }

    @Test("B3: a pattern's schedule is tactus render's log, event for event (demo pattern and transport)")
    func patternEqualsRender() throws {
        let text = Array(try String(contentsOfFile: Self.examples + "demo.pattern", encoding: .utf8).utf8)
        let pattern = try PatternParser.parse(bytes: text)
        let script = try TransportScript(parsing: try String(contentsOfFile: Self.examples + "demo.transport", encoding: .utf8))
        let schedule = PatternSchedule.make(
            pattern: pattern, text: text, script: script, sampleRate: 48000, loadPattern: { _ in .failure(PatternLoadError("no edits")) }
        ).schedule
        var logged: [LoggedEvent] = []
        _ = OfflineRender(script: script, sampleRate: 48000, blocks: .fixed(64)).run(
            pattern: pattern, loadPattern: { _ in .failure(PatternLoadError("no edits")) }) { events, _ in logged += events }
        #expect(schedule.events.count == logged.count)
        #expect(schedule.events.map { LoggedEvent(frame: $0.frame, bytes: $0.bytes) } == logged)
        #expect(schedule.events.first == BounceEvent(frame: 0, status: 0x90, data1: 48, data2: 110))
        #expect(schedule.endFrame == 460_000)
    }

    @Test("B3: --bars 2 --bpm 120 stops at the bar line after two bars, where every note ends")
    func barsAndTempo() throws {
        let pattern = try PatternParser.parse("tactus-pattern 1\nlength 4\nnote 0 1 60 100\nnote 3.5 1 64 90\n")
        let script = PatternSchedule.script(bars: 2, bpm: 120, sampleRate: 48000)
        let s = PatternSchedule.make(pattern: pattern, text: nil, script: script, sampleRate: 48000, loadPattern: { _ in .failure(PatternLoadError("")) }).schedule
        #expect(s.events.filter(\.isNoteOn).map(\.frame) == [0, 84000, 96000, 180000])
        #expect(s.events.last == BounceEvent(frame: 192_000, status: 0x80, data1: 64, data2: 0))
        #expect(s.endFrame == 192_001)
        #expect(PatternSchedule.stopFrame(bars: 3, bpm: 133.7, sampleRate: 44100) == 237_487)  // 12·60·44100/133.7 = 237486.9
    }
}

/// A track's events in tick order (the writer takes them in order), stable among equal ticks.
func trackInTickOrder(_ events: [MIDIFileEvent]) -> [MIDIFileEvent] {
    events.enumerated().sorted { ($0.element.tick, $0.offset) < ($1.element.tick, $1.offset) }.map(\.element)
}

@Suite("B3: a pattern file with a song, bounced without --bars")
struct SongBounceTests {
    @Test("the song once through at --bpm: tactus render's log over the song's beats, ending at its last beat; a pattern without a song is refused with what to give")
    func songOnceThrough() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tactus-song-bounce-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let song = "tactus-pattern 3\npattern a program 5\nlane x length 2/3\nnote 0 1/3 60 100\npattern b\nlane x length 1\nnote 1/2 1 64 90\nsong hold\nplay a 3\nplay b 2\n"
        let plain = "tactus-pattern 3\npattern a\nlane x length 2/3\nnote 0 1/3 60 100\npattern b\nlane x length 1\nnote 1/2 1 64 90\n"
        try song.write(to: dir.appendingPathComponent("song.pattern"), atomically: true, encoding: .utf8)
        try plain.write(to: dir.appendingPathComponent("plain.pattern"), atomically: true, encoding: .utf8)
        let load: BounceInput.PatternLoader = { path in
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return .failure(PatternLoadError("cannot read \(path)")) }
            do { return .success((try PatternParser.parse(text), Array(text.utf8))) } catch { return .failure(PatternLoadError("\(error)")) }
        }
        let (schedule, _) = try BounceInput.schedule(dir.appendingPathComponent("song.pattern").path, timing: .file(songTempo: 90), sampleRate: 48000, loadPattern: load)
        // 4 beats at 90 bpm: 128,000 frames; b's second pass's note is cut there.
        let script = try #require(SongOnce(text: Array(song.utf8))).script(times: 1, bpm: 90, sampleRate: 48000)
        var logged: [LoggedEvent] = []
        _ = OfflineRender(script: script, sampleRate: 48000, blocks: .fixed(64)).run(
            pattern: try PatternParser.parse(song), patternText: Array(song.utf8), loadPattern: load) { events, _ in logged += events }
        #expect(schedule.events.map { LoggedEvent(frame: $0.frame, bytes: $0.bytes) } == logged)
        #expect(schedule.endFrame == 128_001)
        #expect(schedule.events.first == BounceEvent(frame: 0, status: 0xC0, data1: 5, data2: 0))
        #expect(schedule.events.filter(\.isNoteOn).map(\.frame) == [0, 21_334, 42_667, 80_000, 112_000])
        #expect(schedule.events.last == BounceEvent(frame: 128_000, status: 0x80, data1: 64, data2: 0))
        #expect(throws: BounceError.self) {
            _ = try BounceInput.schedule(dir.appendingPathComponent("plain.pattern").path, timing: .file(songTempo: 120), sampleRate: 48000, loadPattern: load)
        }
    }
}
