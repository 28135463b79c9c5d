import TactusEngine
import TactusModel

/// Tactus's core driven the way the plugin's `run()` drives it, one block at
/// a time: `beginBlock`, the block's position update if the host sends one,
/// `endBlock`. What a block costs here is the core's share of `run()`, without
/// the LV2 atom reading and writing around it.
///
/// A class, so that a benchmark's iterations continue one session: the
/// transport keeps rolling from one iteration to the next. Its state is
/// `@exclusivity(unchecked)`: one thread uses it, and the runtime's access
/// tracking would otherwise cost several times what a quiet block does.
public final class TactusBlockLoop {
    public let frameCount: Int
    public let policy: BenchmarkHost.PositionPolicy
    @exclusivity(unchecked) private var renderer = BlockRenderer(sampleRate: BenchmarkHost.sampleRate)
    @exclusivity(unchecked) private var output = MIDIEventBuffer(storageCapacity: 8192)
    @exclusivity(unchecked) private var frame: Int64 = 0
    /// MIDI events emitted so far (note-ons and note-offs).
    @exclusivity(unchecked) public private(set) var events = 0

    public init(pattern: Pattern, frameCount: Int, policy: BenchmarkHost.PositionPolicy) {
        self.frameCount = frameCount
        self.policy = policy
        _ = renderer.install(PatternSnapshot.make(pattern))
    }

    deinit {
        renderer.install(nil)?.destroy()
    }

    /// Renders the next block.
    @inline(never)
    public func renderBlock() {
        renderer.beginBlock(frameCount: frameCount, output: &output)
        if frame == 0 || policy == .everyBlock {
            renderer.apply(BenchmarkHost.position(atFrame: frame), atOffset: 0, output: &output)
        }
        renderer.endBlock(output: &output)
        events &+= output.count
        frame &+= Int64(frameCount)
    }
}
