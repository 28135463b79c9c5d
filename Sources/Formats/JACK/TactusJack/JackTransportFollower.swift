import TactusEngine
import TactusModel

/// When and what `tactus jack` tells the core about JACK transport: a
/// position at the start of a cycle whenever the rolling state, the frame
/// (against the one expected from the previous cycle) or the tempo changed,
/// as jalv does; with BBT when a timebase master publishes it (using its
/// fractional tick when it gives one, so no tick rounding, and its
/// `beat_type` as the beat unit the MIDI clock counts in), else the frame
/// alone, which the core turns into beats at the last tempo it knew (§1).
/// A new `beat_type` alone is reported too (jalv's rule does not look at the
/// meter): the MIDI clock counts quarter notes by it (§12.1).
///
/// Values go to the core as Doubles, untouched. The same rule rebuilds, from
/// a recorder's view of the same cycles, the positions the client applied.
/// Value type; `update` is O(1), allocation- and lock-free: `tactus jack`'s
/// `@_noLocks` process callback calls it, and the checker proves it there.
public struct JackTransportFollower: Sendable {
    private var rule = TransportChangeRule(reportFirstCycle: true)
    /// The `beat_type` last reported (0: none yet, or no BBT).
    private var beatType: Float = 0

    public init() {}

    @_noLocks
    public mutating func update(for cycle: JackTransportSnapshot) -> PositionUpdate? {
        let unit: Float = cycle.hasBBT && cycle.ticksPerBeat > 0 ? cycle.beatType : 0
        let unitChanged = unit != 0 && unit != beatType
        if unit != 0 { beatType = unit }
        guard rule.changed(cycle) || unitChanged else { return nil }
        var u = PositionUpdate(frame: Double(cycle.frame), speed: cycle.rolling ? 1 : 0)
        if cycle.hasBBT, cycle.ticksPerBeat > 0 {
            let tick = cycle.tickDouble ?? Double(cycle.tick)
            u.bar = Double(cycle.bar - 1)
            u.barBeat = Double(cycle.beat - 1) + tick / cycle.ticksPerBeat
            u.beatsPerBar = Double(cycle.beatsPerBar)
            u.beatsPerMinute = cycle.beatsPerMinute
            u.beatUnit = Double(cycle.beatType)
        }
        return u
    }
}

