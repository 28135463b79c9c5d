import Testing
import TactusEngine
import TactusModel
import TactusOffline
import TactusTestSupport

/// Block-partition invariance for version-2 patterns (timing contract §6 and
/// §7): random lanes of different lengths, swing, `prob=` notes and key-follow
/// input give the same log for any block sizes. The inputs are position
/// reports of the partition-independent kind (see PartitionInvarianceTests)
/// and MIDI note-ons, note-offs and CC 121 at random frames.
@Suite("Block-partition invariance, version 2")
struct LanePartitionTests {
    static func pattern(_ gen: inout RandomSession) -> String { gen.lanePattern() }

    static func withFollowInput(_ script: String, _ gen: inout RandomSession, frames: Int64) -> String {
        gen.withFollowInput(script, frames: frames)
    }

    @Test("random version-2 sessions rendered with random block sizes give the log of 256-frame blocks")
    func randomLaneSessions() throws {
        let run = try checkPartitions(firstSeed: 70_001, blockBudget: DifferentialTests.blockBudget / 2, minimumSessions: 30) { _, gen in
            let pattern = LanePartitionTests.pattern(&gen)
            let frames = Int64(gen.int(20_000...1_000_000))
            return (pattern, LanePartitionTests.withFollowInput(gen.script(frames: frames, partitionIndependent: true), &gen, frames: frames))
        }
        print("lane partition: \(run.sessions) sessions, \(run.blocks) blocks, identical logs")
    }

    @Test("random version-2 sessions: the core emits exactly what the reference model (taught §7 from its text) emits")
    func lanesMatchTheReference() throws {
        var blocksRendered = 0
        var sessions = 0
        var coverage: [String: Int] = [:]
        var seed: UInt64 = 90_001
        while blocksRendered < DifferentialTests.blockBudget / 2 || sessions < 40 {
            var gen = RandomSession(seed: seed)
            let pattern = LanePartitionTests.pattern(&gen)
            let frames = Int64(gen.int(20_000...400_000))
            let script = LanePartitionTests.withFollowInput(gen.script(frames: frames), &gen, frames: frames)
            let plan = BlockPlan.random(minimum: 1, maximum: gen.pick([64, 512, 4096, 8192]), seed: seed)
            let result = try SessionHarness.run(pattern: pattern, script: script, blocks: plan, withReference: true)
            if let difference = firstDifference(canonical(result.core), canonical(result.reference!)) {
                Issue.record("seed \(seed), blocks \(plan): \(difference)\n--- pattern\n\(pattern)--- script\n\(script)")
                return
            }
            coverage.merge(result.coverage, uniquingKeysWith: +)
            blocksRendered += result.report.blocks
            seed += 1
            sessions += 1
        }
        print("lane differential: \(sessions) sessions, \(blocksRendered) blocks; coverage: \(coverage.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))")
        // Every §7 rule the scripts can reach came into play.
        for rule in ["chance: skipped", "chance: played", "follow key", "transposed", "muted", "same-frame merge", "retrigger", "jump"] {
            #expect((coverage[rule] ?? 0) > 0, "rule never exercised: \(rule)")
        }
    }
}
