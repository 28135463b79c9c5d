import TactusEngine
import TactusModel
import TactusOffline

/// The patterns every block-cost benchmark plays: `noteCount` notes at a
/// constant density of four onsets a beat (a sixteenth-note grid), so the loop
/// is `noteCount / 4` beats long.
///
/// Constant density is what makes sizes comparable: every pattern emits the
/// same number of notes per block on average, so any difference in cost
/// between 16 and 100,000 notes comes from the pattern's size, not from the
/// notes played. Keys, channels, velocities and durations (1/8 to 1 beat, so
/// that notes overlap and the tracker's heap works) are drawn from a fixed
/// seed: the same `noteCount` always gives the same pattern.
///
/// The pattern format stops at 65,536 notes; the 100,000-note pattern is built
/// here in code and never written as text (`PatternSnapshot.make` does not
/// enforce the limit).
public enum BenchmarkPattern {
    public static let onsetsPerBeat: Int64 = 4
    /// The sizes the benchmarks cover.
    public static let sizes = [16, 1_000, 10_000, 100_000]

    public static func make(noteCount: Int) -> Pattern {
        var random = SplitMix64(seed: 0x7AC7_0500 &+ UInt64(noteCount))
        let durations = [
            BeatRational(numerator: 1, denominator: 8)!, BeatRational(numerator: 1, denominator: 4)!,
            BeatRational(numerator: 1, denominator: 3)!, BeatRational(numerator: 1, denominator: 2)!, BeatRational(1),
        ]
        var notes: [PatternNote] = []
        notes.reserveCapacity(noteCount)
        for i in 0..<noteCount {
            notes.append(PatternNote(
                start: BeatRational(numerator: Int64(i), denominator: onsetsPerBeat)!,
                duration: durations[Int(random.next() % UInt64(durations.count))],
                key: UInt8(36 + random.next() % 60),
                velocity: UInt8(1 + random.next() % 127),
                channel: UInt8(1 + random.next() % 16)))
        }
        return Pattern(length: BeatRational(numerator: Int64(noteCount), denominator: onsetsPerBeat)!, notes: notes)
    }
}
