/// What `tactus jack` keeps in a session besides the pattern: tempo as
/// timebase master, the connections it was asked to make, the lane mutes
/// and MIDI thru. Written as
/// `session.settings` in the session's folder (docs/jack.md, "In a session
/// manager"): a first line `tactus-jack-settings 1`, then one `KEY VALUE`
/// line a setting, `#` comments and blank lines allowed:
///
///     tactus-jack-settings 1
///     master on
///     bpm 133.7
///     beats-per-bar 4
///     connect fluidsynth:midi_00
///     mute 2 3
///     thru on
///
/// A key this version does not know (one a newer Tactus writes) is skipped
/// with a warning, so that the format can take more keys later; a known key
/// with a bad value refuses the whole file, naming the line.
///
/// Value type, any thread; parsing and writing are O(text length).
public struct SessionSettings: Equatable, Sendable {
    /// Be the JACK timebase master (`--master`).
    public var master = false
    public var beatsPerMinute = 120.0
    public var beatsPerBar = 4.0
    /// Input ports `midi_out` is connected to at open (`--connect`).
    public var connect: [String] = []
    /// Bit `i` mutes lane `i` (text order), as `mute` at the prompt and the plugin's mute1-mute8; written as lane numbers from 1.
    public var laneMutes: UInt64 = 0
    /// MIDI thru from the control input (`thru on`).
    public var thru = false

    public init() {}

    public static let header = "tactus-jack-settings 1"

    /// The file's text.
    public var text: String {
        var lines = [
            "# tactus jack's settings in a session (docs/jack.md, \"In a session manager\")",
            SessionSettings.header,
            "master \(master ? "on" : "off")",
            "bpm \(SessionSettings.number(beatsPerMinute))",
            "beats-per-bar \(SessionSettings.number(beatsPerBar))",
        ]
        lines += connect.map { "connect \($0)" }
        let muted = (0..<64).filter { laneMutes & (UInt64(1) << UInt64($0)) != 0 }
        if !muted.isEmpty { lines.append("mute " + muted.map { String($0 + 1) }.joined(separator: " ")) }
        lines.append("thru \(thru ? "on" : "off")")
        return lines.joined(separator: "\n") + "\n"
    }

    /// Reads a settings file; `warnings` gets the lines skipped (unknown keys).
    public init(parsing text: String, warnings: inout [String]) throws(NSMError) {
        var sawHeader = false
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = index + 1
            let content = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let words = content.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).map(String.init)
            guard let key = words.first else { continue }
            if !sawHeader {
                guard words == ["tactus-jack-settings", "1"] else {
                    throw NSMError("line \(line): expected '\(SessionSettings.header)' first, found '\(content)'")
                }
                sawHeader = true
                continue
            }
            let value = words.dropFirst().joined(separator: " ")
            func bad(_ want: String) -> NSMError { NSMError("line \(line): \(key) takes \(want), found '\(value)'") }
            switch key {
            case "master":
                guard value == "on" || value == "off" else { throw bad("on or off") }
                master = value == "on"
            case "bpm":
                guard let bpm = Double(value), bpm > 0, bpm <= 10_000 else { throw bad("beats per minute above 0 (at most 10000)") }
                beatsPerMinute = bpm
            case "beats-per-bar":
                guard let beats = Double(value), beats >= 1, beats <= 1000 else { throw bad("1-1000") }
                beatsPerBar = beats
            case "connect":
                guard words.count == 2, words[1].contains(":") else { throw bad("one port CLIENT:PORT, like fluidsynth:midi_00") }
                connect.append(words[1])
            case "mute":
                for word in words.dropFirst() {
                    guard let lane = Int(word), (1...64).contains(lane) else { throw bad("lane numbers 1-64") }
                    laneMutes |= UInt64(1) << UInt64(lane - 1)
                }
            case "thru":
                guard value == "on" || value == "off" else { throw bad("on or off") }
                thru = value == "on"
            default:
                warnings.append("line \(line): the key '\(key)' is not known to this version of tactus; skipped")
            }
        }
        guard sawHeader else { throw NSMError("the file is empty (expected '\(SessionSettings.header)')") }
    }

    /// `120`, `133.7`.
    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
