import Foundation
import TactusBounce
import TactusEngine
import TactusModel
import Testing

/// The bounce engine and its instruments (docs/bounce.md, B4-B8).
@Suite struct RenderTests {
    /// Renders into memory: the left channel, and the engine's result.
    static func render(_ schedule: BounceSchedule, _ instrument: BounceInstrument, tailCap: Double = 10) throws -> ([Float], BounceRenderer.Result) {
        var left: [Float] = []
        var renderer = BounceRenderer()
        renderer.tailCapSeconds = tailCap
        let result = try renderer.render(schedule, through: instrument, into: { l, _, n in
            left.append(contentsOf: UnsafeBufferPointer(start: l, count: n))
        })
        return (left, result)
    }

    /// Clicks at frames that are not multiples of 64 (and a few that are), from
    /// a MIDI file at PPQ 960 and 120 bpm (a tick is 25 frames at 48 kHz, 22.97 at 44.1 kHz).
    static func clickFile() throws -> MIDIFile {
        var events: [MIDIFileEvent] = []
        for k in 0..<40 {
            let tick = Int64(k * 1000 + (k * 37) % 960)
            events.append(MIDIFileEvent(tick: tick, bytes: [0x90, 60, 100]))
            events.append(MIDIFileEvent(tick: tick + 1, bytes: [0x80, 60, 0]))
        }
        return try MIDIFileReader().read(MIDIFileWriter.bytes(ticksPerQuarter: 960, tracks: [trackInTickOrder(events)], endTicks: [45_000]))
    }

    @Test("B4: every click is in the audio at its note's exact frame, 0 samples off, at 44.1 and 48 kHz")
    func clickOnsetsExact() throws {
        for rate in [44100, 48000] {
            let schedule = MIDIFileSchedule.make(try Self.clickFile(), sampleRate: rate)
            let expected = schedule.events.filter(\.isNoteOn).map(\.frame)
            #expect(expected.filter { $0 % 64 != 0 }.count >= 35)
            let (audio, result) = try Self.render(schedule, ClickInstrument(sampleRate: rate))
            let onsets = audio.indices.filter { audio[$0] != 0 }.map(Int64.init)
            #expect(onsets == expected, "rate \(rate)")
            #expect(result.tailFrames == 0, "a click leaves no tail: the file ends at the input's end")
            #expect(result.frames == schedule.endFrame)
            #expect(result.eventsSent == schedule.events.count)
        }
    }

    static let timgm = "/usr/share/sounds/sf2/TimGM6mb.sf2"

    @Test("B5: a multi-timbral file: each of the 16 channels gets its own program, channel 10 the drum bank",
          .enabled(if: FileManager.default.fileExists(atPath: RenderTests.timgm)))
    func everyChannelItsProgram() throws {
        var events: [MIDIFileEvent] = []
        for c in UInt8(0)..<16 {
            events.append(MIDIFileEvent(tick: 0, bytes: [0xC0 | c, c * 7 + 1]))
            events.append(MIDIFileEvent(tick: 10, bytes: [0x90 | c, 60, 90]))
            events.append(MIDIFileEvent(tick: 400, bytes: [0x80 | c, 60, 0]))
        }
        let file = try MIDIFileReader().read(MIDIFileWriter.bytes(ticksPerQuarter: 480, tracks: [trackInTickOrder(events)], endTicks: [480]))
        var options = FluidSynthInstrument.Options()
        options.reverb = false
        let synth = try FluidSynthInstrument(soundFont: Self.timgm, sampleRate: 48000, options: options)
        let (audio, result) = try Self.render(MIDIFileSchedule.make(file, sampleRate: 48000), synth)
        let programs = synth.programs()
        for c in 0..<16 where c != 9 {
            #expect(programs[c].bank == 0 && programs[c].program == c * 7 + 1, "channel \(c + 1)")
        }
        #expect(programs[9].bank == 128, "channel 10 plays GM drums")
        #expect(result.peak > 0.01 && audio.contains { $0 != 0 })
        // The tail ends when the audio falls below -90 dBFS, well before the cap.
        #expect(result.tailFrames > 0 && result.tailFrames < 10 * 48000)
        try synth.reset()
        #expect(synth.programs().allSatisfy { $0.program == 0 }, "reset: every channel back to program 0 (a batch's next file starts clean)")
    }

