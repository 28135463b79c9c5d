import TactusOffline

/// What jalv (1.6) sends its plugin, cycle by cycle, given the JACK transport
/// it sees: a `time:Position` at offset 0 of a cycle whenever the rolling
/// state, the expected frame or the tempo changed, with `frame` (Long),
/// `speed` (Float 1 or 0) and, when a timebase master provides BBT,
/// `barBeat` = `beat - 1 + tick / ticks_per_beat` (Float), `bar` - 1 (Long),
/// `beatUnit` (Int), `beatsPerBar` and `beatsPerMinute` (Float).
///
/// Fed the transport a recorder observed in the same cycles, it reproduces
/// the stream of positions jalv gave the plugin, so that the core can replay
/// the session offline.
public struct JalvPositionModel {
    private var rule = TransportChangeRule(reportFirstCycle: false)

    public init() {}

    /// The position jalv sends at the start of this cycle, if any.
    public mutating func position(for cycle: JackTransportSnapshot) -> HostPosition? {
        guard rule.changed(cycle) else { return nil }
        var fields: [(key: PositionKey, value: WireValue)] = [
            (.frame, .long(Int64(cycle.frame))), (.speed, .float(cycle.rolling ? 1 : 0)),
        ]
        if cycle.hasBBT {
            fields += [
                (.barBeat, .float(Float(Double(cycle.beat - 1) + Double(cycle.tick) / cycle.ticksPerBeat))),
                (.bar, .long(Int64(cycle.bar - 1))),
                (.beatUnit, .int(Int32(cycle.beatType))),
                (.beatsPerBar, .float(cycle.beatsPerBar)),
                (.beatsPerMinute, .float(Float(cycle.beatsPerMinute))),
            ]
        }
        return HostPosition(fields: fields)
    }
}
