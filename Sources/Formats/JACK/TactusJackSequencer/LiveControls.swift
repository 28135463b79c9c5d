import TactusModel

/// The plugin's live controls at `tactus jack`'s prompt: lane mutes (timing
/// contract §7.6, the plugin's `mute1`...`mute8` and `urn:tactus:laneMutes`)
/// and MIDI thru (§7.5, the plugin's `midi_thru`), with the commands that set
/// them. What the process callback plays by: the prompt hands each change to
/// it (`SessionFlags`), which applies it at the start of its next cycle.
///
/// Settings of the session, not of the pattern: an edit, a `load` or a
/// pattern with other lanes keeps them, lane `i` (in text order) muted by bit
/// `i`, as in the plugin. Prompt thread only (not realtime); each command is
/// O(lanes).
public struct LiveControls: Equatable, Sendable {
    /// Bit `i` mutes lane `i` (text order, bit 0 the first lane).
    public var laneMutes: UInt64 = 0
    /// Input notes (on the `control` port) are passed to `midi_out` too. Off by default.
    public var thru = false

    public init() {}

    public static let help = """
        mute LANE... | unmute LANE... mute lanes (by name, or by number from 1 as the plugin's mute1-mute8;
                                      'all'); their sounding notes finish. unmute alone: every lane
        thru on|off                   pass the notes played on the control input to midi_out (off by default)
        status                        transport, lane mutes, MIDI thru, patterns and the ports
        """

    /// Runs `mute`, `unmute` or `thru` (`words` as split by the prompt) on a
    /// pattern with lanes named `lanes` (text order): the answer, an error, or
    /// nil when the command is none of these.
    public mutating func run(_ words: [String], lanes: [String]) -> PatternEditor.Outcome? {
        guard let command = words.first else { return nil }
        let args = Array(words.dropFirst())
        switch command {
        case "mute", "unmute":
            let muting = command == "mute"
            if args.isEmpty && muting { return .error("mute: takes lane names or numbers (see lanes), or all") }
            var bits: UInt64 = 0
            if args.isEmpty || args == ["all"] {
                bits = lanes.count >= 64 ? UInt64.max : (UInt64(1) << UInt64(lanes.count)) &- 1
                if !muting { bits = UInt64.max }  // unmute every lane, those of an earlier pattern too
            } else {
                for a in args {
                    guard let i = LiveControls.lane(a, in: lanes) else {
                        let names = lanes.map { "'\($0)'" }.joined(separator: ", ")
                        return .error("\(command): no lane '\(a)': the lanes are \(names), numbered 1-\(lanes.count)")
                    }
                    bits |= UInt64(1) << UInt64(i)
                }
            }
            laneMutes = muting ? laneMutes | bits : laneMutes & ~bits
            return .answer(mutesText(lanes: lanes))
        case "thru":
            guard args.count == 1, args[0] == "on" || args[0] == "off" else { return .error("thru: takes on or off") }
            thru = args[0] == "on"
            return .answer("MIDI thru \(thru ? "on: notes played on the control input go to midi_out too" : "off")")
        default:
            return nil
        }
    }

    /// The lane `word` names: a lane's name first, else its number from 1.
    static func lane(_ word: String, in lanes: [String]) -> Int? {
        if let i = lanes.firstIndex(of: word) { return i }
        if let n = Int(word), n >= 1, n <= lanes.count { return n - 1 }
        return nil
    }

    /// `muted: kick (1), hats (2)`, or `no lane muted`.
    public func mutesText(lanes: [String]) -> String {
        let muted = lanes.indices.filter { $0 < 64 && laneMutes & (UInt64(1) << UInt64($0)) != 0 }
        if muted.isEmpty { return "no lane muted" }
        return "muted: " + muted.map { "\(lanes[$0]) (\($0 + 1))" }.joined(separator: ", ")
    }

    /// The lane names of `pattern`, in text order (a version-1 pattern is one lane, `main`).
    public static func laneNames(_ pattern: Pattern) -> [String] {
        pattern.lanes.map { String(decoding: $0.name, as: UTF8.self) }
    }
}
