/// An exact rational number of beats, as written in a pattern (`1/3`, `3.5`, `4`).
///
/// Always reduced, with a positive denominator. The pattern format bounds its
/// inputs (values up to 1,000,000; fraction parts below 2^31; at most nine
/// decimal places), so a numerator stays below 2^50 and a denominator below
/// 2^31; arithmetic that could leave those bounds goes through `Int128`.
///
/// Value type, `Sendable`; all operations are O(1) and allocation-free.
public struct BeatRational: Comparable, Sendable, BitwiseCopyable {
    public let numerator: Int64
    public let denominator: Int64

    /// Builds `numerator / denominator`, reduced. Returns nil for a zero denominator.
    @_noLocks
    public init?(numerator: Int64, denominator: Int64) {
        guard denominator != 0 else { return nil }
        var n = numerator
        var d = denominator
        if d < 0 { n = -n; d = -d }
        let g = BeatRational.gcd(n.magnitude, d.magnitude)
        self.numerator = n / Int64(g)
        self.denominator = d / Int64(g)
    }

    /// A whole number of beats.
    @_noLocks
    public init(_ whole: Int64) {
        numerator = whole
        denominator = 1
    }

    public static var zero: BeatRational { @_noLocks get { BeatRational(0) } }

    public var isInteger: Bool { @_noLocks get { denominator == 1 } }

    /// The nearest `Double` (for display and approximate searches only).
    public var approximateValue: Double { @_noLocks get { Double(numerator) / Double(denominator) } }

    /// The same value as a split position: whole beats plus a fraction in [0, 1).
    public var position: BeatPosition {
        @_noLocks get {
            let (q, r) = BeatRational.floorDivide(Int128(numerator), Int128(denominator))
            return BeatPosition(whole: Int64(q), fraction: Double(Int64(r)) / Double(denominator))
        }
    }

    @_noLocks
    public static func < (a: BeatRational, b: BeatRational) -> Bool {
        Int128(a.numerator) * Int128(b.denominator) < Int128(b.numerator) * Int128(a.denominator)
    }

    /// The greatest common divisor of `a` and `b` (1 when both are 0).
    @_noLocks
    public static func gcd(_ a: UInt64, _ b: UInt64) -> UInt64 {
        var x = a
        var y = b
        while y != 0 { (x, y) = (y, x % y) }
        return x == 0 ? 1 : x
    }

    /// Floor division with a non-negative remainder (`b > 0`).
    @_noLocks @inline(__always)
    public static func floorDivide(_ a: Int128, _ b: Int128) -> (quotient: Int128, remainder: Int128) {
        var q = a / b
        var r = a - q * b
        if r < 0 { q -= 1; r += b }
        return (q, r)
    }
}

/// An exact sum of two pattern rationals (a note's end = start + duration),
/// kept as whole beats plus `remainder / denominator`, `0 <= remainder < denominator <= 2^62`.
///
/// Used off the audio thread to rank note ends exactly; O(1), allocation-free.
public struct ExactBeatSum: Comparable, Sendable, BitwiseCopyable {
    public let whole: Int64
    public let remainder: Int64
    public let denominator: Int64

    @_noLocks
    public init(_ a: BeatRational, _ b: BeatRational) {
        let g = Int128(BeatRational.gcd(a.denominator.magnitude, b.denominator.magnitude))
        let den = Int128(a.denominator) / g * Int128(b.denominator)
        let num = Int128(a.numerator) * (den / Int128(a.denominator))
            + Int128(b.numerator) * (den / Int128(b.denominator))
        let (q, r) = BeatRational.floorDivide(num, den)
        whole = Int64(q)
        remainder = Int64(r)
        denominator = Int64(den)
    }

    public var position: BeatPosition {
        @_noLocks get { BeatPosition(whole: whole, fraction: Double(remainder) / Double(denominator)) }
    }

    @_noLocks
    public static func < (a: ExactBeatSum, b: ExactBeatSum) -> Bool {
        if a.whole != b.whole { return a.whole < b.whole }
        return Int128(a.remainder) * Int128(b.denominator) < Int128(b.remainder) * Int128(a.denominator)
    }

    @_noLocks
    public static func == (a: ExactBeatSum, b: ExactBeatSum) -> Bool {
        a.whole == b.whole
            && Int128(a.remainder) * Int128(b.denominator) == Int128(b.remainder) * Int128(a.denominator)
    }
}

// Hashing needs a random seed (see Pattern.swift); only tests and tools hash this.
#if !hasFeature(Embedded)
extension BeatRational: Hashable {}
#endif
