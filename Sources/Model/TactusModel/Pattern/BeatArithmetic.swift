import TactusEngine

/// Exact sums, differences and multiples of beat values for the editor.
///
/// `BeatRational` itself has no arithmetic (the audio path never needs any);
/// the editor moves and resizes notes by exact amounts, so it computes in
/// 128 bits and gives up (nil) when a result's parts leave 64 bits. Whether
/// the text format can spell a result is a separate question
/// (`PatternLimits.isWritable`), checked with the edit. O(1), no allocation.
extension BeatRational {
    /// `self + other`, or nil when the reduced result does not fit 64-bit parts.
    public func adding(_ other: BeatRational) -> BeatRational? {
        let n = Int128(numerator) * Int128(other.denominator) + Int128(other.numerator) * Int128(denominator)
        let d = Int128(denominator) * Int128(other.denominator)
        return BeatRational.reduced(n, d)
    }

    /// `self - other`, or nil when the reduced result does not fit 64-bit parts.
    public func subtracting(_ other: BeatRational) -> BeatRational? {
        let n = Int128(numerator) * Int128(other.denominator) - Int128(other.numerator) * Int128(denominator)
        let d = Int128(denominator) * Int128(other.denominator)
        return BeatRational.reduced(n, d)
    }

    /// `self * factor`, or nil when the result does not fit 64-bit parts.
    public func multiplied(by factor: Int64) -> BeatRational? {
        BeatRational.reduced(Int128(numerator) * Int128(factor), Int128(denominator))
    }

    /// `floor(self / step)` for `step > 0`, saturated to the range of `Int64`.
    public func floorQuotient(_ step: BeatRational) -> Int64 {
        let (q, _) = BeatRational.floorDivide(
            Int128(numerator) * Int128(step.denominator), Int128(denominator) * Int128(step.numerator))
        if q > Int128(Int64.max) { return Int64.max }
        if q < Int128(Int64.min) { return Int64.min }
        return Int64(q)
    }

    /// `n / d` reduced, when both parts fit `Int64` (`d > 0`).
    public static func reduced(_ n: Int128, _ d: Int128) -> BeatRational? {
        let g = LaneCycle.gcd(n, d)
        let rn = n / g
        let rd = d / g
        guard rd > 0, rd <= Int128(Int64.max), rn <= Int128(Int64.max), rn >= -Int128(Int64.max) else { return nil }
        return BeatRational(numerator: Int64(rn), denominator: Int64(rd))
    }
}
