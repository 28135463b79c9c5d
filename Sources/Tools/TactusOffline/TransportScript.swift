import TactusEngine
import TactusModel

/// A transport script: what a host does to its transport, at which frames,
/// and how it reports it to the plugin. The format is documented in
/// `docs/transport-script.md`.
///
/// The same script drives `tactus render`, the LV2 test host and the tests,
/// so that the core and the plugin can be compared input for input.
public struct TransportScript: Sendable {
    /// When the host sends `time:Position`.
    public enum SendPolicy: String, Sendable {
        /// At every change: start, stop, locate, tempo, loop wrap (jalv, Ardour).
        case onChange = "on-change"
        /// Also at the start of every block (Carla).
        case everyBlock = "every-block"
        /// Only at a block start, and only when the speed, bar, whole beat,
        /// meter or tempo differ from the last report (Qtractor): a change in
        /// mid-block is reported at the next block start.
        case onBeat = "on-beat"
    }

    /// Which position keys the host includes.
    public enum KeySet: String, Sendable {
        /// frame, speed, bar, barBeat, beatUnit, beatsPerBar, beatsPerMinute (Ardour, Carla, jalv with a timebase master).
        case bbt
        /// frame, speed, beat, beatsPerMinute.
        case beat
        /// frame and speed only (jalv on JACK with no timebase master).
        case frame
        /// Qtractor's: frame (Long, through a 32-bit float), speed, bar, `beat` the
        /// whole beat of the bar from 1 (from a tick count rounded to 960 a beat),
        /// `barBeat` the beat at which the bar starts, beatUnit, beatsPerBar, beatsPerMinute.
        case qtractor
        /// MusE's: frame (exact), speed, beatsPerMinute, beatsPerBar, `beat` (from the
        /// timeline's start), bar, barBeat, beatUnit; `beat` and `barBeat` cut down to
        /// `floor-ticks` ticks a beat (384 unless given), as MusE computes them.
        case muse
        /// Every key, exact, as the LV2 time vocabulary defines them (Element, JUCE
        /// hosts): bar (Long), barBeat (Float), `beat` (Double: the beat from the
        /// timeline's start), beatUnit, beatsPerBar, beatsPerMinute, frame (Long), speed.
        case all
    }

    /// One thing that happens at a frame.
    public enum Action: Equatable, Sendable {
        case tempo(Double)
        /// Beats per bar, and the beat unit when given (4 a quarter note, 8 an
        /// eighth: `meter 6 8`); without one the unit stays (4 at first).
        case meter(Double, unit: Int? = nil)
        case speed(Double)
        case locate(Double)
        case loop(start: Double, end: Double)
        case loopOff
        /// MIDI on the control input (CC 123 is `all-notes-off`).
        case midi([UInt8])
        /// A position sent verbatim, whatever the simulated host's state.
        case position(HostPosition)
        /// A pattern edit: the text of the pattern file at this path, sent as `patch:Set` of `urn:tactus:pattern`.
        case pattern(String)
        /// A pattern edit by file: this path, sent as `patch:Set` of `urn:tactus:patternFile`.
        case patternFile(String)
        /// A `patch:Get` of a property (`pattern`, `patternFile`, `error`, `droppedNoteOns`, `ignoredRequests`), or of all (nil).
        case get(String?)
        /// An open editor's edit: the editor makes its pattern the text of the file at
        /// this path and sends the plugin what changed (the LV2 test host's `--editor`).
        case editorEdit(String)
        /// `patch:Set` of `urn:tactus:laneMutes` (timing contract §7.6): bit i mutes lane i.
        case laneMutes(UInt64)
        /// MIDI thru on or off (timing contract §7.5: the plugin's `midi_thru`,
        /// `tactus jack`'s `thru`): input notes pass to the output from here.
        case thru(Bool)
        /// A request for the pattern of this name in the text playing, on
        /// this grid (the text's `switch` grid when nil): timing contract §9.2,
        /// `tactus jack`'s `play NAME [WHEN]`.
        case request(String, SwitchGrid?)
        /// The song on or off (§9.5: the plugin's `song`, `tactus jack`'s `song on|off`).
        case song(Bool)

        /// Whether the action changes the simulated host's transport.
        public var changesTransport: Bool {
            switch self {
            case .tempo, .meter, .speed, .locate, .loop, .loopOff: return true
            case .midi, .position, .pattern, .patternFile, .get, .laneMutes, .editorEdit, .thru, .request, .song: return false
            }
        }
    }

    public struct TimedAction: Equatable, Sendable {
        public var frame: Int64
        public var action: Action
        /// Line in the script (for error messages).
        public var line: Int
    }

