import ArgumentParser
import TactusCommandLine
import TactusJackSequencer

struct JackSequencerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jack",
        abstract: "Play a pattern as a JACK client, following JACK transport, and edit it live at a prompt.",
        discussion: """
            Ports: NAME:midi_out (the notes) and NAME:control (MIDI in: control \
            change 123 or 120 ends every sounding note). The pattern follows JACK \
            transport with the same timing contract as the plugin: bar, beat and tick \
            when a timebase master publishes them, frames at the last known tempo \
            otherwise. Commands are read from standard input, a terminal or a pipe \
            (type help); each edit takes effect at the start of the next JACK cycle. \
            The client quits at `quit`, at the end of input, or at Ctrl-C, sending \
            note-offs for whatever sounds. With NSM_URL set it joins a session \
            manager's session (NSM): it registers with JACK when the session opens, \
            under the name the session gives, keeps its pattern and settings in the \
            session's folder, and quits at SIGTERM, not at the end of input; run as \
            tactus-jack it is this command (docs/jack.md).
            """)

    @Option(help: "The pattern to start with (default: the one-bar default figure).") var pattern: String?
    @Option(help: "JACK client name.") var name: String = "tactus"
    @Option(help: "JACK server name (default: $JACK_DEFAULT_SERVER or the default server).") var server: String?
    @Flag(help: "Be the JACK timebase master (constant tempo and meter).") var master = false
    @Option(help: "Tempo as timebase master, and for `locate` when no master publishes one.") var bpm: Double = 120
    @Option(help: "Beats per bar as timebase master.") var beatsPerBar: Double = 4
    @Flag(help: "Start JACK transport rolling at launch.") var play = false
    @Option(help: "Connect NAME:midi_out to these input ports (comma-separated, e.g. fluidsynth:midi_00).") var connect: String = ""
    @Option(help: "Write the session journal (session.transport and its patterns) to this folder.") var journal: String?
    @Flag(help: "Count allocator and lock calls in the process callback (needs LD_PRELOAD=libTactusRTCheck.so).") var rtcheck = false
    @Flag(name: .shortAndLong, help: "Print only answers and errors.") var quiet = false

    func validate() throws {
        guard bpm > 0, bpm <= 10_000 else { throw ValidationError("--bpm must be a number of beats per minute above 0 (at most 10000), found \(formatNumber(bpm))") }
        guard beatsPerBar >= 1, beatsPerBar <= 1000 else { throw ValidationError("--beats-per-bar must be 1-1000, found \(formatNumber(beatsPerBar))") }
        guard !name.isEmpty, name.utf8.count <= 64, !name.contains(":") else { throw ValidationError("--name must be 1-64 characters without ':', found '\(name)'") }
        if let bad = connect.split(separator: ",", omittingEmptySubsequences: false).first(where: { !$0.isEmpty && !$0.contains(":") }) {
            throw ValidationError("--connect '\(bad)': a port is CLIENT:PORT, like fluidsynth:midi_00")
        }
    }

    func run() throws {
        var options = SequencerOptions()
        options.patternFile = pattern
        options.name = name
        options.server = server
        options.master = master
        options.beatsPerMinute = bpm
        options.beatsPerBar = beatsPerBar
        options.play = play
        options.connect = connect.split(separator: ",").map(String.init)
        options.journal = journal
        options.rtcheck = rtcheck
        options.quiet = quiet
        do { try SequencerSession.run(options) } catch { throw CommandFailure(error.description) }
    }
}
