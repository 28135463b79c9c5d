/// Where the sequencer's clock is, for an editor's display (timing contract
/// §8.2): the beat at the first frame after the block, the tempo, the
/// speed (0 while stopped) and the meter. A display extrapolates between
/// two of them.
///
/// Value type, four doubles.
public struct Playhead: Sendable, Equatable, BitwiseCopyable {
    /// Beats since the host's beat 0 (the pattern's position is this modulo its length).
    public var beat: Double
    public var beatsPerMinute: Double
    /// The host's speed while rolling (1 plays forward in real time); 0 while stopped.
    public var speed: Double
    /// The host's last `time:beatsPerBar` (4 until it sends one): bar k starts at beat `k × beatsPerBar`.
    public var beatsPerBar: Double

    @_noLocks
    public init(beat: Double, beatsPerMinute: Double, speed: Double, beatsPerBar: Double = 4) {
        self.beat = beat
        self.beatsPerMinute = beatsPerMinute
        self.speed = speed
        self.beatsPerBar = beatsPerBar
    }
}
