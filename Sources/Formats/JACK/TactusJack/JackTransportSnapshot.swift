import CJack

/// One cycle's JACK transport as a client sees it (`jack_transport_query`),
/// with the cycle's place in time. Plain data: recorded on the process thread,
/// read on the main thread.
public struct JackTransportSnapshot: Sendable, BitwiseCopyable, Equatable {
    /// Frames from the recorder's first cycle to this cycle's start.
    public var cycleStart: Int64
    public var frameCount: UInt32
    public var rolling: Bool
    /// `jack_position_t.frame`.
    public var frame: UInt32
    public var hasBBT: Bool
    public var bar: Int32
    public var beat: Int32
    public var tick: Int32
    /// The tick with its fraction (`tick_double`), when the master publishes it (JackTickDouble).
    public var tickDouble: Double?
    public var ticksPerBeat: Double
    public var beatsPerBar: Float
    public var beatType: Float
    public var beatsPerMinute: Double

    public init(
        cycleStart: Int64, frameCount: UInt32, rolling: Bool, frame: UInt32, hasBBT: Bool, bar: Int32, beat: Int32,
        tick: Int32, tickDouble: Double? = nil, ticksPerBeat: Double, beatsPerBar: Float, beatType: Float, beatsPerMinute: Double
    ) {
        self.cycleStart = cycleStart
        self.frameCount = frameCount
        self.rolling = rolling
        self.frame = frame
        self.hasBBT = hasBBT
        self.bar = bar
        self.beat = beat
        self.tick = tick
        self.tickDouble = tickDouble
        self.ticksPerBeat = ticksPerBeat
        self.beatsPerBar = beatsPerBar
        self.beatType = beatType
        self.beatsPerMinute = beatsPerMinute
    }

    /// The host's beat at the cycle start (from BBT), for display.
    public var beats: Double? {
        guard hasBBT, ticksPerBeat > 0 else { return nil }
        return Double(bar - 1) * Double(beatsPerBar) + Double(beat - 1) + (tickDouble ?? Double(tick)) / ticksPerBeat
    }

    /// This cycle's transport as JACK reports it (process thread).
    @_noLocks
    public init(query pos: jack_position_t, state: jack_transport_state_t, frameCount: UInt32, cycleStart: Int64) {
        let hasBBT = pos.valid.rawValue & JackPositionBBT.rawValue != 0
        let hasTickDouble = pos.valid.rawValue & JackTickDouble.rawValue != 0
        self.cycleStart = cycleStart
        self.frameCount = frameCount
        rolling = state == JackTransportRolling
        frame = pos.frame
        self.hasBBT = hasBBT
        bar = hasBBT ? pos.bar : 0
        beat = hasBBT ? pos.beat : 0
        tick = hasBBT ? pos.tick : 0
        tickDouble = hasBBT && hasTickDouble ? pos.tick_double : nil
        ticksPerBeat = hasBBT ? pos.ticks_per_beat : 0
        beatsPerBar = hasBBT ? pos.beats_per_bar : 0
        beatType = hasBBT ? pos.beat_type : 0
        beatsPerMinute = hasBBT ? pos.beats_per_minute : 0
    }
}
