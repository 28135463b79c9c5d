import ArgumentParser
import FileIO
import Foundation
import TactusEngine
import TactusModel
import TactusOffline

/// Tools for the live host tests (scripts/host-test): turning what the probe
/// plugin logged inside a host into a session description and an event log,
/// and building the session an ideal host would have sent, to measure a host's
/// own rounding.
@main
struct HostTestTool: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tactus-hosttest",
        abstract: "Host-test tools: import a probe log, idealize a session.",
        subcommands: [
            ProbeImport.self, Idealize.self, AddLoop.self, JackAlign.self, EditStorm.self, SamePattern.self, QtractorSession.self,
            QtractorIdeal.self, WrapLimit.self,
        ])
}

struct ProbeImport: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "probe-import",
        abstract: "Split a probe log into a session description (the positions the host sent) and an event log (the MIDI Tactus played).")

    @Argument(help: "The probe's log ($TACTUS_PROBE_LOG).") var probeLog: String
    @Option(help: "Sample rate.") var rate: Int
    @Option(help: "Block size the host ran.") var blocks: String
    @Option(help: "The pattern the session started with, as the session will name it (relative to the session file).") var pattern: String
    @Option(help: "Folder to write session.transport and recorded.log into.") var out: String
    @Option(help: "Comment lines describing the session (repeatable).") var describe: [String] = []

    func run() throws {
        let text = try FileInput.text(probeLog)
        var session = "tactus-transport 1\n"
        for line in describe { session += "# \(line)\n" }
        session += "rate \(rate)\nblocks \(blocks)\npattern \(pattern)\n"
        var log = "# tactus event log: MIDI recorded from Tactus inside the host (FRAME, then bytes)\n"
        var last: Int64 = 0
        var positions = 0
        var events = 0
        var hostNoteOffs = 0
        for line in text.split(separator: "\n") {
            let words = line.split(separator: " ")
            guard words.count >= 2, let frame = Int64(words[0]) else { continue }
            last = max(last, frame)
            switch words[1] {
            case "position":
                session += line + "\n"
                positions += 1
            case "midi":
                let bytes = words.dropFirst(2).compactMap { UInt8($0, radix: 16) }
                // Tactus writes note-offs as 8n kk 00. A note-off with a velocity is the
                // host's own: Ardour resolves the notes of a MIDI track when its
                // transport stops, after the plugins, with velocity 64.
                if bytes.count == 3, bytes[0] & 0xF0 == 0x80, bytes[2] != 0 {
                    hostNoteOffs += 1
                    continue
                }
                log += "\(frame) " + words.dropFirst(2).joined(separator: " ") + "\n"
                events += 1
            default:
                throw ValidationError("unexpected probe line: \(line)")
            }
        }
        session += "\(last + 1) end\n"
        try Folder.create(out)
        try AtomicFile.write(session, to: out + "/session.transport")
        try AtomicFile.write(log, to: out + "/recorded.log")
        print("tactus-hosttest: \(positions) positions and \(events) MIDI events from \(probeLog)"
            + (hostNoteOffs > 0 ? "; \(hostNoteOffs) note-offs with a velocity (the host's own, at stops) left out" : ""))
    }
}

struct AddLoop: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add-loop",
        abstract: "Add a loop range (IsAutoLoop) to an Ardour 7 session file, between two beats of a tempo map.",
        discussion: "Ardour's Lua cannot create a loop range; a saved session can carry one, which the next load uses.")

    @Argument(help: "The .ardour session file.") var sessionFile: String
    @Option(help: "Sample rate.") var rate: Double
    @Option(help: "Loop start, in beats.") var startBeat: Double
    @Option(help: "Loop end, in beats.") var endBeat: Double
    @Option(help: "Tempo map: FRAME:BPM pairs, comma-separated, first at frame 0.") var tempoMap: String

    func run() throws {
        let map = try TempoMap(parsing: tempoMap, rate: rate)
        // Ardour 7 keeps positions in superclock ticks: 282,240,000 a second.
        let superclock = 282_240_000.0
        let start = (map.frame(atBeat: startBeat) * superclock / rate).rounded()
        let end = (map.frame(atBeat: endBeat) * superclock / rate).rounded()
        var text = try FileInput.text(sessionFile)
        let location = "<Location id=\"9000001\" name=\"Loop\" start=\"a\(Int64(start))\" end=\"a\(Int64(end))\" flags=\"IsAutoLoop,IsHidden\" locked=\"0\" timestamp=\"1700000000\" cue=\"0\"/>"
        guard text.contains("<Locations/>") else { throw ValidationError("no empty <Locations/> in \(sessionFile)") }
        text = text.replacingOccurrences(of: "<Locations/>", with: "<Locations>\n    \(location)\n  </Locations>")
        try AtomicFile.write(text, to: sessionFile)
        print("tactus-hosttest: loop range from frame \(map.frame(atBeat: startBeat)) to \(map.frame(atBeat: endBeat))")
    }
}

/// A host's tempo map as constant-tempo segments starting at given frames.
struct TempoMap {
    var points: [(frame: Double, bpm: Double)]
    let rate: Double

