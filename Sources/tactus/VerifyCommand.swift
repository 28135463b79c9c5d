import ArgumentParser
import Foundation
import TactusCore
import TactusOffline

struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Replay a recorded session through the core and compare with its recorded event log.",
        discussion: """
            SESSION is a transport script that describes the session (docs/transport-script.md): \
            its rate, the positions the host sent, and as settings the pattern it started with \
            ('pattern FILE'), its blocks ('blocks 256') and any rounding the host is known to \
            add ('tolerance FRAMES REASON'). Exits 0 when every event agrees, 1 at the first \
            difference, which is reported with its frame, bar:beat and bytes.
            """)

    @Argument(help: "Session description (a transport script).") var session: String
    @Argument(help: "Recorded event log.") var log: String
    @Option(help: "Frames by which events may differ (default: the session's 'tolerance', else 0).") var tolerance: Int64?
    @Option(help: "Pattern file (default: the session's 'pattern' setting).") var pattern: String?

    func run() throws {
        let scriptText = try TextFile.text(session)
        let script: TransportScript
        do { script = try TransportScript(parsing: scriptText) } catch { throw CommandFailure("\(session):\(error.line): \(error.reason)") }
        let logText = try TextFile.text(log)
        let recorded: [LoggedEvent]
        do { recorded = try EventLog.parse(logText) } catch { throw CommandFailure("\(log): \(error.description)") }
        guard let patternPath = pattern ?? script.initialPattern.map({ PatternFile.resolve($0, relativeTo: session) }) else {
            throw ValidationError("no pattern: give --pattern, or a 'pattern FILE' setting in the session")
        }
        let initial: (Pattern, [UInt8])
        switch PatternFile.load(patternPath) {
        case .success(let loaded): initial = loaded
        case .failure(let error): throw CommandFailure(error.description)
        }
        var render = OfflineRender(script: script, sampleRate: script.sampleRate ?? 48000, blocks: script.blocks ?? .fixed(256))
        render.annotate = true
        var expected: [LoggedEvent] = []
        _ = render.run(
            pattern: initial.0, patternText: initial.1,
            loadPattern: { PatternFile.load(PatternFile.resolve($0, relativeTo: session)) },
            onBlock: { events, _ in expected += events })
        let allowed = tolerance ?? script.tolerance?.frames ?? 0
        let comparison = LogComparison(expected: expected, recorded: recorded, tolerance: allowed)
        if let first = comparison.differences.first {
            print("tactus verify: \(comparison.differences.count) of \(max(expected.count, recorded.count)) events disagree; the first:")
            print("  \(first)")
            throw ExitCode(1)
        }
        if comparison.exact == comparison.pairs {
            print("tactus verify: all \(comparison.pairs) events recorded are at the frames the core computes")
        } else {
            let reason = script.tolerance.map { ": \($0.reason)" } ?? ""
            print("tactus verify: all \(comparison.pairs) events agree, \(comparison.exact) exactly, the others within \(comparison.largestDeviation) frames (tolerance \(allowed)\(reason))")
        }
    }
}
