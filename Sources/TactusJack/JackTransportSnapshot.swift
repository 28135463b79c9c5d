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
    public var ticksPerBeat: Double
    public var beatsPerBar: Float
    public var beatType: Float
    public var beatsPerMinute: Double

    public init(
        cycleStart: Int64, frameCount: UInt32, rolling: Bool, frame: UInt32, hasBBT: Bool, bar: Int32, beat: Int32,
        tick: Int32, ticksPerBeat: Double, beatsPerBar: Float, beatType: Float, beatsPerMinute: Double
    ) {
        self.cycleStart = cycleStart
        self.frameCount = frameCount
        self.rolling = rolling
        self.frame = frame
        self.hasBBT = hasBBT
        self.bar = bar
        self.beat = beat
        self.tick = tick
        self.ticksPerBeat = ticksPerBeat
        self.beatsPerBar = beatsPerBar
        self.beatType = beatType
        self.beatsPerMinute = beatsPerMinute
    }

    /// The host's beat at the cycle start (from BBT), for display.
    public var beats: Double? {
        guard hasBBT, ticksPerBeat > 0 else { return nil }
        return Double(bar - 1) * Double(beatsPerBar) + Double(beat - 1) + Double(tick) / ticksPerBeat
    }
}
