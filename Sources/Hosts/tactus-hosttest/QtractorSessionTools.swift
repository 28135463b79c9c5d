import ArgumentParser
import FileIO
import Foundation
import TactusEngine
import TactusModel
import TactusOffline

/// A Qtractor session file (`.qtr`, XML) with one MIDI track carrying Tactus
/// and then the probe, the pattern in Tactus's state, a tempo and a loop range.
///
/// The format is Qtractor's own (qtractorSession.cpp, qtractorTrack.cpp,
/// qtractorPlugin.cpp: `<properties>`, `<state>` with the loop in frames,
/// `<tracks>`, a track's `<plugins>`, each LV2 plugin by its URI with its
/// state as `<configs>`). Qtractor hands a plugin's string configs to the
/// plugin's state restore, so the pattern arrives as `urn:tactus:pattern`.
/// With `--clap`, Tactus is the CLAP plugin of that file instead (issue 31):
/// Qtractor keeps a CLAP plugin's state as one config, `state`, its bytes
/// compressed with Qt's qCompress and in base64 (`--clap-state` gives that
/// text; scripts/host-test makes it with Python's zlib).
struct QtractorSession: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "qtractor-session",
        abstract: "Write a Qtractor session: Tactus, then the probe, on a MIDI track; a tempo and a loop range.")

    @Option(help: "The pattern file Tactus plays.") var pattern: String
    @Option(help: "Sample rate.") var rate: Int
    @Option(help: "Tempo, beats per minute.") var bpm: Double
    @Option(help: "Loop start, in beats.") var loopStart: Double
    @Option(help: "Loop end, in beats.") var loopEnd: Double
    @Option(name: .shortAndLong, help: "The .qtr file to write (its folder is the session's directory).") var output: String
    @Option(help: "Tactus as the CLAP plugin of this .clap file instead of the LV2 one.") var clap: String? = nil
    @Option(help: "With --clap: a file holding the CLAP state as Qtractor keeps it (qCompress, base64).") var clapState: String? = nil

    func run() throws {
        let text = try FileInput.text(pattern)
        let framesPerBeat = 60 * Double(rate) / bpm
        let start = QtractorSession.loopFrame(beat: loopStart, framesPerBeat: framesPerBeat)
        let end = QtractorSession.loopFrame(beat: loopEnd, framesPerBeat: framesPerBeat)
        guard start < end else { throw ValidationError("the loop must end after it starts") }
        let directory = (output as NSString).deletingLastPathComponent
        let tactus: String
        if let clap {
            guard let clapState else { throw ValidationError("--clap needs --clap-state") }
            let state = try FileInput.text(clapState).trimmingCharacters(in: .whitespacesAndNewlines)
            tactus = """
                    <plugin type="CLAP">
                     <filename>\(QtractorSession.escaped(clap))</filename>
                     <index>0</index>
                     <activated>true</activated>
                     <configs>
                      <config key="state">\(QtractorSession.escaped(state))</config>
                     </configs>
                    </plugin>
                """
        } else {
            tactus = """
                    <plugin type="LV2">
                     <filename>urn:tactus:sequencer</filename>
                     <index>0</index>
                     <activated>true</activated>
                     <configs>
                      <config key="urn:tactus:pattern" type="http://lv2plug.in/ns/ext/atom#String">\(QtractorSession.escaped(text))</config>
                     </configs>
                    </plugin>
                """
        }
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE qtractorSession>
            <session version="0.9.31" name="tactus-hosttest">
             <properties>
              <directory>\(QtractorSession.escaped(directory.isEmpty ? "." : directory))</directory>
              <sample-rate>\(rate)</sample-rate>
              <tempo>\(bpm)</tempo>
              <ticks-per-beat>960</ticks-per-beat>
              <beats-per-bar>4</beats-per-bar>
              <beat-divisor>2</beat-divisor>
             </properties>
             <state>
              <loop-start>\(start)</loop-start>
              <loop-end>\(end)</loop-end>
             </state>
             <tracks>
              <track name="Tactus" type="midi">
               <properties>
                <input-bus>Master</input-bus>
                <output-bus>Master</output-bus>
                <midi-omni>false</midi-omni>
                <midi-channel>0</midi-channel>
               </properties>
               <plugins>
            \(tactus)
                <plugin type="LV2">
                 <filename>urn:tactus:hosttest:probe</filename>
                 <index>0</index>
                 <activated>true</activated>
                </plugin>
               </plugins>
              </track>
             </tracks>
            </session>

            """
        // Complete or not there: write beside, then rename.
        try AtomicFile.write(xml, to: output)
        print("tactus-hosttest: \(output): \(bpm) bpm, loop from frame \(start) to \(end) (beat \(loopStart) to \(loopEnd))")
    }

    /// Qtractor keeps the loop in whole frames.
    static func loopFrame(beat: Double, framesPerBeat: Double) -> Int64 { Int64((beat * framesPerBeat).rounded()) }

    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }
}

/// The session an ideal host would have played where Qtractor played: the
/// same start, stop and tempo, the same loop range, but each wrap reported at
/// the frame where it happens (mid-block), with exact beats. Qtractor's own
/// positions come from a session description made by `probe-import`.
///
/// Where Qtractor's playhead slipped against the cycles it ran the plugin for
/// (on a busy machine an xrun can leave it a cycle behind or ahead), its
/// report gives a frame that neither the run nor a wrap explains; the ideal
/// host moves there too, at that report (a locate to the playhead's beat).
struct QtractorIdeal: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "qtractor-ideal",
        abstract: "From the positions Qtractor sent, the session an ideal host would have played (exact beats, wraps at their frame).")

    @Argument(help: "Session description with the positions Qtractor sent (probe-import).") var session: String
    @Option(help: "Sample rate.") var rate: Int
    @Option(help: "Tempo, beats per minute.") var bpm: Double
    @Option(help: "Loop start, in beats (as given to qtractor-session).") var loopStart: Double
    @Option(help: "Loop end, in beats (as given to qtractor-session).") var loopEnd: Double
    @Option(name: .shortAndLong, help: "Output file.") var output: String

    func run() throws {
        let lines = try ScriptLines(file: session)
        let framesPerBeat = 60 * Double(rate) / bpm
        // Qtractor wraps when its playhead reaches the loop end's whole frame; the
        // ideal host's loop ends half a frame before it, so it wraps at that frame too.
        let start = Double(QtractorSession.loopFrame(beat: loopStart, framesPerBeat: framesPerBeat)) / framesPerBeat
        let end = (Double(QtractorSession.loopFrame(beat: loopEnd, framesPerBeat: framesPerBeat)) - 0.5) / framesPerBeat
        var out = lines.header.filter { !$0.hasPrefix("#") }.joined(separator: "\n") + "\n"
        out += "# The ideal host for a Qtractor session: its start and stop, tempo \(bpm), loop \(loopStart) to \(loopEnd),\n"
        out += "# every wrap reported at its own frame with exact beats.\n"
        out += "0 tempo \(bpm)\n0 loop \(start) \(end)\n"
        let loopStartFrame = Double(QtractorSession.loopFrame(beat: loopStart, framesPerBeat: framesPerBeat))
        let loopEndFrame = Double(QtractorSession.loopFrame(beat: loopEnd, framesPerBeat: framesPerBeat))
        var rolling = false
        var last: (at: Int64, hostFrame: Double)?
        var slips = 0
        for (frame, text) in lines.timed where text.hasPrefix("position") {
            let words = text.split(separator: " ")
            func value(_ key: String) -> Double? {
                words.first { $0.hasPrefix(key + "=") }.flatMap { Double($0.dropFirst(key.count + 1).split(separator: ":")[0]) }
            }
            guard let speed = value("speed"), let hostFrame = value("frame") else { continue }
            if speed > 0 && !rolling {
                out += "\(frame) locate \(hostFrame / framesPerBeat)\n\(frame) play\n"
                rolling = true
            } else if speed == 0 && rolling {
                out += "\(frame) stop\n"
                rolling = false
            } else if speed > 0, let last {
                // Where the ideal host's playhead is now: run on, wrapped at the loop end.
                var expected = last.hostFrame + Double(frame - last.at)
                while expected >= loopEndFrame && last.hostFrame < loopEndFrame { expected -= loopEndFrame - loopStartFrame }
                if expected != hostFrame {
                    out += "\(frame) locate \(hostFrame / framesPerBeat)\n"
                    slips += 1
                }
            }
            last = (frame, hostFrame)
        }
        guard let endFrame = lines.end else { throw ValidationError("\(session) has no end line") }
        out += "\(endFrame) end\n"
        try AtomicFile.write(out, to: output)
        print("tactus-hosttest: the ideal host for \(session) in \(output)"
            + (slips > 0 ? "; it follows \(slips) slips of Qtractor's playhead against its cycles (xruns)" : ""))
    }
}

/// Tactus in Qtractor against an ideal host, allowing only what the timing
/// contract's wrap limit explains (§1, rule 1): Qtractor runs a block whole
/// across its loop end and reports the wrap at the next block start, so from
/// the wrap to that report (at most a block) Tactus plays on past the loop
/// end, and the notes sounding there end at the report rather than at the
/// wrap. Everything else must be exact, and in the whole log every note-on
/// must be ended once, nothing left sounding, no note started twice.
struct WrapLimit: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wrap-limit",
        abstract: "Compare a Qtractor recording with an ideal host: exact but for the block after each wrap; no stuck or doubled note.")

    @Argument(help: "The ideal host's session (qtractor-ideal).") var ideal: String
    @Argument(help: "The session with the positions Qtractor sent (probe-import).") var session: String
    @Argument(help: "The recorded event log.") var log: String

    func run() throws {
        let script = try TransportScript(parsing: try FileInput.text(ideal))
        guard let patternPath = script.initialPattern else { throw ValidationError("\(ideal) names no pattern") }
        let folder = (ideal as NSString).deletingLastPathComponent
        func load(_ path: String) -> Result<(Pattern, [UInt8]), PatternLoadError> {
            let full = path.hasPrefix("/") || folder.isEmpty ? path : (folder as NSString).appendingPathComponent(path)
            let bytes: [UInt8]
            switch FileInput.read(full) {
            case .success(let b): bytes = b
            case .failure(let e): return .failure(PatternLoadError(FileReadFailure(path: full, reason: e).description))
            }
            do { return .success((try PatternParser.parse(bytes: bytes), bytes)) } catch { return .failure(PatternLoadError("\(full): \(error.reasonText)")) }
        }
        let initial = try load(patternPath).get()
        let block = Int64(256)
        let render = OfflineRender(script: script, sampleRate: script.sampleRate ?? 48000, blocks: script.blocks ?? .fixed(Int(block)))
        var expected: [LoggedEvent] = []
        _ = render.run(pattern: initial.0, patternText: initial.1, loadPattern: load, onBlock: { events, _ in expected += events })
        let recorded = try EventLog.parse(try FileInput.text(log))

        // Qtractor's wrap reports: a rolling report whose host frame went back (a slip of the
        // playhead against its cycles, which the ideal host follows, is not a wrap).
        var windows: [ClosedRange<Int64>] = []
        var previous: (at: Int64, hostFrame: Int64, rolling: Bool)?
        for (at, text) in try ScriptLines(file: session).timed where text.hasPrefix("position") {
            let words = text.split(separator: " ")
            func value(_ key: String) -> Double? {
                words.first { $0.hasPrefix(key + "=") }.flatMap { Double($0.dropFirst(key.count + 1).split(separator: ":")[0]) }
            }
            guard let hostFrame = value("frame").map({ Int64($0) }), let speed = value("speed") else { continue }
            if let p = previous, p.rolling, speed > 0, hostFrame < p.hostFrame { windows.append((at - block)...at) }
            previous = (at, hostFrame, speed > 0)
        }
        let comparison = LogComparison(expected: expected, recorded: recorded)
        let outside = comparison.differences.filter { d in !windows.contains { $0.contains(d.frame) } }
        let problems = WrapLimit.soundingProblems(recorded)
        let summary = "\(expected.count) events expected, \(recorded.count) recorded, \(comparison.exact) at the same frame; "
            + "\(comparison.differences.count) differences, all within a block after one of \(windows.count) wraps"
        if let first = outside.first {
            print("tactus-hosttest: \(outside.count) differences outside the wrap limit; the first: \(first)")
            throw ExitCode(1)
        }
        if let first = problems.first {
            print("tactus-hosttest: \(first)")
            throw ExitCode(1)
        }
        print("tactus-hosttest: " + (comparison.differences.isEmpty
            ? "all \(comparison.pairs) events at the ideal host's frames; no note stuck or doubled"
            : summary + "; no note stuck or doubled"))
        for d in comparison.differences { print("  within the wrap limit: \(d)") }
    }

    /// Note-ons without exactly one note-off after them, and notes left sounding.
    static func soundingProblems(_ events: [LoggedEvent]) -> [String] {
        var sounding: [Int: Int64] = [:]
        var problems: [String] = []
        for e in events where e.bytes.count == 3 {
            let slot = Int(e.bytes[0] & 0x0F) * 128 + Int(e.bytes[1])
            let isOn = e.bytes[0] & 0xF0 == 0x90 && e.bytes[2] > 0
            let isOff = e.bytes[0] & 0xF0 == 0x80 || (e.bytes[0] & 0xF0 == 0x90 && e.bytes[2] == 0)
            if isOn {
                if let on = sounding[slot] { problems.append("frame \(e.frame): note-on of a note sounding since frame \(on) (doubled)") }
                sounding[slot] = e.frame
            } else if isOff {
                if sounding.removeValue(forKey: slot) == nil { problems.append("frame \(e.frame): note-off of a note not sounding") }
            }
        }
        for (slot, on) in sounding.sorted(by: { $0.value < $1.value }) {
            problems.append("channel \(slot / 128 + 1) key \(slot % 128): sounding since frame \(on), never ended (stuck)")
        }
        return problems
    }
}