    init(parsing text: String, rate: Double) throws {
        self.rate = rate
        points = try text.split(separator: ",").map { item -> (Double, Double) in
            let parts = item.split(separator: ":").compactMap { Double($0) }
            guard parts.count == 2 else { throw ValidationError("tempo map entries are FRAME:BPM, found '\(item)'") }
            return (parts[0], parts[1])
        }
        guard points.first?.frame == 0 else { throw ValidationError("the tempo map must start at frame 0") }
    }

    /// The exact beat of a frame: beats add up segment by segment.
    func beat(atFrame frame: Double) -> Double {
        var beats = 0.0
        for (i, p) in points.enumerated() {
            let end = i + 1 < points.count ? points[i + 1].frame : Double.infinity
            if frame <= p.frame { break }
            beats += (min(frame, end) - p.frame) * p.bpm / (60 * rate)
        }
        return beats
    }

    /// The frame of a beat.
    func frame(atBeat beat: Double) -> Double {
        var beats = 0.0
        for (i, p) in points.enumerated() {
            let end = i + 1 < points.count ? points[i + 1].frame : Double.infinity
            let segment = (end - p.frame) * p.bpm / (60 * rate)
            if beat <= beats + segment { return p.frame + (beat - beats) * 60 * rate / p.bpm }
            beats += segment
        }
        return .infinity
    }
}

struct Idealize: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "idealize",
        abstract: "Rewrite each position's bar and barBeat as the exact beat of its frame under a tempo map (as Double).")

    @Argument(help: "Session description with the positions a host sent.") var session: String
    @Option(help: "Tempo map: FRAME:BPM pairs, comma-separated, first at frame 0 (e.g. 0:120,192000:133.7).") var tempoMap: String
    @Option(help: "Beats per bar.") var beatsPerBar: Double = 4
    @Option(help: "Sample rate.") var rate: Double
    @Option(name: .shortAndLong, help: "Output file.") var output: String
    @Flag(help: "Also report each tempo change at its own frame, mid-block, as an ideal host would.") var tempoPoints = false

    func run() throws {
        let map = try TempoMap(parsing: tempoMap, rate: rate)
        func beat(at frame: Double) -> Double { map.beat(atFrame: frame) }
        var insertions: [Int64: String] = [:]
        if tempoPoints { insertions = try tempoPointPositions(map) }
        let text = try FileInput.text(session)
        var out = ""
        var rewritten = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let words = line.split(separator: " ")
            guard words.count > 2, words[1] == "position",
                let frameField = words.first(where: { $0.hasPrefix("frame=") }),
                let frame = Double(frameField.dropFirst(6).split(separator: ":")[0]),
                words.contains(where: { $0.hasPrefix("barBeat=") })
            else {
                out += line + "\n"
                continue
            }
            if let sessionFrame = Int64(words[0]) {
                for (at, line) in insertions.sorted(by: { $0.key < $1.key }) where at <= sessionFrame {
                    out += line + "\n"
                    insertions[at] = nil
                }
            }
            let b = beat(at: frame)
            let bar = (b / beatsPerBar).rounded(.down)
            let fields = words.map { w -> String in
                if w.hasPrefix("barBeat=") { return "barBeat=\(b - bar * beatsPerBar):d" }
                if w.hasPrefix("bar=") { return "bar=\(Int64(bar)):l" }
                return String(w)
            }
            out += fields.joined(separator: " ") + "\n"
            rewritten += 1
        }
        if out.hasSuffix("\n\n") { out.removeLast() }
        try AtomicFile.write(out, to: output)
        print("tactus-hosttest: \(rewritten) positions rewritten to exact beats")
    }

    /// A position at each tempo change, at the session frame where the host's
    /// transport passed it, wherever two rolling reports in a row bracket it.
    func tempoPointPositions(_ map: TempoMap) throws -> [Int64: String] {
        let text = try FileInput.text(session)
        var reports: [(session: Int64, transport: Double, rolling: Bool)] = []
        for line in text.split(separator: "\n") {
            let words = line.split(separator: " ")
            guard words.count > 2, words[1] == "position", let at = Int64(words[0]),
                let frameField = words.first(where: { $0.hasPrefix("frame=") }),
                let frame = Double(frameField.dropFirst(6).split(separator: ":")[0])
            else { continue }
            let rolling = words.contains { $0.hasPrefix("speed=1") }
            reports.append((at, frame, rolling))
        }
        var result: [Int64: String] = [:]
        for point in map.points.dropFirst() {
            for (a, b) in zip(reports, reports.dropFirst())
            where a.rolling && b.rolling && a.transport < point.frame && point.frame < b.transport
                && b.transport - a.transport == Double(b.session - a.session)
            {
                let at = a.session + Int64(point.frame - a.transport)
                let beat = map.beat(atFrame: point.frame)
                let bar = (beat / beatsPerBar).rounded(.down)
                result[at] = "\(at) position frame=\(Int64(point.frame)):l speed=1:f bar=\(Int64(bar)):l barBeat=\(beat - bar * beatsPerBar):d beatsPerMinute=\(Float(point.bpm)):f"
            }
        }
        return result
    }
}
