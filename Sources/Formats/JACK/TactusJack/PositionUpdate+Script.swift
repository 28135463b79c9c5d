import TactusEngine
import TactusModel
import TactusOffline

extension PositionUpdate {
    /// The same update as a transport script's raw position (Doubles kept exact).
    public var scriptPosition: HostPosition {
        var fields: [(key: PositionKey, value: WireValue)] = []
        if let v = frame { fields.append((.frame, .double(v))) }
        if let v = speed { fields.append((.speed, .double(v))) }
        if let v = bar { fields.append((.bar, .double(v))) }
        if let v = barBeat { fields.append((.barBeat, .double(v))) }
        if let v = beat { fields.append((.beat, .double(v))) }
        if let v = beatsPerBar { fields.append((.beatsPerBar, .double(v))) }
        if let v = beatsPerMinute { fields.append((.beatsPerMinute, .double(v))) }
        if let v = beatUnit { fields.append((.beatUnit, .double(v))) }
        return HostPosition(fields: fields)
    }
}
