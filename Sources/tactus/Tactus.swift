import ArgumentParser
import Foundation

@main
struct Tactus: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tactus",
        abstract: "Sample-accurate MIDI pattern sequencer: a JACK client, and offline tools for the Tactus core.",
        discussion: """
            Exit status, as diff(1) has it: 0 when the command did its work; 1 when \
            an input is bad, a write failed or (verify) the logs differ; 2 for a wrong \
            command line, and for verify when its inputs cannot be read or parsed.
            """,
        version: TactusVersion.text,
        subcommands: [RenderCommand.self, CheckCommand.self, VerifyCommand.self, JackSequencerCommand.self, JackTransportCommand.self, JackRecordCommand.self,
                      ImportCommand.self, ExportCommand.self, BounceCommand.self])

    /// Runs the subcommand. Unlike ArgumentParser's own `main`, an error a
    /// subcommand throws is shown with that subcommand's usage, not the
    /// top-level one, and a wrong command line exits 2 (not 64).
    static func main() {
        var command: ParsableCommand
        do { command = try parseAsRoot() } catch { exit(with: error, for: Tactus.self) }
        do { try command.run() } catch { exit(with: error, for: type(of: command)) }
    }

    static func exit(with error: Error, for command: ParsableCommand.Type) -> Never {
        let code = command.exitCode(for: error)
        let message = command.fullMessage(for: error)
        if code == .success {
            if !message.isEmpty { print(message) }
            Foundation.exit(0)
        }
        if !message.isEmpty { printError(message) }
        Foundation.exit(code == .validationFailure ? 2 : code.rawValue)
    }
}

/// The version `tactus --version` prints.
enum TactusVersion {
    static let text = "0.1.0"
}
