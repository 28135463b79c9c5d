import TactusEngine
import TactusModel

/// A `time:Position` key, by its LV2 name.
public enum PositionKey: String, CaseIterable, Sendable {
    case frame, speed, bar, barBeat, beat, beatsPerBar, beatsPerMinute, beatUnit

    /// The atom type hosts use for this key (LV2 `time:` vocabulary as Ardour,
    /// Carla and jalv send it): integers as Long, the rest as Float, `beat` as Double.
    public var usualValue: (Double) -> WireValue {
        switch self {
        case .frame, .bar: return { .long(Int64($0)) }
        case .beatUnit: return { .int(Int32($0)) }
        case .beat: return { .double($0) }
        case .speed, .barBeat, .beatsPerBar, .beatsPerMinute: return { .float(Float($0)) }
        }
    }
}

/// One value as it travels in an atom: its type matters (a Float 0.7 is
/// 0.699999988..., timing contract §3).
public enum WireValue: Equatable, Sendable {
    case int(Int32)
    case long(Int64)
    case float(Float)
    case double(Double)
    /// A non-numeric atom (for bad-input tests): makes the whole update ignored (§6).
    case string(String)

    /// The exact numeric value, or nil for a non-number.
    public var number: Double? {
        switch self {
        case .int(let v): return Double(v)
        case .long(let v): return Double(v)
        case .float(let v): return Double(v)
        case .double(let v): return v
        case .string: return nil
        }
    }

    /// As written in a transport script (`0.7:f`).
    public var scriptText: String {
        switch self {
        case .int(let v): return "\(v):i"
        case .long(let v): return "\(v):l"
        case .float(let v): return "\(v):f"
        case .double(let v): return "\(v):d"
        case .string(let s): return "\(s):s"
        }
    }
}

/// A position report exactly as a host would put it on the wire: which keys,
/// with which atom types, as `atom:Object` or the deprecated `atom:Blank`.
public struct HostPosition: Equatable, Sendable {
    public var fields: [(key: PositionKey, value: WireValue)]
    /// Sent as `atom:Blank` (Carla) rather than `atom:Object`.
    public var asBlank: Bool

    public init(fields: [(key: PositionKey, value: WireValue)], asBlank: Bool = false) {
        self.fields = fields
        self.asBlank = asBlank
    }

    public static func == (a: HostPosition, b: HostPosition) -> Bool {
        a.asBlank == b.asBlank && a.fields.count == b.fields.count
            && zip(a.fields, b.fields).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }

    /// The transport script's action for it: `position KEY=VALUE:TYPE ...`
    /// (docs/transport-script.md), which parses back to the same fields.
    public var scriptAction: String {
        "position " + fields.map { "\($0.key.rawValue)=\($0.value.scriptText)" }.joined(separator: " ")
    }

    /// What the core receives: the decoding every front end (LV2, JACK, offline) performs.
    public var update: PositionUpdate {
        var u = PositionUpdate()
        for (key, value) in fields { u.set(key, value) }
        return u
    }
}

extension PositionUpdate {
    /// Takes one key of a report as every front end decodes it: its value as
    /// a number; a key of a non-numeric type keeps its value and makes the
    /// whole update ignored (§6).
    @inline(__always)
    mutating func set(_ key: PositionKey, _ value: WireValue) {
        guard let number = value.number else {
            hasInvalidKey = true
            return
        }
        switch key {
        case .frame: frame = number
        case .speed: speed = number
        case .bar: bar = number
        case .barBeat: barBeat = number
        case .beat: beat = number
        case .beatsPerBar: beatsPerBar = number
        case .beatsPerMinute: beatsPerMinute = number
        case .beatUnit: beatUnit = number
        }
    }
}