    @Test("B5: FluidSynth puts a note at most 63 frames after its frame (its 64-frame grid), never before",
          .enabled(if: FileManager.default.fileExists(atPath: RenderTests.timgm)))
    func fluidSynthGrid() throws {
        // One note alone at frame 0 (on the grid) gives the sound's own attack;
        // the same note at frame f must start between f and f + 63 after that.
        func onset(at frame: Int64) throws -> Int64 {
            var options = FluidSynthInstrument.Options()
            options.reverb = false
            options.chorus = false
            let synth = try FluidSynthInstrument(soundFont: Self.timgm, sampleRate: 48000, options: options)
            let schedule = BounceSchedule(events: [
                BounceEvent(frame: frame, status: 0x99, data1: 76, data2: 127), BounceEvent(frame: frame + 500, status: 0x89, data1: 76),
            ], endFrame: frame + 4000, sampleRate: 48000)
            let (audio, _) = try Self.render(schedule, synth, tailCap: 0)
            return Int64(audio.firstIndex { abs($0) > 0.001 } ?? -1)
        }
        let attack = try onset(at: 0)
        #expect(attack >= 0)
        for frame: Int64 in [1, 63, 64, 100, 1000, 4097, 12_345] {
            let late = try onset(at: frame) - frame - attack
            #expect(late >= 0 && late <= 63, "frame \(frame): \(late) frames late")
            if frame % 64 == 0 { #expect(late == 0) }
        }
    }

    @Test("B5: a missing SoundFont and a file that is not one: the path and the reason")
    func soundFontErrors() throws {
        #expect(throws: BounceError("cannot read SoundFont '/nonexistent/x.sf2': No such file or directory")) {
            try FluidSynthInstrument(soundFont: "/nonexistent/x.sf2", sampleRate: 48000)
        }
        let bogus = FileManager.default.temporaryDirectory.appendingPathComponent("bnc-not-a-soundfont-\(getpid()).sf2").path
        try "not a SoundFont".write(toFile: bogus, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: bogus) }
        #expect(throws: BounceError("cannot load SoundFont '\(bogus)': not a SoundFont 2 file (it does not start with 'RIFF')")) {
            try FluidSynthInstrument(soundFont: bogus, sampleRate: 48000)
        }
    }

    @Test("B7: a bounce that peaks below -18 dBFS is called quiet, with --normalize named (issue 33: -30 dBFS at the default gain)")
    func quietBounces() {
        #expect(BounceRenderer.Result.quietness(peak: 0.5) == nil)
        #expect(BounceRenderer.Result.quietness(peak: 0.126) == nil)  // -18.0 dBFS
        #expect(BounceRenderer.Result.quietness(peak: 0.0316)
            == "peaks at -30.0 dBFS, below -18 dBFS: quiet; --normalize puts its peak at -1 dBFS")
        #expect(BounceRenderer.Result.quietness(peak: 0) == "is silent: no sample is above 0")
    }

    /// FluidSynth passes a file its SoundFont loader refuses on to libinstpatch,
    /// which prints a glib CRITICAL line for anything but a DLS (issue 33): such
    /// files are refused before FluidSynth sees them, each with what is wrong.
    @Test("B5: files that are not SoundFonts are refused by their RIFF structure, before FluidSynth")
    func soundFontStructure() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bnc-sf2-\(getpid())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        func file(_ name: String, _ bytes: [UInt8]) throws -> String {
            let path = folder + "/" + name
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            return path
        }
        func le(_ n: Int) -> [UInt8] { [UInt8(n & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n >> 16 & 0xFF), UInt8(n >> 24 & 0xFF)] }
        func list(_ type: String, _ body: [UInt8] = []) -> [UInt8] { Array("LIST".utf8) + le(4 + body.count) + Array(type.utf8) + body }
        let lists = list("INFO") + list("sdta") + list("pdta")
        let cases: [(String, [UInt8], String?)] = [
            ("text.sf2", Array("not a SoundFont\n".utf8), "not a SoundFont 2 file (it does not start with 'RIFF')"),
            ("wave.sf2", Array("RIFF".utf8) + le(4) + Array("WAVE".utf8), "not a SoundFont 2 file (a RIFF file of type 'WAVE', not 'sfbk')"),
            ("cut.sf2", Array("RIFF\0\0\0\0sfbkLIST".utf8), "a broken SoundFont 2 file: it has the lists none, not INFO, sdta and pdta"),
            ("short.sf2", Array("RIFF".utf8) + le(1000) + Array("sfbk".utf8) + lists,
             "a broken SoundFont 2 file: its RIFF chunk claims 1000 bytes, the file has \(4 + lists.count) after the header"),
            ("long-list.sf2", Array("RIFF".utf8) + le(4 + 12) + Array("sfbk".utf8) + Array("LIST".utf8) + le(400) + Array("INFO".utf8),
             "a broken SoundFont 2 file: its 'LIST' chunk at byte 12 runs past the end of the file"),
            ("good.sf2", Array("RIFF".utf8) + le(4 + lists.count) + Array("sfbk".utf8) + lists, nil),
        ]
        for (name, bytes, problem) in cases {
            let path = try file(name, bytes)
            switch SoundFontFile.kind(of: path) {
            case .success(let kind): #expect(problem == nil && kind == .soundFont2, "\(name)")
            case .failure(let error): #expect(error.description == problem, "\(name)")
            }
        }
        let dls = try file("sounds.dls", Array("RIFF".utf8) + le(4) + Array("DLS ".utf8))
        #expect(try SoundFontFile.kind(of: dls).get() == .downloadableSounds)
        #expect(try SoundFontFile.kind(of: "/usr/share/sounds/sf2/TimGM6mb.sf2").get() == .soundFont2)
    }

    @Test("B8: an LV2 URI that is not installed, and a plugin with no MIDI input, are refused with the reason")
    func lv2Errors() {
        #expect(throws: BounceError("no LV2 plugin 'urn:nobody:nothing' is installed (lv2ls lists those that are; LV2_PATH says where to look)")) {
            try LV2Instrument(uri: "urn:nobody:nothing", sampleRate: 48000)
        }
        if Self.installed("urn:ardour:a-delay") {
            do {
                _ = try LV2Instrument(uri: "urn:ardour:a-delay", sampleRate: 48000)
                Issue.record("a-delay accepted as an instrument")
            } catch {
                #expect(error.description.contains("has no MIDI input: it is not an instrument"))
            }
        }
    }

    static func installed(_ uri: String) -> Bool {
        let lv2 = ["/usr/lib/lv2", "/usr/local/lib/lv2", NSHomeDirectory() + "/.lv2"]
        let bundle = uri == "urn:ardour:a-delay" ? "a-delay.lv2" : "reasonablesynth.lv2"
        return lv2.contains { FileManager.default.fileExists(atPath: $0 + "/" + bundle) }
    }

    @Test("B8: ACE Reasonable Synth (honours frame offsets): every note's onset the same number of frames after its frame",
          .enabled(if: RenderTests.installed("https://community.ardour.org/node/7596")))
    func reasonableSynthOnsets() throws {
        for rate in [44100, 48000] {
            let synth = try LV2Instrument(uri: "https://community.ardour.org/node/7596", sampleRate: rate)
            var events: [MIDIFileEvent] = []
            for k in 0..<12 {
                let tick = Int64(960 + k * 2000 + (k * 37) % 960)
                events.append(MIDIFileEvent(tick: tick, bytes: [0x90, 69, 120]))
                events.append(MIDIFileEvent(tick: tick + 20, bytes: [0x80, 69, 0]))
            }
            let file = try MIDIFileReader().read(MIDIFileWriter.bytes(ticksPerQuarter: 960, tracks: [trackInTickOrder(events)], endTicks: [30_000]))
            let schedule = MIDIFileSchedule.make(file, sampleRate: rate)
            let (audio, _) = try Self.render(schedule, synth)
            let offsets = schedule.events.filter(\.isNoteOn).map { frame -> Int64 in
                let start = Int(frame.frame) - 200
                return Int64(audio[start...].firstIndex { abs($0) > 0.001 } ?? -1) - frame.frame
            }
            #expect(Set(offsets).count == 1, "rate \(rate): onset - frame = \(offsets)")
            #expect(offsets.allSatisfy { $0 >= 0 && $0 < 16 }, "rate \(rate): \(offsets)")
        }
    }
}