    /// Sample rate given by the script (`rate`), if any.
    public var sampleRate: Double?
    public var sendPolicy: SendPolicy = .onChange
    public var keys: KeySet = .bbt
    /// Round `barBeat` to this many ticks per beat (Ardour: 1920).
    public var barBeatTicks: Int?
    /// The tick grid to which `keys muse` cuts its beats down (MusE's default: 384 a beat).
    public var floorTicks = 384
    /// Send positions as `atom:Blank` (Carla).
    public var asBlank = false
    /// Frames to render.
    public var endFrame: Int64 = 0
    /// The pattern the session starts with (a session description's `pattern FILE`), if named.
    public var initialPattern: String?
    /// The block sizes the session ran with (`blocks SPEC`), if named.
    public var blocks: BlockPlan?
    /// Frames by which a recorded log may differ from a replay (`tolerance FRAMES`), with the reason.
    public var tolerance: (frames: Int64, reason: String)?
    /// Actions in frame order (ties keep script order).
    public var actions: [TimedAction] = []

    public init() {}
}

/// A transport script that could not be read.
public struct TransportScriptError: Error, CustomStringConvertible, Equatable {
    public var line: Int
    public var reason: String
    public init(line: Int, reason: String) {
        self.line = line
        self.reason = reason
    }
    public var description: String { "transport script line \(line): \(reason)" }
}

