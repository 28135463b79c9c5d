import ArgumentParser
import Glibc
import TactusCommandLine

@main
struct Tactus: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tactus",
        abstract: "Sample-accurate MIDI pattern sequencer: a JACK client, and offline tools for the Tactus core.",
        discussion: """
            Exit status, as diff(1) has it: 0 when the command did its work; 1 when \
            an input is bad, a write failed or (verify) the logs differ; 2 for a wrong \
            command line (an unknown option or a bad option value: the message names \
            the option, then the subcommand's usage), and for verify when its inputs \
            cannot be read or parsed. Every error starts with 'Error: '.
            """,
        version: TactusVersion.text,
        subcommands: [RenderCommand.self, CheckCommand.self, VerifyCommand.self, JackSequencerCommand.self, JackTransportCommand.self, JackRecordCommand.self,
                      ImportCommand.self, ExportCommand.self, BounceCommand.self])

    /// Runs the subcommand. Unlike ArgumentParser's own `main`, a wrong
    /// command line exits 2 (not 64), and every error a subcommand reports
    /// reads the same way: `Error: ...` on standard error; for a wrong
    /// command line (an unknown option, a bad option value, whether found
    /// while parsing or by `run`), followed by that subcommand's usage
    /// (`Usage: tactus export ...`).
    static func main() {
        var command: ParsableCommand
        // Run as `tactus-jack` (the link make install puts beside it), it is
        // `tactus jack`: a session manager starts a client by its executable's
        // name alone, with no arguments (docs/jack.md, "In a session manager").
        let invokedAs = CommandLine.arguments.first?.split(separator: "/").last
        let arguments = invokedAs == "tactus-jack" ? ["jack"] + CommandLine.arguments.dropFirst() : Array(CommandLine.arguments.dropFirst())
        do { command = try parseAsRoot(arguments) } catch { exit(with: error) }
        do { try command.run() } catch { exit(with: error, from: type(of: command)) }
    }

    /// An error from parsing (ArgumentParser knows the subcommand it was parsing).
    static func exit(with error: Error) -> Never {
        let code = exitCode(for: error)
        let message = fullMessage(for: error)
        if code == .success {
            if !message.isEmpty { print(message) }
            Glibc.exit(0)
        }
        if !message.isEmpty { printError(message) }
        Glibc.exit(code == .validationFailure ? 2 : code.rawValue)
    }

    /// An error from `run`: a wrong command line (exit 2, with the
    /// subcommand's usage), a failure (`CommandFailure`: exit 1), or an exit
    /// status the subcommand chose (its messages already printed).
    static func exit(with error: Error, from subcommand: ParsableCommand.Type) -> Never {
        switch error {
        case let exit as ExitCode:
            Glibc.exit(exit.rawValue)
        case let failure as CommandFailure:
            printError("Error: \(failure.description)")
            Glibc.exit(1)
        case let wrong as ValidationError:
            printError(usageMessage(wrong.message, for: subcommand))
            Glibc.exit(2)
        default:
            exit(with: error)
        }
    }

    /// `Error: MESSAGE`, the subcommand's usage and where its help is, as
    /// ArgumentParser shows them for an error found while parsing.
    static func usageMessage(_ message: String, for subcommand: ParsableCommand.Type) -> String {
        let name = subcommand == Tactus.self ? "tactus" : "tactus \(subcommand._commandName)"
        return "Error: \(message)\nUsage: \(usageString(for: subcommand))\n  See '\(name) --help' for more information."
    }
}

/// The version `tactus --version` prints.
enum TactusVersion {
    static let text = "0.1.0"
}
