import TactusEngine
import TactusModel

/// The plugin's `pattern` and `song` controls at `tactus jack`'s prompt
/// (timing contract §9): `play NAME [WHEN]` requests a pattern of the text
/// by name, on the grid WHEN or the text's `switch` grid; `song on|off`;
/// `patterns` lists them with the one playing and the one queued. The
/// prompt hands each request to the process callback (`SessionFlags`), which
/// gives it to the core at the start of its next cycle, as the plugin reads
/// its controls at a block start.
///
/// Prompt thread only (not realtime); each command is O(patterns).
public struct PatternControls {
    /// The song plays (§9.5); on by default, as the plugin's `song`.
    public var song = true
    /// Numbers the requests, so that the same request twice reaches the callback twice.
    private var sequence: UInt32 = 0

    public init() {}

    public static let help = """
        play NAME [WHEN]              switch to pattern NAME (version 3), at WHEN: now, beat, bar, bars N
                                      or end (default: the text's switch line; at the next bar without one)
        song on|off                   play the text's song (on by default); off: play switches patterns
        patterns                      the patterns, with the one playing and the one queued
        """

    /// What the text offers: its patterns' names (text order) and whether it has a song.
    public struct Text {
        public var names: [String]
        public var hasSong: Bool
        public init(names: [String], hasSong: Bool) {
            self.names = names
            self.hasSong = hasSong
        }
    }

    /// The core's state as the callback last published it (1-based, 0: none).
    public struct Playing {
        public var playing: Int
        public var queued: Int
        public init(playing: Int, queued: Int) {
            self.playing = playing
            self.queued = queued
        }
    }

    /// Runs `play NAME [WHEN]`, `song` or `patterns` (`words` as split by the
    /// prompt): the answer or an error, with the request to hand over; nil
    /// when the command is none of these (`play` alone is the transport's).
    public mutating func run(_ words: [String], text: Text, now: Playing) -> (PatternEditor.Outcome, PatternRequest?)? {
        guard let command = words.first else { return nil }
        let args = Array(words.dropFirst())
        switch command {
        case "play" where !args.isEmpty:
            let name = args[0]
            guard let index = text.names.firstIndex(of: name) else {
                let known = text.names.map { "'\($0)'" }.joined(separator: ", ")
                return (.error("play: no pattern '\(name)': the patterns are \(known)"), nil)
            }
            var grid: SwitchGrid? = nil
            if args.count > 1 {
                guard let g = SwitchGrid(words: args[1...]) else {
                    return (.error("play \(name): when is \(SwitchGrid.choicesText), not '\(args[1...].joined(separator: " "))'"), nil)
                }
                grid = g
            }
            if song && text.hasSong {
                return (.error("play: the song is playing and decides the pattern; 'song off' first"), nil)
            }
            sequence &+= 1
            let request = PatternRequest(sequence: sequence, number: index + 1, grid: grid?.engineGrid)
            return (.answer("requested \(name)" + (grid.map { " at \($0.text)" } ?? "")), request)
        case "song":
            guard args.count == 1, args[0] == "on" || args[0] == "off" else { return (.error("song: takes on or off"), nil) }
            song = args[0] == "on"
            if !text.hasSong { return (.answer("song \(args[0]) (this text has no song)"), nil) }
            return (.answer(song ? "song on: the song decides the pattern" : "song off: play NAME switches patterns"), nil)
        case "patterns":
            guard args.isEmpty else { return (.error("patterns: takes nothing"), nil) }
            return (.answer(patternsText(text, now: now)), nil)
        default:
            return nil
        }
    }

    /// `intro, verse (playing), chorus (queued); song off`.
    public func patternsText(_ text: Text, now: Playing) -> String {
        let list = text.names.enumerated().map { i, name -> String in
            if i + 1 == now.playing { return name + " (playing)" }
            if i + 1 == now.queued { return name + " (queued)" }
            return name
        }
        let songText = text.hasSong ? (song ? "song on" : "song off") : "no song"
        return list.joined(separator: ", ") + "; " + songText
    }
}
