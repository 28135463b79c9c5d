/// Which block sizes an offline host uses, in order: one size, a cycled list,
/// or random sizes from a seeded generator (reproducible on every machine).
///
/// Spelled `256`, `64,256,1024`, or `random:MIN-MAX@SEED` (`random` alone is
/// `random:1-8192@1`).
public enum BlockPlan: Equatable, Sendable, CustomStringConvertible {
    case fixed(Int)
    case cycle([Int])
    case random(minimum: Int, maximum: Int, seed: UInt64)

    public struct ParseError: Error, CustomStringConvertible {
        public var description: String
    }

    public init(parsing spec: String) throws(ParseError) {
        let usage = "block sizes: write N, a list like 64,256,1024, or random:MIN-MAX@SEED (sizes 0-1048576, not all 0)"
        if spec.hasPrefix("random") {
            var rest = Substring(spec.dropFirst("random".count))
            var minimum = 1
            var maximum = 8192
            var seed: UInt64 = 1
            if let at = rest.firstIndex(of: "@") {
                guard let s = UInt64(rest[rest.index(after: at)...]) else { throw ParseError(description: usage) }
                seed = s
                rest = rest[..<at]
            }
            if rest.hasPrefix(":") {
                let range = rest.dropFirst().split(separator: "-", omittingEmptySubsequences: false)
                guard range.count == 2, range.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
                    let a = Int(range[0]), let b = Int(range[1]), b >= a, b >= 1, b <= 1 << 20
                else {
                    throw ParseError(description: usage)
                }
                minimum = a
                maximum = b
            } else if !rest.isEmpty {
                throw ParseError(description: usage)
            }
            self = .random(minimum: minimum, maximum: maximum, seed: seed)
            return
        }
        let parts = spec.split(separator: ",", omittingEmptySubsequences: false)
        let sizes = parts.compactMap { Int($0) }
        guard !sizes.isEmpty, sizes.count == parts.count, sizes.allSatisfy({ $0 >= 0 && $0 <= 1 << 20 }),
            sizes.contains(where: { $0 > 0 })
        else { throw ParseError(description: usage) }
        self = sizes.count == 1 ? .fixed(sizes[0]) : .cycle(sizes)
    }

    public var description: String {
        switch self {
        case .fixed(let n): return "\(n)"
        case .cycle(let list): return list.map(String.init).joined(separator: ",")
        case .random(let a, let b, let seed): return "random:\(a)-\(b)@\(seed)"
        }
    }

    /// The sizes, in order, forever.
    public func makeIterator() -> Sizes { Sizes(plan: self) }

    public struct Sizes {
        let plan: BlockPlan
        var index = 0
        var rng: SplitMix64

        init(plan: BlockPlan) {
            self.plan = plan
            if case .random(_, _, let seed) = plan { rng = SplitMix64(seed: seed) } else { rng = SplitMix64(seed: 0) }
        }

        public mutating func next() -> Int {
            switch plan {
            case .fixed(let n): return n
            case .cycle(let list):
                defer { index = (index + 1) % list.count }
                return list[index]
            case .random(let a, let b, _):
                return a + Int(rng.next() % UInt64(b - a + 1))
            }
        }
    }
}

/// A small, fast, seedable generator (Steele, Lea and Flood's SplitMix64), so
/// that random block plans and test cases are the same on every machine.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
