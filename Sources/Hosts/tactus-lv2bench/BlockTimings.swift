import CBenchClock

/// The time each measured block took, in clock ticks (`CBenchClock`: the
/// time-stamp counter on x86-64), kept in storage reserved before the run,
/// and their order statistics in nanoseconds.
struct BlockTimings {
    private(set) var ticks: [UInt64] = []

    init(capacity: Int) { ticks.reserveCapacity(capacity) }

    mutating func record(_ t: UInt64) { ticks.append(t) }

    struct Summary {
        var count: Int
        var min: Double
        var median: Double
        var p99: Double
        var max: Double
        var mean: Double
        /// The mean of the fastest 99.9% of blocks: as precise as a mean (it
        /// averages out the clock's granularity, 10 ns on some virtual
        /// machines) without the rare block a preemption stretched.
        var typical: Double

        /// The same figures less `ns` (the cost of reading the clock), floored at 0.
        func less(_ ns: Double) -> Summary {
            func f(_ x: Double) -> Double { Swift.max(0, x - ns) }
            return Summary(
                count: count, min: f(min), median: f(median), p99: f(p99), max: f(max), mean: f(mean), typical: f(typical))
        }
    }

    /// Min, median, 99th percentile (nearest rank), max and mean, in nanoseconds.
    func summary(nsPerTick: Double) -> Summary {
        let sorted = ticks.sorted()
        let n = sorted.count
        guard n > 0 else { return Summary(count: 0, min: 0, median: 0, p99: 0, max: 0, mean: 0, typical: 0) }
        let median = n % 2 == 1 ? Double(sorted[n / 2]) : (Double(sorted[n / 2 - 1]) + Double(sorted[n / 2])) / 2
        let rank = Int((0.99 * Double(n)).rounded(.up)) - 1
        let mean = sorted.reduce(0.0) { $0 + Double($1) } / Double(n)
        let kept = Swift.max(1, Int((0.999 * Double(n)).rounded(.down)))
        let typical = sorted[..<kept].reduce(0.0) { $0 + Double($1) } / Double(kept)
        return Summary(
            count: n, min: Double(sorted[0]) * nsPerTick, median: median * nsPerTick,
            p99: Double(sorted[Swift.max(0, rank)]) * nsPerTick, max: Double(sorted[n - 1]) * nsPerTick,
            mean: mean * nsPerTick, typical: typical * nsPerTick)
    }
}
