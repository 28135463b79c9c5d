import TactusEngine
import TactusModel

/// The host every block-cost benchmark plays under: 48 kHz, 120 bpm, 4/4,
/// rolling from frame 0 and never stopping.
///
/// It reports its position as an LV2 host does (`bar` and a 32-bit float
/// `barBeat`, tempo, meter, speed, transport frame), so the core sees the
/// same float noise as from a real host, and it tells the seed algorithm the
/// beat at each block start, as an AUv3 host's musical-context block does.
public enum BenchmarkHost {
    public static let sampleRate: Double = 48_000
    public static let tempo: Double = 120
    public static let beatsPerBar: Double = 4
    public static var beatsPerFrame: Double { tempo / (60 * sampleRate) }

    /// When the core is told where the transport is.
    public enum PositionPolicy: String, CaseIterable, Sendable {
        /// Once, when the transport starts (jalv, Ardour: a position on every change).
        case onChange = "on-change"
        /// At the start of every block (Carla); each one is a repeat (§4).
        case everyBlock = "every-block"
    }

    /// The host's beat at an absolute frame.
    public static func beat(atFrame frame: Int64) -> Double {
        Double(frame) * beatsPerFrame
    }

    /// The `time:Position` the host sends at `frame`, as the core decodes it.
    public static func position(atFrame frame: Int64) -> PositionUpdate {
        let beat = beat(atFrame: frame)
        let bar = (beat / beatsPerBar).rounded(.down)
        let barBeat = Float(beat - bar * beatsPerBar)
        return PositionUpdate(
            frame: Double(frame), speed: 1, bar: bar, barBeat: Double(barBeat),
            beatsPerBar: beatsPerBar, beatsPerMinute: tempo)
    }
}
