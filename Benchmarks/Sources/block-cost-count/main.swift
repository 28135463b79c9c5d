import BlockCostKit
import CCallgrind

// Counts, under callgrind, the instructions a block costs Tactus's core and
// the seed algorithm: the same loops as the block-cost benchmarks, measured
// by a count that does not depend on the machine's noise. Run as
//
//   valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file=OUT block-cost-count
//
// For each configuration it renders a number of blocks between callgrind's
// client requests, which write one profile (OUT.1, OUT.2, ...) per
// configuration; its trigger is the label `KIND POLICY FRAMES NOTES BLOCKS`.
// Outside valgrind it just renders.

for notes in BenchmarkPattern.sizes {
    let pattern = BenchmarkPattern.make(noteCount: notes)
    for frames in [64, 256, 1024] {
        for policy in BenchmarkHost.PositionPolicy.allCases {
            let loop = TactusBlockLoop(pattern: pattern, frameCount: frames, policy: policy)
            let blocks = 10_000
            tactus_callgrind_begin()
            for _ in 0..<blocks { loop.renderBlock() }
            tactus_callgrind_end("tactus \(policy.rawValue) \(frames) \(notes) \(blocks)")
        }
    }
    // The seed's count is the same in every block (it converts every event):
    // fewer blocks keep the largest patterns quick under callgrind.
    let seed = SeedSequencer(pattern: pattern, frameCount: 256)
    let blocks = max(50, min(10_000, 5_000_000 / notes))
    tactus_callgrind_begin()
    for _ in 0..<blocks { seed.renderBlock() }
    tactus_callgrind_end("seed - 256 \(notes) \(blocks)")
}