extension BounceError: Equatable {
    public static func == (a: BounceError, b: BounceError) -> Bool { a.description == b.description }
}

/// Records, for each event it is sent, how many frames it had rendered before:
/// the frame at which the event reached it.
final class RecordingInstrument: BounceInstrument {
    let sampleRate: Int
    let maximumBlockLength = 700
    private(set) var rendered: Int64 = 0
    private(set) var received: [BounceEvent] = []
    init(sampleRate: Int) { self.sampleRate = sampleRate }
    func send(_ event: BounceEvent) {
        var e = event
        e.frame = rendered
        received.append(e)
    }
    func render(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frameCount: Int) throws(BounceError) {
        precondition(frameCount <= maximumBlockLength)
        left.update(repeating: 0, count: frameCount)
        right.update(repeating: 0, count: frameCount)
        rendered += Int64(frameCount)
    }
    func reset() throws(BounceError) {}
}

@Suite struct DeliveryTests {
    @Test("B4: every event of a MIDI file reaches the instrument when exactly its frame has been rendered, in schedule order")
    func eventsArriveAtTheirFrames() throws {
        let file = try MIDIFileReader().read(ScheduleTests.file())
        for rate in [44100, 48000] {
            let schedule = MIDIFileSchedule.make(file, sampleRate: rate)
            let instrument = RecordingInstrument(sampleRate: rate)
            let (_, result) = try RenderTests.render(schedule, instrument)
            #expect(instrument.received == schedule.events, "rate \(rate)")
            // B7: one quiet block is rendered after the end to find that the tail is silent; none of it is written.
            #expect(instrument.rendered == schedule.endFrame + 700)
            #expect(result.frames == schedule.endFrame && result.tailFrames == 0)
        }
    }
}
