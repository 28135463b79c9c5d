import ArgumentParser

@main
struct Tactus: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tactus",
        abstract: "Sample-accurate MIDI pattern sequencer: a JACK client, and offline tools for the Tactus core.",
        subcommands: [RenderCommand.self, CheckCommand.self, VerifyCommand.self, JackSequencerCommand.self, JackTransportCommand.self, JackRecordCommand.self,
                      ImportCommand.self, ExportCommand.self])
}
