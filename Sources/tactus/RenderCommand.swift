import ArgumentParser
import Foundation
import TactusCore
import TactusOffline

struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Render a pattern against a transport script, offline, and print the event log.",
        discussion: """
            The transport script says what the host does (tempo, play, stop, locate, loop, \
            all-notes-off, pattern edits) at which frames: see docs/transport-script.md. \
            The log has one event a line: absolute frame, then the MIDI bytes in hex \
            (docs/event-log.md).
            """)

    @Option(name: .long, help: "Pattern text file.")
    var pattern: String

    @Option(name: .long, help: "Transport script file.")
    var transport: String

    @Option(name: .long, help: "Sample rate in frames per second (default: the script's 'rate', else 48000).")
    var rate: Double?

    @Option(name: .long, help: "Block sizes: N, a list like 64,256,1024, or random:MIN-MAX@SEED.")
    var blocks: String = "256"

    @Option(name: .shortAndLong, help: "Write the log to this file instead of standard output.")
    var output: String?

    @Flag(name: .long, help: "Add the bar:beat and a description to each event, as a comment.")
    var annotate = false

    @Option(name: .long, help: "Also write what was played as a Standard MIDI File, with the script's tempo map (docs/midi-files.md M20).")
    var smf: String?

    func run() throws {
        let plan: BlockPlan
        do { plan = try BlockPlan(parsing: blocks) } catch { throw ValidationError(error.description) }
        let scriptText = try TextFile.text(transport)
        let script: TransportScript
        do { script = try TransportScript(parsing: scriptText) } catch {
            throw CommandFailure("\(transport):\(error.line): \(error.reason)")
        }
        let sampleRate = rate ?? script.sampleRate ?? 48000
        guard sampleRate.isFinite, sampleRate > 0 else { throw ValidationError("--rate must be a positive number") }
        let (initial, text): (Pattern, [UInt8])
        switch PatternFile.load(pattern) {
        case .success(let loaded): (initial, text) = loaded
        case .failure(let error): throw CommandFailure(error.description)
        }

        var out = try OutputStream(path: output)
        out.write("# tactus event log: FRAME then MIDI bytes in hex")
        out.write("# pattern \(pattern), transport \(transport), rate \(formatNumber(sampleRate)), blocks \(plan)")
        var progress = ProgressLine()
        let total = script.endFrame
        var render = OfflineRender(script: script, sampleRate: sampleRate, blocks: plan)
        render.annotate = annotate
        let started = Date()
        var played: [LoggedEvent] = []
        let report = render.run(
            pattern: initial, patternText: text,
            loadPattern: { PatternFile.load(PatternFile.resolve($0, relativeTo: transport)) },
            onBlock: { events, rendered in
                if smf != nil { played += events }
                for e in events {
                    if annotate, let position = e.position {
                        let line = EventLog.line(e)
                        let pad = String(repeating: " ", count: max(1, 20 - line.count))
                        out.write("\(line)\(pad)# \(position.barBeatText)  \(e.summary)")
                    } else {
                        out.write(EventLog.line(e))
                    }
                }
                progress.update(
                    "rendering: \(formatSeconds(Double(rendered) / sampleRate)) of \(formatSeconds(Double(total) / sampleRate)) (\(rendered * 100 / max(total, 1))%)")
            })
        out.flush()
        out.close()
        progress.finish()
        if let smf {
            try AtomicFile.write(SessionMIDIFile.bytes(events: played, script: script, sampleRate: sampleRate, name: pattern), to: smf)
        }
        let elapsed = Date().timeIntervalSince(started)
        for failure in report.editFailures { printError("tactus render: \(failure)") }
        let s = report.statistics
        if s.droppedNoteOns > 0 || s.overfullBlocks > 0 {
            printError("tactus render: \(s.droppedNoteOns) note-ons dropped, \(s.overfullBlocks) blocks with a full output buffer")
        }
        if s.ignoredUpdates > 0 { printError("tactus render: \(s.ignoredUpdates) position updates ignored as invalid") }
        if progress.enabled {
            let seconds = Double(report.frames) / sampleRate
            printError("tactus render: \(report.events) events, \(report.blocks) blocks, \(formatSeconds(seconds)) of audio in \(formatSeconds(elapsed)) (\(Int(seconds / max(elapsed, 1e-9)))x realtime)")
        }
    }
}

func formatSeconds(_ s: Double) -> String {
    s >= 60 ? String(format: "%d:%05.2f", Int(s) / 60, s.truncatingRemainder(dividingBy: 60)) : String(format: "%.2f s", s)
}

func formatNumber(_ x: Double) -> String {
    x == x.rounded() ? String(Int64(x)) : String(x)
}
