import Foundation
import Testing
import TactusEngine
import TactusModel
import TactusOffline
import TactusTestSupport

/// The core against the reference model (exact rationals, one onset at a
/// time) on random patterns and random transport scripts: tempo changes,
/// seeks, nudges in each band of §4, stops, speed changes, host loop ranges,
/// positions repeated every block, Qtractor's and MusE's floor reports (§1, rule 1), hosts that send every key exactly
/// (Element, JUCE hosts), all-notes-off, bad updates and pattern edits.
///
/// `TACTUS_PROPERTY_BLOCKS` sets how many blocks to render in all (default
/// 100,000; `make test-long` runs 10,000,000).
@Suite("Core against the reference model")
struct DifferentialTests {
    static var blockBudget: Int {
        if let s = Environment.value("TACTUS_PROPERTY_BLOCKS"), let n = Int(s) { return n }
        return 100_000
    }

    @Test("random sessions: the core emits exactly what the contract says, event for event")
    func coreMatchesReference() throws {
        var blocksRendered = 0
        var sessions = 0
        var totalEvents = 0
        var coverage: [String: Int] = [:]
        var seed: UInt64 = 1
        // Enough blocks, and enough distinct sessions for variety (60, or 1 per 1000 blocks of the budget beyond).
        let minimumSessions = max(60, DifferentialTests.blockBudget / 100_000 * 60)
        while blocksRendered < DifferentialTests.blockBudget || sessions < minimumSessions {
            var gen = RandomSession(seed: seed)
            let pattern = gen.pattern()
            let edits = ["a": gen.pattern(), "b": gen.pattern(maxNotes: 3)]
            let grid = onsetGrid(pattern)
            let script = gen.script(
                frames: Int64(gen.int(20_000...600_000)), edits: edits.keys.sorted(), onsets: grid.starts, loopLength: grid.length)
            let plan = BlockPlan.random(minimum: 1, maximum: gen.pick([64, 512, 4096, 8192]), seed: seed)
            let result = try SessionHarness.run(pattern: pattern, script: script, blocks: plan, patterns: edits, withReference: true)
            let core = canonical(result.core)
            let reference = canonical(result.reference!)
            if let difference = firstDifference(core, reference) {
                Issue.record("seed \(seed), blocks \(plan): \(difference)\n--- pattern\n\(pattern)--- script\n\(script)--- edits\n\(edits)")
                return
            }
            let problems = invariantViolations(result, endsStopped: true)
            if !problems.isEmpty {
                Issue.record("seed \(seed): \(problems)\n--- pattern\n\(pattern)--- script\n\(script)")
                return
            }
            #expect(result.report.statistics.droppedNoteOns == 0)
            totalEvents += result.core.count
            coverage.merge(result.coverage, uniquingKeysWith: +)
            blocksRendered += result.report.blocks
            sessions += 1
            if Environment.value("TACTUS_TRACE") != nil { print("seed \(seed) events \(result.core.count) hash \(result.core.map { EventLog.line($0) }.joined().hashValue)") }
            seed += 1
        }
        print("differential: \(sessions) sessions, \(blocksRendered) blocks, \(totalEvents) events, all equal to the reference")
        print("differential coverage: \(coverage.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))")
        // The generator must exercise every rule, or equality proves little.
        for rule in [
            "start", "stop", "repeat", "repeat with new rate", "correction ahead", "correction behind", "jump",
            "ignored", "all notes off", "pattern swap", "late onset played at the update", "same-frame merge",
            "retrigger", "one-frame minimum",
            // §1 rule 1: Qtractor's whole-beat and MusE's tick-floor reports, each way it reads them,
            // and the exact hosts (Element, JUCE hosts) told from them.
            "floor report: our beat", "floor report: the floor at its frame", "floor report: frame × T / 60R", "floor report: the floor",
            "host shown exact",
        ] {
            #expect(coverage[rule, default: 0] > 0, "no random session exercised: \(rule)")
        }
    }
}

enum Environment {
    static func value(_ name: String) -> String? {
        guard let p = getenv(name) else { return nil }
        return String(cString: p)
    }
}
