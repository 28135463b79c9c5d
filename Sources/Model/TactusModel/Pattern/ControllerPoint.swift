import TactusEngine

/// What a controller point drives (pattern format 3, contract §10): a
/// control change `cc N` (0-119), the pitch bend, the channel pressure or
/// the program.
public enum ControllerKind: Equatable, Sendable {
    case control(UInt8)
    case bend
    case pressure
    case program

    /// The statement's word: `cc`, `bend`, `pressure`, `program`.
    public var word: String {
        switch self {
        case .control: return "cc"
        case .bend: return "bend"
        case .pressure: return "pressure"
        case .program: return "program"
        }
    }

    /// The values it takes: -8192...8191 for a bend, 0...127 otherwise.
    public var valueRange: ClosedRange<Int16> {
        self == .bend ? -8192...8191 : 0...127
    }

    /// How people name it in messages: `cc 74`, `bend`, ...
    public var name: String {
        if case .control(let n) = self { return "cc \(n)" }
        return word
    }

    /// An order of the kinds (controllers by number, then bend, pressure,
    /// program), for sorting points.
    public var order: Int {
        switch self {
        case .control(let n): return Int(n)
        case .bend: return 128
        case .pressure: return 129
        case .program: return 130
        }
    }
}

/// One controller point of a lane (`cc N AT VALUE [CHANNEL] [ramp]`,
/// `bend`, `pressure`, `program`): a value the controller takes at a beat
/// of the lane, or glides to from the previous point when `ramp` (§10.1,
/// §10.2). Beats are exact.
public struct ControllerPoint: Equatable, Sendable {
    /// Beats from the start of its lane's loop, `0 <= start <` the lane's length.
    public var start: BeatRational
    public var kind: ControllerKind
    /// 0-127; a pitch bend's -8192 to 8191 (0 the centre).
    public var value: Int16
    /// MIDI channel as people count it, 1-16 (the lane's when the text names none).
    public var channel: UInt8
    /// Whether the value glides to this point from the previous one (never for a program).
    public var ramp: Bool
    /// Index of its lane in `Pattern.lanes`.
    public var lane: Int

    public init(start: BeatRational, kind: ControllerKind, value: Int16, channel: UInt8 = 1, ramp: Bool = false, lane: Int = 0) {
        self.start = start
        self.kind = kind
        self.value = value
        self.channel = channel
        self.ramp = ramp
        self.lane = lane
    }

    /// Why the point breaks the format's rules on its own (its range, a
    /// program with `ramp`), or nil.
    public var problem: PatternError.Reason? {
        if case .control(let n) = kind, n > 119 { return .controllerOutOfRange(found: "\(n)") }
        if !kind.valueRange.contains(value) {
            switch kind {
            case .bend: return .outOfRange(field: "bend value", range: "-8192 to 8191", found: "\(value)")
            case .control: return .outOfRange(field: "controller value", range: "0-127", found: "\(value)")
            default: return .outOfRange(field: "\(kind.word) value", range: "0-127", found: "\(value)")
            }
        }
        if kind == .program && ramp { return .programRamp }
        if channel < 1 || channel > 16 { return .outOfRange(field: "channel", range: "1-16", found: "\(channel)") }
        return nil
    }
}

/// A controller lock on a note (`ccN=V`, §10.5): controller `N` (0-119) of
/// the note's channel is `V` (0-127) from just before its note-on until
/// just after its note-off.
public struct ControllerLock: Equatable, Sendable {
    public var controller: UInt8
    public var value: UInt8

    public init(controller: UInt8, value: UInt8) {
        self.controller = controller
        self.value = value
    }

    /// `cc74=110`.
    public var text: String { "cc\(controller)=\(value)" }
}

#if !hasFeature(Embedded)
extension ControllerKind: Hashable {}
extension ControllerPoint: Hashable {}
extension ControllerLock: Hashable {}
#endif
