/// Where the sequencer's clock is, for an editor's display (timing contract
/// §8.2): the beat at the first frame after the block, the tempo and the
/// speed (0 while stopped). A display extrapolates between two of them.
///
/// Value type, three doubles.
public struct Playhead: Sendable, Equatable, BitwiseCopyable {
    /// Beats since the host's beat 0 (the pattern's position is this modulo its length).
    public var beat: Double
    public var beatsPerMinute: Double
    /// The host's speed while rolling (1 plays forward in real time); 0 while stopped.
    public var speed: Double

    public init(beat: Double, beatsPerMinute: Double, speed: Double) {
        self.beat = beat
        self.beatsPerMinute = beatsPerMinute
        self.speed = speed
    }
}