extension TransportScript {
    /// Parses the script text (`docs/transport-script.md`).
    public init(parsing text: String) throws(TransportScriptError) {
        self.init()
        var sawHeader = false
        var sawEnd = false
        var lastFrame: Int64 = 0
        var lineNumber = 0
        // As pattern files: a UTF-8 byte-order mark is an editor's artefact. Lines
        // end at LF, CR LF, or a bare CR (old Mac editors), all alike.
        let text = text.hasPrefix("\u{FEFF}") ? String(text.dropFirst()) : text
        let isLineEnd: (Character) -> Bool = { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: isLineEnd) {
            lineNumber += 1
            let content = rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let words = content.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).map(String.init)
            guard let first = words.first else { continue }
            func fail(_ reason: String) -> TransportScriptError { TransportScriptError(line: lineNumber, reason: reason) }
            guard !sawEnd else { throw fail("nothing may follow the 'end' line") }
            if !sawHeader {
                guard words == ["tactus-transport", "1"] else { throw fail("the first statement must be 'tactus-transport 1'") }
                sawHeader = true
                continue
            }
            switch first {
            case "rate":
                guard words.count == 2, let r = Double(words[1]), r.isFinite, r > 0 else { throw fail("'rate' takes one positive number of frames per second") }
                sampleRate = r
            case "send":
                guard words.count == 2, let p = SendPolicy(rawValue: words[1]) else { throw fail("'send' takes 'on-change', 'every-block' or 'on-beat'") }
                sendPolicy = p
            case "keys":
                guard words.count == 2, let k = KeySet(rawValue: words[1]) else { throw fail("'keys' takes 'bbt', 'beat', 'frame', 'qtractor', 'muse' or 'all'") }
                keys = k
            case "floor-ticks":
                guard words.count == 2, let t = Int(words[1]), t > 0 else { throw fail("'floor-ticks' takes a positive number of ticks per beat") }
                floorTicks = t
            case "round-ticks":
                guard words.count == 2, let t = Int(words[1]), t > 0 else { throw fail("'round-ticks' takes a positive number of ticks per beat") }
                barBeatTicks = t
            case "atom":
                guard words.count == 2, words[1] == "object" || words[1] == "blank" else { throw fail("'atom' takes 'object' or 'blank'") }
                asBlank = words[1] == "blank"
            case "pattern":
                guard words.count == 2 else { throw fail("'pattern' as a setting takes one file: the pattern the session starts with") }
                initialPattern = words[1]
            case "blocks":
                guard words.count == 2, let plan = try? BlockPlan(parsing: words[1]) else { throw fail("'blocks' takes a block plan: N, a list like 64,256, or random:MIN-MAX@SEED") }
                blocks = plan
            case "tolerance":
                guard words.count >= 2, let n = Int64(words[1]), n >= 0 else { throw fail("'tolerance' takes a number of frames, then the reason") }
                tolerance = (n, words.dropFirst(2).joined(separator: " "))
            default:
                guard let frame = Int64(first), frame >= 0 else {
                    throw fail("expected a setting (rate, send, keys, round-ticks, floor-ticks, atom, pattern, blocks, tolerance) or a frame number, found '\(quotedScriptText(first))'")
                }
                guard frame >= lastFrame else { throw fail("frame \(frame) is before the previous action's frame \(lastFrame)") }
                lastFrame = frame
                guard words.count >= 2 else { throw fail("frame \(frame) has no action") }
                let args = Array(words.dropFirst(2))
                let action: Action
                switch words[1] {
                case "end":
                    guard args.isEmpty else { throw fail("'end' takes no arguments") }
                    guard frame > 0, actions.last.map({ $0.frame < frame }) ?? true else {
                        throw fail("'end' must come after the last action: the render stops before frame \(frame)")
                    }
                    endFrame = frame
                    sawEnd = true
                    continue
                case "tempo":
                    guard args.count == 1, let t = Double(args[0]), t >= 0.001, t <= 100_000 else { throw fail("'tempo' takes one number of beats per minute from 0.001 to 100000") }
                    action = .tempo(t)
                case "meter":
                    guard args.count == 1 || args.count == 2, let m = Double(args[0]), m > 0, m <= 1_000_000 else {
                        throw fail("'meter' takes a number of beats per bar above 0, up to 1000000, and optionally a beat unit (meter 6 8)")
                    }
                    var unit: Int? = nil
                    if args.count == 2 {
                        guard let u = Int(args[1]), u >= 1, u <= 256 else { throw fail("'meter' takes a beat unit that is a whole number from 1 to 256 (4 a quarter note, 8 an eighth), found '\(args[1])'") }
                        unit = u
                    }
                    action = .meter(m, unit: unit)
                case "speed":
                    guard args.count == 1, let s = Double(args[0]), s >= 0, s <= 100_000 else { throw fail("'speed' takes one number from 0 to 100000") }
                    action = .speed(s)
                case "play":
                    guard args.isEmpty else { throw fail("'play' takes no arguments") }
                    action = .speed(1)
                case "stop":
                    guard args.isEmpty else { throw fail("'stop' takes no arguments") }
                    action = .speed(0)
                case "locate":
                    guard args.count == 1, let b = TransportScript.beats(args[0]) else { throw fail("'locate' takes a beat position (a number or a fraction like 7/3) within ±2^40") }
                    action = .locate(b)
                case "loop":
                    if args == ["off"] { action = .loopOff; break }
                    guard args.count == 2, let a = TransportScript.beats(args[0]), let b = TransportScript.beats(args[1]), b > a else {
                        throw fail("'loop' takes START END in beats (within ±2^40) with END > START, or 'off'")
                    }
                    action = .loop(start: a, end: b)
                case "all-notes-off":
                    guard args.isEmpty else { throw fail("'all-notes-off' takes no arguments") }
                    action = .midi([0xB0, 123, 0])
                case "cc":
                    guard (1...3).contains(args.count), let n = UInt8(args[0]), n < 128 else { throw fail("'cc' takes NUMBER [VALUE [CHANNEL]]") }
                    let value = args.count > 1 ? UInt8(args[1]) : 0
                    let channel = args.count > 2 ? UInt8(args[2]) : 1
                    guard let value, value < 128, let channel, (1...16).contains(channel) else { throw fail("'cc' value must be 0-127 and channel 1-16") }
                    action = .midi([0xB0 | (channel - 1), n, value])
                case "midi":
                    let bytes = args.compactMap { UInt8($0, radix: 16) }
                    guard !args.isEmpty, bytes.count == args.count else { throw fail("'midi' takes bytes in hex, like 'midi 90 3c 64'") }
                    action = .midi(bytes)
                case "position":
                    action = .position(try TransportScript.position(args, line: lineNumber))
                case "pattern":
                    guard args.count == 1 else { throw fail("'pattern' takes one file path") }
                    action = .pattern(args[0])
                case "pattern-file":
                    guard args.count == 1 else { throw fail("'pattern-file' takes one file path") }
                    action = .patternFile(args[0])
                case "edit":
                    guard args.count == 1 else { throw fail("'edit' takes one file path") }
                    action = .editorEdit(args[0])
                case "thru":
                    guard args.count == 1, args[0] == "on" || args[0] == "off" else { throw fail("'thru' takes on or off") }
                    action = .thru(args[0] == "on")
                case "song":
                    guard args.count == 1, args[0] == "on" || args[0] == "off" else { throw fail("'song' takes on or off") }
                    action = .song(args[0] == "on")
                case "request":
                    guard let name = args.first else { throw fail("'request' takes a pattern name, then when: \(SwitchGrid.choicesText)") }
                    var grid: SwitchGrid? = nil
                    if args.count > 1 {
                        guard let g = SwitchGrid(words: args[1...]) else {
                            throw fail("'request \(name)': when is \(SwitchGrid.choicesText), not '\(args[1...].joined(separator: " "))'")
                        }
                        grid = g
                    }
                    action = .request(name, grid)
                case "mute":
                    // `mute 0 2` mutes the first and third lanes; `mute` alone unmutes every lane.
                    var bits: UInt64 = 0
                    for a in args {
                        guard let i = Int(a), (0..<64).contains(i) else { throw fail("'mute' takes lane indices 0-63 (none: unmute every lane)") }
                        bits |= 1 << UInt64(i)
                    }
                    action = .laneMutes(bits)
                case "get":
                    guard args.count <= 1, args.allSatisfy({ ["pattern", "patternFile", "error", "droppedNoteOns", "ignoredRequests"].contains($0) }) else {
                        throw fail("'get' takes nothing, or one of pattern, patternFile, error, droppedNoteOns, ignoredRequests")
                    }
                    action = .get(args.first)
                default:
                    throw fail("unknown action '\(quotedScriptText(words[1]))'")
                }
                actions.append(TimedAction(frame: frame, action: action, line: lineNumber))
            }
        }
        guard sawHeader else { throw TransportScriptError(line: max(lineNumber, 1), reason: "the first statement must be 'tactus-transport 1'") }
        // A final line feed ends the last line; it does not start another.
        let lastLine = text.last.map(isLineEnd) == true ? lineNumber - 1 : lineNumber
        guard sawEnd else { throw TransportScriptError(line: lastLine + 1, reason: "the script has no 'FRAME end' line saying how long to render") }
    }

    /// A beat value: a decimal number or a fraction `N/D`.
    static func beats(_ text: String) -> Double? {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        let limit = 1_099_511_627_776.0  // 2^40: the simulated host keeps its frames in Int64
        if parts.count == 2, let n = Double(parts[0]), let d = Double(parts[1]), d != 0, (n / d).magnitude <= limit { return n / d }
        guard parts.count == 1, let v = Double(text), v.magnitude <= limit else { return nil }
        return v
    }

    /// `key=value[:type]` fields of a raw position.
    static func position(_ args: [String], line: Int) throws(TransportScriptError) -> HostPosition {
        var fields: [(key: PositionKey, value: WireValue)] = []
        var blank = false
        for arg in args {
            if arg == "blank" { blank = true; continue }
            let kv = arg.split(separator: "=", maxSplits: 1).map(String.init)
            guard kv.count == 2, let key = PositionKey(rawValue: kv[0]) else {
                throw TransportScriptError(line: line, reason: "'position' takes key=value pairs with keys \(PositionKey.allCases.map(\.rawValue).joined(separator: ", ")); found '\(quotedScriptText(arg))'")
            }
            let typed = kv[1].split(separator: ":", maxSplits: 1).map(String.init)
            let text = typed[0]
            let value: WireValue
            if typed.count == 2 {
                switch typed[1] {
                case "s": value = .string(text)
                case "i": guard let v = Int32(text) else { throw TransportScriptError(line: line, reason: "'\(quotedScriptText(text))' is not a 32-bit integer") }; value = .int(v)
                case "l": guard let v = Int64(text) else { throw TransportScriptError(line: line, reason: "'\(quotedScriptText(text))' is not a 64-bit integer") }; value = .long(v)
                case "f": guard let v = Float(text) else { throw TransportScriptError(line: line, reason: "'\(quotedScriptText(text))' is not a number") }; value = .float(v)
                case "d": guard let v = Double(text) else { throw TransportScriptError(line: line, reason: "'\(quotedScriptText(text))' is not a number") }; value = .double(v)
                default: throw TransportScriptError(line: line, reason: "unknown type ':\(quotedScriptText(typed[1]))' (use :i :l :f :d or :s)")
                }
            } else {
                guard let v = Double(text) else { throw TransportScriptError(line: line, reason: "'\(quotedScriptText(text))' is not a number (add ':s' to send a string)") }
                switch key {
                case .frame, .bar:
                    guard v.isFinite, v == v.rounded(), v.magnitude < 9.2e18 else { value = .double(v); break }
                    value = .long(Int64(v))
                case .beatUnit:
                    guard v.isFinite, v == v.rounded(), v.magnitude < 2e9 else { value = .double(v); break }
                    value = .int(Int32(v))
                default:
                    value = key.usualValue(v)
                }
            }
            fields.append((key, value))
        }
        return HostPosition(fields: fields, asBlank: blank)
    }
}

/// Text from a script as a message quotes it (control characters as `\xNN`, as every message does).
private func quotedScriptText(_ text: String) -> String { QuotedText.quoted(Array(text.utf8)) }
