import Testing
import TactusEngine
import TactusModel
import TactusTestSupport

// LaneCycle.expand computes the notes of unswung lanes in 64-bit arithmetic
// (issue 27: a 20,000-note pattern's cycle was the largest part of an edit's
// time in the plugin's worker). The exact 128-bit path is the reference: the
// fast one must give the same notes, and the same problems, always.

@Suite("Lane cycle: the fast path for unswung lanes")
struct LaneCycleFastPathTests {
    static func beat(_ r: inout RandomSession) -> String {
        r.pick(["0", "1/3", "2.5", "7/4", "1/7", "3", "0.125", "5/6", "11/12", "1/96", "999/1000", "13/8"])
    }

    static func randomText(_ r: inout RandomSession) -> String {
        if r.below(3) == 0 {
            var t = "tactus-pattern 1\nlength \(r.pick(["4", "7/3", "3.5", "16", "1"]))\n"
            for _ in 0..<r.below(40) { t += "note \(beat(&r)) \(r.pick(["1/4", "1/3", "2", "1/100000", "5/7"])) \(36 + r.below(40)) \(1 + r.below(127))\n" }
            return t
        }
        var t = "tactus-pattern 2\nseed \(r.below(1000))\n"
        for lane in 0..<(1 + r.below(4)) {
            let length = r.pick(["4", "3/2", "7/3", "5", "2.5", "1", "12"])
            let swing = r.below(3) == 0 ? " swing \(r.pick(["2/3", "0.6", "3/5"])) \(r.pick(["1/4", "1/2", "1/3"]))" : ""
            t += "lane l\(lane) length \(length)\(swing)\n"
            for _ in 0..<r.below(12) {
                let prob = r.below(4) == 0 ? " prob=\(r.pick(["1/2", "0.3"]))" : ""
                t += "note \(r.pick(["0", "1/3", "1/2", "3/4", "1/7", "0.25"])) \(r.pick(["1/4", "1/3", "2", "5/7", "1/1000"])) \(36 + r.below(40)) \(1 + r.below(127))\(prob)\n"
            }
        }
        return t
    }

    @Test("the fast path is the exact one: the same notes for 3,000 random patterns, version 1 and 2, swung lanes and not")
    func fastIsExact() {
        var r = RandomSession(seed: 2727)
        var compared = 0
        for _ in 0..<3000 {
            guard let pattern = try? PatternParser.parse(bytes: Array(LaneCycleFastPathTests.randomText(&r).utf8)) else { continue }
            var fastProblem: LaneCycle.Problem?
            var exactProblem: LaneCycle.Problem?
            let fast = LaneCycle.expand(pattern, problem: &fastProblem, exactOnly: false)
            let exact = LaneCycle.expand(pattern, problem: &exactProblem, exactOnly: true)
            #expect(fast == exact)
            #expect((fastProblem == nil) == (exactProblem == nil))
            #expect(fastProblem?.noteIndex == exactProblem?.noteIndex)
            compared += 1
        }
        #expect(compared > 1000)
    }
}
