import Foundation
import Testing
import TactusEngine
import TactusModel
import TactusOffline

@Suite("A rendered session as a Standard MIDI File (docs/midi-files.md M20)")
struct SessionMIDIFileTests {
    static let examples = URL(fileURLWithPath: String(#filePath[..<#filePath.range(of: "/Tests/")!.lowerBound])).appendingPathComponent("examples")

    @Test("the demo (120 bpm, then 133.7, a loop, a stop) played from the file puts every event within half a tick of its frame")
    func demoSession() throws {
        let script = try TransportScript(parsing: String(contentsOf: Self.examples.appendingPathComponent("demo.transport"), encoding: .utf8))
        let pattern = try PatternParser.parse(String(contentsOf: Self.examples.appendingPathComponent("demo.pattern"), encoding: .utf8))
        var played: [LoggedEvent] = []
        _ = OfflineRender(script: script, sampleRate: 48000, blocks: .fixed(256))
            .run(pattern: pattern, loadPattern: { _ in .failure(PatternLoadError("no edits")) }, onBlock: { e, _ in played += e })
        let file = try MIDIFileReader().read(SessionMIDIFile.bytes(events: played, script: script, sampleRate: 48000, name: "demo"))
        #expect(file.ticksPerQuarter == 960)
        let track = file.tracks[0]
        #expect(track.tempoChanges == [
            MIDITempoChange(tick: 0, microsecondsPerQuarter: 500_000),
            MIDITempoChange(tick: 3840, microsecondsPerQuarter: 448_766),  // frame 96000 = 2 s = 4 beats at 120 bpm
        ])
        // Seconds of a tick through the file's tempo map (as a player computes them).
        func seconds(_ tick: Int64) -> Double {
            tick <= 3840 ? Double(tick) * 0.5 / 960 : 2 + Double(tick - 3840) * 0.448766 / 960
        }
        let noteOns = played.filter(\.isNoteOn)
        #expect(track.notes.count == noteOns.count)
        for (note, event) in zip(track.notes, noteOns) {
            #expect(note.key == event.bytes[1] && note.velocity == event.bytes[2] && note.channel == (event.bytes[0] & 0x0F) + 1)
            // Half a tick at 133.7 bpm is 0.23 ms; the tempo event's rounding to a microsecond adds less than 0.01 ms here.
            #expect(abs(seconds(note.startTick) - Double(event.frame) / 48000) < 0.00025, "note-on at frame \(event.frame)")
        }
        let endSeconds: Double = (460_000.0 - 96000) / 48000
        let endTick: Double = 3840 + endSeconds * 133.7 / 60 * 960
        #expect(track.endTick == Int64(endTick.rounded()))
    }
}
