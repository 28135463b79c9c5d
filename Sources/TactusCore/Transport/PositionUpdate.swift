/// One position report from the host: the keys of an LV2 `time:Position`
/// object (or a JACK transport query), as numbers, each present or not.
///
/// A key the host did not send is nil and keeps its last value (timing
/// contract §1). The format glue sets `hasInvalidKey` when a position key came
/// with a non-numeric type, which makes the clock ignore the whole update (§6).
///
/// Value type, `BitwiseCopyable`: it crosses to the audio thread by copy.
public struct PositionUpdate: Sendable, BitwiseCopyable, Equatable {
    /// `time:frame`: the host's transport frame (the beat when no beat key is present; for a floor report, §1 rule 1, what makes its beat exact).
    public var frame: Double?
    /// `time:speed`: 1 is normal play, 0 stopped.
    public var speed: Double?
    /// `time:bar`, counted from 0.
    public var bar: Double?
    /// `time:barBeat`: beats since the start of `bar`.
    public var barBeat: Double?
    /// `time:beat`: beats since the start of the timeline.
    public var beat: Double?
    /// `time:beatsPerBar`.
    public var beatsPerBar: Double?
    /// `time:beatsPerMinute`.
    public var beatsPerMinute: Double?
    /// A position key arrived with a type that is not a number.
    public var hasInvalidKey: Bool

    @_noLocks
    public init(
        frame: Double? = nil, speed: Double? = nil, bar: Double? = nil, barBeat: Double? = nil,
        beat: Double? = nil, beatsPerBar: Double? = nil, beatsPerMinute: Double? = nil,
        hasInvalidKey: Bool = false
    ) {
        self.frame = frame
        self.speed = speed
        self.bar = bar
        self.barBeat = barBeat
        self.beat = beat
        self.beatsPerBar = beatsPerBar
        self.beatsPerMinute = beatsPerMinute
        self.hasInvalidKey = hasInvalidKey
    }

    /// True when no key at all is present (an empty `time:Position`).
    public var isEmpty: Bool {
        frame == nil && speed == nil && bar == nil && barBeat == nil && beat == nil
            && beatsPerBar == nil && beatsPerMinute == nil
    }
}
