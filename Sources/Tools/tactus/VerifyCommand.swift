import ArgumentParser
import TactusCommandLine
import TactusEngine
import TactusModel
import TactusOffline

struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Replay a recorded session through the core and compare with its recorded event log.",
        discussion: """
            SESSION is a transport script that describes the session (docs/transport-script.md): \
            its rate, the positions the host sent, and as settings the pattern it started with \
            ('pattern FILE'), its blocks ('blocks 256') and any rounding the host is known to \
            add ('tolerance FRAMES REASON'). Exit status, as diff(1) has it: 0 when every event \
            agrees; 1 when the logs differ (the first difference is reported with its frame, \
            bar:beat and bytes); 2 when an input cannot be read or parsed, or for a wrong \
            command line.
            """)

    @Argument(help: "Session description (a transport script).") var session: String
    @Argument(help: "Recorded event log.") var log: String
    @Option(help: "Frames by which events may differ (default: the session's 'tolerance', else 0).") var tolerance: Int64?
    @Option(help: "Pattern file (default: the session's 'pattern' setting).") var pattern: String?
    @Flag(name: .long, help: "Replay with MIDI clock (timing contract §12), for a recording of tactus jack's clock_out, or of the plugin with its 'clock' toggle on, beside its notes.")
    var clock = false

    func validate() throws {
        if let tolerance, tolerance < 0 { throw ValidationError("--tolerance must be 0 or more frames") }
        if session == "-" && log == "-" { throw ValidationError("only one of SESSION and LOG can be standard input") }
    }

    func run() throws {
        do { try compare() } catch let failure as CommandFailure {
            // Trouble, not a difference: diff(1)'s status 2.
            printError("Error: \(failure.description)")
            throw ExitCode(2)
        }
    }

    private func compare() throws {
        let scriptText = try TextFile.text(session)
        let script: TransportScript
        do { script = try TransportScript(parsing: scriptText) } catch { throw CommandFailure("\(displayPath(session)):\(error.line): \(error.reason)") }
        let logText = try TextFile.text(log)
        let recorded: [LoggedEvent]
        do { recorded = try EventLog.parse(logText) } catch { throw CommandFailure("\(displayPath(log)): \(error.description)") }
        guard let patternPath = pattern ?? script.initialPattern.map({ PatternFile.resolve($0, relativeTo: session) }) else {
            throw CommandFailure("\(displayPath(session)): the session names no pattern ('pattern FILE'); give one with --pattern FILE")
        }
        let initial: (Pattern, [UInt8])
        switch PatternFile.load(patternPath) {
        case .success(let loaded): initial = loaded
        case .failure(let error): throw CommandFailure(error.description)
        }
        let sampleRate = script.sampleRate ?? 48000
        if let refusal = RenderBounds(hours: RenderBounds.defaultHours, events: RenderBounds.defaultEvents)
            .refusal(endFrame: script.endFrame, sampleRate: sampleRate, option: nil) {
            throw CommandFailure("\(displayPath(session)): \(refusal)")
        }
        var render = OfflineRender(script: script, sampleRate: sampleRate, blocks: script.blocks ?? .fixed(256))
        render.annotate = true
        render.midiClock = clock
        var expected: [LoggedEvent] = []
        _ = render.run(
            pattern: initial.0, patternText: initial.1,
            loadPattern: { PatternFile.load(PatternFile.resolve($0, relativeTo: session)) },
            onBlock: { events, _ in expected += events })
        let allowed = tolerance ?? script.tolerance?.frames ?? 0
        let comparison = LogComparison(expected: expected, recorded: recorded, tolerance: allowed)
        if let first = comparison.differences.first {
            let missing = expected.count - comparison.pairs
            let extra = recorded.count - comparison.pairs
            print("tactus verify: the logs differ: \(missing) of \(counted(expected.count, "expected event")) not recorded, \(extra) of \(counted(recorded.count, "recorded event")) not expected; the first difference:")
            print("  \(first)")
            throw ExitCode(1)
        }
        if comparison.exact == comparison.pairs {
            print("tactus verify: \(comparison.pairs == 1 ? "the 1 event" : "all \(comparison.pairs) events") recorded \(comparison.pairs == 1 ? "is" : "are") at the frames the core computes")
        } else {
            let reason = script.tolerance.map { ": \($0.reason)" } ?? ""
            print("tactus verify: all \(comparison.pairs) events agree, \(comparison.exact) exactly, the others within \(counted(Int(comparison.largestDeviation), "frame")) (tolerance \(allowed)\(reason))")
        }
    }
}
