import ArgumentParser
import FileIO
import Glibc
import TactusCommandLine
import TactusEngine
import TactusModel
import TactusOffline

struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Render a pattern against a transport script, offline, and print the event log.",
        discussion: """
            The transport script says what the host does (tempo, play, stop, locate, loop, \
            all-notes-off, pattern edits) at which frames: see docs/transport-script.md. \
            The log has one event a line: absolute frame, then the MIDI bytes in hex \
            (docs/event-log.md). A script that names its pattern ('pattern FILE', as a \
            tactus jack journal does) needs no --pattern. A log written with -o is \
            complete or not written at all. Exit status: 0 when the log is complete, \
            1 when an input is bad, a bound is reached or the log cannot be written, \
            2 for a wrong command line.
            """)

    @Option(name: .long, help: "Pattern text file (default: the script's 'pattern' setting).")
    var pattern: String?

    @Option(name: .long, help: "Transport script file ('-' for standard input).")
    var transport: String

    @Option(name: .long, help: "Sample rate in frames per second (default: the script's 'rate', else 48000).")
    var rate: Double?

    @Option(name: .long, help: "Block sizes: N, a list like 64,256,1024, or random:MIN-MAX@SEED (default: the script's 'blocks', else 256).")
    var blocks: String?

    @Option(name: .shortAndLong, help: "Write the log to this file instead of standard output.")
    var output: String?

    @Flag(name: .long, help: "Add the bar:beat and a description to each event, as a comment.")
    var annotate = false

    @Flag(name: .long, help: "Also send MIDI clock, as tactus jack's clock_out and the plugin's 'clock' toggle do: Song Position Pointer, Start or Continue, a Timing Clock every 1/24 quarter note, Stop (timing contract §12).")
    var clock = false

    @Option(name: .long, help: "Refuse scripts longer than this many hours of audio at the render's rate.")
    var maxHours: Double = RenderBounds.defaultHours

    @Option(name: .long, help: "Stop with an error after this many events (the log is not written).")
    var maxEvents: Int = RenderBounds.defaultEvents

    func validate() throws {
        if let blocks {
            do { _ = try BlockPlan(parsing: blocks) } catch { throw ValidationError("--blocks '\(blocks)': \(error.description)") }
        }
        if let rate { guard rate.isFinite, rate > 0 else { throw ValidationError("--rate must be a positive number") } }
        guard maxHours.isFinite, maxHours > 0 else { throw ValidationError("--max-hours must be a positive number") }
        guard maxEvents > 0 else { throw ValidationError("--max-events must be a positive number") }
        if let output, output == transport || output == pattern {
            throw ValidationError("-o '\(displayPath(output))' would overwrite an input")
        }
        if let smf, smf == transport || smf == pattern || smf == output {
            throw ValidationError("--smf '\(displayPath(smf))' would overwrite \(smf == output ? "the log (-o)" : "an input")")
        }
    }

    @Option(name: .long, help: "Also write what was played as a Standard MIDI File, with the script's tempo map (docs/midi-files.md M20).")
    var smf: String?

    func run() throws {
        let scriptText = try TextFile.text(transport)
        let script: TransportScript
        do { script = try TransportScript(parsing: scriptText) } catch {
            throw CommandFailure("\(displayPath(transport)):\(error.line): \(error.reason)")
        }
        let plan: BlockPlan
        if let blocks { plan = try! BlockPlan(parsing: blocks) } else { plan = script.blocks ?? .fixed(256) }
        let sampleRate = rate ?? script.sampleRate ?? 48000
        guard let patternPath = pattern ?? script.initialPattern.map({ PatternFile.resolve($0, relativeTo: transport) }) else {
            throw CommandFailure("\(displayPath(transport)): the script names no pattern ('pattern FILE'); give one with --pattern FILE")
        }
        let bounds = RenderBounds(hours: maxHours, events: maxEvents)
        if let refusal = bounds.refusal(endFrame: script.endFrame, sampleRate: sampleRate) {
            throw CommandFailure("\(displayPath(transport)): \(refusal)")
        }
        let (initial, text): (Pattern, [UInt8])
        switch PatternFile.load(patternPath) {
        case .success(let loaded): (initial, text) = loaded
        case .failure(let error): throw CommandFailure(error.description)
        }

        var out = try OutputStream(path: output)
        out.write("# tactus event log: FRAME then MIDI bytes in hex")
        out.write("# pattern \(displayPath(patternPath)), transport \(displayPath(transport)), rate \(formatNumber(sampleRate)), blocks \(plan)\(clock ? ", MIDI clock (§12)" : "")")
        let total = script.endFrame
        // Not while the log itself scrolls past on the same terminal.
        let logOnTerminal = (output == nil || output == "-") && isatty(STDOUT_FILENO) == 1
        let progress = ProgressLine(enabled: isatty(STDERR_FILENO) == 1 && !logOnTerminal) { done, total in
            "rendering: \(formatSeconds(Double(done) / sampleRate)) of \(formatSeconds(Double(total) / sampleRate)) (\(ProgressLine.percent(done, of: total)))"
        }
        var render = OfflineRender(script: script, sampleRate: sampleRate, blocks: plan)
        render.annotate = annotate
        render.midiClock = clock
        var events = 0
        // The closures below run once a block, millions of times: they read
        // the options from locals, as reading an @Option goes through
        // ArgumentParser's generic storage (more than a block's rendering costs).
        let maxEvents = maxEvents, annotate = annotate, keepPlayed = smf != nil
        let started = MonotonicClock.now()
        var played: [LoggedEvent] = []
        let report = render.run(
            pattern: initial, patternText: text,
            loadPattern: { PatternFile.load(PatternFile.resolve($0, relativeTo: transport)) },
            shouldStop: { out.failed || events > maxEvents },
            onBlock: { blockEvents, rendered in
                events += blockEvents.count
                // A Standard MIDI File holds no clock: it is the transport's, not the music's.
                if keepPlayed { played += blockEvents.filter { $0.bytes[0] < 0xF0 } }
                for e in blockEvents {
                    if annotate, let position = e.position {
                        let line = EventLog.line(e)
                        let pad = String(repeating: " ", count: max(1, 20 - line.count))
                        out.write("\(line)\(pad)# \(position.barBeatText)  \(e.summary)")
                    } else {
                        out.write(EventLog.line(e))
                    }
                }
                progress.report(rendered, of: total)
            })
        if events > maxEvents || out.failed {
            progress.abandon()
        } else {
            progress.finish(at: report.frames, of: total)
        }
        if events > maxEvents {
            out.abandon()
            throw CommandFailure(
                "the render passed \(counted(maxEvents, "event")) at frame \(report.frames) of \(total)\(output.map { "; '\(displayPath($0))' was not written" } ?? ""); raise the bound with --max-events")
        }
        try out.finish()
        if let smf {
            try AtomicFile.write(SessionMIDIFile.bytes(events: played, script: script, sampleRate: sampleRate, name: patternPath), to: smf)
        }
        let elapsed = MonotonicClock.now() - started
        for failure in report.editFailures { printError("Warning: \(failure)") }
        for failure in report.requestFailures { printError("Warning: \(failure)") }
        let s = report.statistics
        if s.droppedNoteOns > 0 || s.overfullBlocks > 0 {
            printError("Warning: \(counted(Int(s.droppedNoteOns), "note-on")) dropped, \(counted(Int(s.overfullBlocks), "block")) with a full output buffer")
        }
        if s.ignoredUpdates > 0 { printError("Warning: \(counted(Int(s.ignoredUpdates), "position update")) ignored as invalid") }
        if progress.enabled {
            let seconds = Double(report.frames) / sampleRate
            printError("tactus render: \(counted(report.events, "event")), \(counted(report.blocks, "block")), \(formatSeconds(seconds)) of audio in \(formatSeconds(elapsed)) (\(Int(seconds / max(elapsed, 1e-9)))x realtime)")
        }
    }
}

/// How much `tactus render` does before it refuses: the length of audio a
/// script may ask for, and the events it may write. The defaults let a day at
/// 96 kHz (make soak's length) render; a script ending at 10^18 frames is
/// refused at once instead of filling the disk.
struct RenderBounds {
    static let defaultHours = 48.0
    static let defaultEvents = 100_000_000

    var hours: Double
    var events: Int

    /// Why a script of `endFrame` frames is refused, or nil; `option` names
    /// the option that raises the limit, where there is one.
    func refusal(endFrame: Int64, sampleRate: Double, option: String? = "--max-hours") -> String? {
        let scriptHours = Double(endFrame) / sampleRate / 3600
        guard scriptHours > hours else { return nil }
        return "the script ends at frame \(endFrame), \(formatHours(scriptHours)) of audio at \(formatNumber(sampleRate)) Hz; "
            + "the limit is \(formatHours(hours))" + (option.map { " (raise it with \($0))" } ?? "")
    }

    private func formatHours(_ h: Double) -> String {
        h < 1e6 ? "\(formatNumber((h * 100).rounded() / 100)) hours" : Formatting.printf("%.3g hours", h)
    }
}
