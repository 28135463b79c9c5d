import Foundation
import Testing
import TactusEngine
import TactusModel
import TactusOffline

/// Timing contract §1, rule 1: floor reports (Qtractor's whole-beat reports,
/// MusE's tick-floor reports) are read from their exact frame, and Ardour's,
/// jalv's and Carla's reports are not (Element-shaped hosts, whose reports
/// have the tick-floor shape: `ExactHostTests`).
@Suite("§1 rule 1: floor reports")
struct FloorReportTests {
    static let fixtures = URL(fileURLWithPath: String(#filePath[..<#filePath.range(of: "/Tests/")!.lowerBound])).appendingPathComponent("Tests")
        .appendingPathComponent("Fixtures")
    static let hostPattern = URL(fileURLWithPath: String(#filePath[..<#filePath.range(of: "/Tests/")!.lowerBound])).appendingPathComponent("Tests")
        .appendingPathComponent("Hosts/qtractor/qtractor.pattern")

    /// The sixteen reports of worked example 7, as Qtractor 0.9.31 sent them
    /// (Tests/Fixtures/qtractor-120, frames moved so that play starts at 0).
    static let example7: String = {
        let reports: [(at: Int, frame: Int, bar: Int, beat: Int, barBeat: Int)] = [
            (0, 0, 0, 1, 0), (24064, 24064, 0, 2, 0), (48128, 48128, 0, 3, 0), (72192, 72192, 0, 4, 0),
            (96000, 96000, 1, 1, 4), (120064, 120064, 1, 2, 4), (144128, 144128, 1, 3, 4), (168192, 168192, 1, 4, 4),
            (192000, 192000, 2, 1, 8), (216064, 216064, 2, 2, 8), (240128, 240128, 2, 3, 8), (264192, 264192, 2, 4, 8),
            (288000, 96000, 1, 1, 4), (312064, 120064, 1, 2, 4), (336128, 144128, 1, 3, 4), (360192, 168192, 1, 4, 4),
        ]
        var text = "rate 48000\n"
        for r in reports {
            text += "\(r.at) position frame=\(r.frame):l speed=1:f bar=\(r.bar):l beat=\(r.beat):d barBeat=\(r.barBeat):f "
                + "beatUnit=4:i beatsPerBar=4:f beatsPerMinute=120:f\n"
        }
        return text + "370000 end\n"
    }()

    @Test("worked example 7: Qtractor's whole-beat reports and a wrap at a block boundary, from a real log")
    func workedExample7() throws {
        let events = try log("length 8\nnote 4 1/2 65 100\nnote 20/3 1/3 72 110 2\n", Self.example7)
        #expect(events == [
            "96000 90 41 64", "108000 80 41 00", "160000 91 48 6e", "168000 81 48 00",
            "288000 90 41 64", "300000 80 41 00", "352000 91 48 6e", "360000 81 48 00",
        ])
    }

    @Test("a whole-beat report: the bar's first beat in barBeat, the beat of the bar from 1 in beat")
    func wholeBeatShape() throws {
        let report = PositionUpdate(frame: 96000, speed: 1, bar: 1, barBeat: 4, beat: 1, beatsPerBar: 4, beatsPerMinute: 120)
        let floor = try #require(FloorReport(report, bar: 1, beatsPerBar: 4))
        #expect(floor.shape == .wholeBeat && floor.lowest == BeatPosition(4) && floor.widthBeats == 1)
        // In 3/4 the beat of the bar runs from 1 to 3: a 4 is not Qtractor's shape.
        #expect(FloorReport(PositionUpdate(frame: 0, bar: 2, barBeat: 6, beat: 4, beatsPerBar: 3), bar: 2, beatsPerBar: 3) == nil)
        let threeFour = try #require(FloorReport(PositionUpdate(frame: 0, bar: 2, barBeat: 6, beat: 3, beatsPerBar: 3), bar: 2, beatsPerBar: 3))
        #expect(threeFour.lowest == BeatPosition(8))
    }

    @Test("a start mid-beat and a locate: the beat of the exact frame, frame × T / 60R")
    func startAndLocateFromTheFrame() throws {
        // Play from frame 36000 (beat 1.5 at 120 bpm): Qtractor says bar 0, beat 2 of the bar.
        // The onset at beat 2 is 12000 frames later. Then a locate to frame 204000 (beat 8.5):
        // bar 2, beat 1; the onset at 9 (pattern beat 1) is 12000 frames after it.
        let events = try log("length 4\nnote 2 1/4 60 100\nnote 1 1/4 62 100\n", """
            0 position frame=36000:l speed=1:f bar=0:l beat=2:d barBeat=0:f beatsPerBar=4:f beatsPerMinute=120:f
            20000 position frame=204000:l speed=1:f bar=2:l beat=1:d barBeat=8:f beatsPerBar=4:f beatsPerMinute=120:f
            40000 end
            """)
        #expect(events == ["12000 90 3c 64", "18000 80 3c 00", "32000 90 3e 64", "38000 80 3e 00"])
    }

    @Test("after a tempo change the frame no longer gives the beat: our own beat is kept while the host's frame continues ours")
    func tempoMapKeepsOurBeat() throws {
        // The host plays 120 bpm for 2 beats (48000 frames), then 60 bpm: its beat 3 is at
        // 48000 + 48000 = 96000. Its report at the next block start (48128) names beat 3 of
        // bar 0 (whole beat 2) and 60 bpm. frame × T / 60R at 60 bpm would say beat 1.0027
        // there, outside [2, 3); our own beat, 48128 / 24000 = 2.0053, lies inside it: kept.
        let events = try log("length 4\nnote 3 1/4 60 100\n", """
            0 position frame=0:l speed=1:f bar=0:l beat=1:d barBeat=0:f beatsPerBar=4:f beatsPerMinute=120:f
            24064 position frame=24064:l speed=1:f bar=0:l beat=2:d barBeat=0:f beatsPerBar=4:f beatsPerMinute=120:f
            48128 position frame=48128:l speed=1:f bar=0:l beat=3:d barBeat=0:f beatsPerBar=4:f beatsPerMinute=60:f
            120000 end
            """)
        // The tempo change reached Tactus 128 frames late (at the block start), so our beat
        // is 128 × (1/24000 - 1/48000) beat ahead, 128 frames at 60 bpm: beat 3 comes at
        // 48128 + (3 - 2.0053) × 48000 = 95872, within a block of the host's 96000.
        #expect(events == ["95872 90 3c 64", "107872 80 3c 00"])
    }

    @Test("a MusE-shaped host (every block, beat cut to 384 ticks, exact frame) plays every note at an ideal host's frame",
          arguments: [120.0, 133.7, 97.3])
    func museShapedSession(bpm: Double) throws {
        let pattern = try String(contentsOf: Self.hostPattern, encoding: .utf8)
        // 12 s with a loop from beat 0 to beat 8 (its start a whole frame at every tempo).
        let actions = "0 tempo \(bpm)\n0 loop 0 8\n0 play\n576000 stop\n580000 end\n"
        let muse = try log(pattern, "rate 48000\nsend every-block\nkeys muse\nfloor-ticks 384\n" + actions)
        let ideal = try log(pattern, "rate 48000\nsend on-change\nkeys beat\n" + actions)
        #expect(muse.count > 30)
        #expect(muse == ideal)
        // The reports really are behind: MusE's beat is up to a tick (62.5 frames at 120 bpm) late.
        var simulator = HostSimulator(script: try TransportScript(parsing: "tactus-transport 1\nrate 48000\nkeys muse\nsend every-block\n" + actions), sampleRate: 48000)
        var behind = 0.0
        for block in 0..<2000 {
            for input in simulator.inputs(blockStart: Int64(block * 256), frameCount: 256) {
                guard case .position(let p) = input.input, let beat = p.update.beat, p.update.speed == 1, let frame = p.update.frame else { continue }
                behind = max(behind, frame * bpm / 2_880_000 - beat)
            }
        }
        #expect(behind > 1.0 / 1920 && behind < 1.0 / 384 + 1e-9)
    }

    @Test("a Qtractor-shaped host with a loop end inside a block: no note stuck, none doubled, the rest exact")
    func qtractorShapedWrapLimit() throws {
        let pattern = try String(contentsOf: Self.hostPattern, encoding: .utf8)
        let actions = "0 tempo 133.7\n0 loop 0 8\n0 play\n576000 stop\n580000 end\n"
        let qtractor = try log(pattern, "rate 48000\nsend on-beat\nkeys qtractor\n" + actions)
        let ideal = try log(pattern, "rate 48000\nsend on-change\nkeys beat\n" + actions)
        var sounding = Set<String>()
        for line in qtractor {
            let w = line.split(separator: " ")
            let slot = "\(w[1].last!) \(w[2])"
            if w[1].hasPrefix("9") { #expect(sounding.insert(slot).inserted, "doubled: \(line)") } else { #expect(sounding.remove(slot) != nil, "\(line)") }
        }
        #expect(sounding.isEmpty)
        // Same note-ons at the same frames (the pattern repeats in step with the loop),
        // and only note-offs near the wraps may differ.
        #expect(qtractor.filter { $0.contains(" 9") } == ideal.filter { $0.contains(" 9") })
        #expect(qtractor.count == ideal.count)
    }

    @Test("our beat exactly on the lower edge of a floor's range (widened by 1/960) is in it, as exact arithmetic has it",
          arguments: [0.0, 1, 1000, 16451, 1_000_000])
    func rangeEdgeIsExact(bar: Double) throws {
        // 96 kHz, 60 bpm: 1/960 beat is 100 frames. From beat 4 × bar at frame 0, 95900 frames
        // later our beat is 4 × bar + 1 - 1/960; Qtractor's frame ran on with ours and names
        // beat 2 of the bar: the range [4 × bar + 1, ... + 2), widened, starts exactly there.
        var clock = TransportClock(sampleRate: 96000)
        #expect(clock.apply(PositionUpdate(frame: 0, speed: 1, bar: bar, barBeat: 0, beatsPerBar: 4, beatsPerMinute: 60), atFrame: 0) == .start)
        let report = PositionUpdate(frame: 95900, speed: 1, bar: bar, barBeat: 4 * bar, beat: 2, beatsPerBar: 4, beatsPerMinute: 60)
        #expect(clock.apply(report, atFrame: 95900) == .repeat)
        #expect(clock.anchorFrame == 0 && clock.anchorBeat == BeatPosition(4 * bar))
        // The top edge, 4 × bar + 2 + 1/960 (a whole beat wide, widened), is out of the range.
        var late = TransportClock(sampleRate: 96000)
        _ = late.apply(PositionUpdate(frame: 0, speed: 1, bar: bar, barBeat: 0, beatsPerBar: 4, beatsPerMinute: 60), atFrame: 0)
        let edge = Int64(2 * 96000 + 100)
        let atEdge = PositionUpdate(frame: Double(edge), speed: 1, bar: bar, barBeat: 4 * bar, beat: 2, beatsPerBar: 4, beatsPerMinute: 60)
        #expect(FloorReport(atEdge, bar: bar, beatsPerBar: 4)?.admits(late.beat(atFrame: edge)) == false)
        #expect(FloorReport(atEdge, bar: bar, beatsPerBar: 4)?.admits(late.beat(atFrame: edge - 1)) == true)
    }

    // MARK: Ardour, jalv and Carla are not read that way

    @Test("Ardour's and jalv's recorded reports are never floor reports")
    func recordedHostsAreNotFloorReports() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.fixtures.path).filter { $0.hasPrefix("ardour-") || $0.hasPrefix("jalv-") }
        #expect(names.count == 9)
        var positions = 0
        for name in names {
            let script = try TransportScript(parsing: String(contentsOf: Self.fixtures.appendingPathComponent("\(name)/session.transport"), encoding: .utf8))
            for action in script.actions {
                guard case .position(let p) = action.action else { continue }
                let u = p.update
                #expect(FloorReport(u, bar: u.bar ?? 0, beatsPerBar: u.beatsPerBar ?? 4) == nil, "\(name): \(action.frame)")
                positions += 1
            }
        }
        #expect(positions > 5000)
        // Ardour's tick-rounded barBeat as it sends it, with a beat added as Carla would: still not Qtractor's shape.
        #expect(FloorReport(PositionUpdate(frame: 150001, speed: 1, bar: 1, barBeat: 2.25052083, beatsPerBar: 4, beatsPerMinute: 120), bar: 1, beatsPerBar: 4) == nil)
    }

    @Test("Carla's reports (atom:Blank every block, beat = the beat of the bar from 0) are never whole-beat reports, and read as before")
    func carlaIsNotAFloorHost() throws {
        // Carla (Tests/Fixtures/carla-*): barBeat = beat - 1 + tick / ticksPerBeat, `beat` the
        // beat of the bar counted from 0 (a whole number), bar from 0.
        for bar in 0..<6 {
            for tick in stride(from: 0.0, to: 4, by: 0.25) {
                let u = PositionUpdate(
                    frame: Double(bar) * 96000 + tick * 24000, speed: 1, bar: Double(bar), barBeat: tick, beat: tick.rounded(.down),
                    beatsPerBar: 4, beatsPerMinute: 120)
                let floor = FloorReport(u, bar: Double(bar), beatsPerBar: 4)
                #expect(floor?.shape != .wholeBeat)
                if bar > 0 || tick != tick.rounded(.down) { #expect(floor == nil) }
            }
        }
        // A Carla-shaped session, every block, in bars 0 to 2: the same log as without the beat key.
        var withBeat = "rate 48000\n", without = "rate 48000\n"
        for block in 0..<1125 {
            let frame = block * 256
            let beats = Double(frame) / 24000
            let bar = Int(beats / 4)
            let barBeat = Float(beats - Double(bar) * 4)
            let common = "\(frame) position frame=\(frame):l speed=1:f bar=\(bar):l barBeat=\(barBeat):f beatUnit=4:i beatsPerBar=4:f beatsPerMinute=120:f"
            withBeat += common + " beat=\(Double(barBeat).rounded(.down)):d blank\n"
            without += common + " blank\n"
        }
        let pattern = try String(contentsOf: Self.hostPattern, encoding: .utf8)
        let a = try log(pattern, withBeat + "288000 end\n")
        let b = try log(pattern, without + "288000 end\n")
        #expect(a.count > 20 && a == b)
    }
}

extension FloorReport: Equatable {
    public static func == (a: FloorReport, b: FloorReport) -> Bool {
        a.shape == b.shape && a.lowest == b.lowest && a.widthBeats == b.widthBeats
    }
}
