/// jalv's rule for when a JACK client tells its plugin the transport: at a
/// cycle whose rolling state, frame (against the one expected from the
/// previous cycle) or tempo changed. `tactus jack` follows it
/// (`JackTransportFollower`, and also at its first cycle, so that the engine
/// starts from a known position); the host tests rebuild what jalv sent with
/// it (`JalvPositionModel`).
///
/// Value type; `changed` is O(1), allocation- and lock-free (`@_noLocks`).
public struct TransportChangeRule: Sendable {
    private var rolling = false
    private var expectedFrame: UInt32 = 0
    private var beatsPerMinute: Double = 0
    private var started: Bool

    /// `reportFirstCycle`: the first cycle counts as a change whatever it holds.
    public init(reportFirstCycle: Bool) {
        started = !reportFirstCycle
    }

    /// Whether `cycle` is reported; remembers it for the next cycle.
    @_noLocks
    public mutating func changed(_ cycle: JackTransportSnapshot) -> Bool {
        let changed = !started || cycle.rolling != rolling || cycle.frame != expectedFrame || cycle.beatsPerMinute != beatsPerMinute
        started = true
        expectedFrame = cycle.rolling ? cycle.frame &+ cycle.frameCount : cycle.frame
        beatsPerMinute = cycle.beatsPerMinute
        rolling = cycle.rolling
        return changed
    }
}
