import Benchmark
import BlockCostKit

/// What one block costs, for Tactus's core and for the seed algorithm, at 64,
/// 256 and 1024 frames, for patterns of 16 to 100,000 notes
/// (`BenchmarkPattern`), under a host rolling at 120 bpm, 48 kHz.
///
/// Names are `tactus/POLICY/FRAMES/NOTES` and `seed/FRAMES/NOTES`;
/// `scripts/bench-report.py` reads them back. One iteration renders 1,000
/// consecutive blocks of one continuing session (scaling factor kilo), so
/// times read as nanoseconds per block, averaged over 1,000 blocks; the
/// percentiles are over those averages. The "MIDI events" metric counts the
/// note-ons and note-offs the 1,000 blocks emitted, which shows that every
/// pattern size plays the same number of notes.
let benchmarks: @Sendable () -> Void = {
    let midiEvents = BenchmarkMetric.custom("MIDI events", polarity: .prefersSmaller, useScalingFactor: true)
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, midiEvents],
        timeUnits: .nanoseconds,
        warmupIterations: 2,
        scalingFactor: .kilo,
        maxDuration: .milliseconds(1500),
        maxIterations: 100_000)

    for frames in [64, 256, 1024] {
        for notes in BenchmarkPattern.sizes {
            for policy in BenchmarkHost.PositionPolicy.allCases {
                Benchmark("tactus/\(policy.rawValue)/\(frames)/\(notes)") { benchmark, loop in
                    let before = loop.events
                    for _ in benchmark.scaledIterations { loop.renderBlock() }
                    benchmark.measurement(midiEvents, loop.events - before)
                } setup: {
                    TactusBlockLoop(pattern: BenchmarkPattern.make(noteCount: notes), frameCount: frames, policy: policy)
                }
            }
            Benchmark("seed/\(frames)/\(notes)") { benchmark, seed in
                let before = seed.emitted
                for _ in benchmark.scaledIterations { seed.renderBlock() }
                benchmark.measurement(midiEvents, seed.emitted - before)
            } setup: {
                SeedSequencer(pattern: BenchmarkPattern.make(noteCount: notes), frameCount: frames)
            }
        }
    }
}
