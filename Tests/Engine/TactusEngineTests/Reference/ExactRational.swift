import BigInt
import TactusEngine
import TactusModel

/// An exact rational with unbounded integers: the reference model's only
/// number type, so that it never rounds.
struct Q: Comparable, Hashable, CustomStringConvertible {
    let num: BigInt
    let den: BigInt  // > 0, gcd(num, den) == 1

    init(_ num: BigInt, _ den: BigInt = 1) {
        precondition(den != 0)
        var n = num
        var d = den
        if d < 0 { n = -n; d = -d }
        let g = n.greatestCommonDivisor(with: d)
        if g > 1 { n /= g; d /= g }
        self.num = n
        self.den = d
    }

    init(_ i: Int64) { self.init(BigInt(i)) }
    init(_ i: Int) { self.init(BigInt(i)) }

    /// The exact value of a finite double (every double is a dyadic rational).
    init(_ d: Double) {
        precondition(d.isFinite)
        if d == 0 { self.init(BigInt(0)); return }
        let mantissa = BigInt(d.significandBitPattern) | (d.isNormal ? BigInt(1) << 52 : 0)
        let exponent = (d.isNormal ? Int(d.exponent) : -1022) - 52
        let signed = d < 0 ? -mantissa : mantissa
        if exponent >= 0 { self.init(signed << exponent) } else { self.init(signed, BigInt(1) << -exponent) }
    }

    init(_ r: BeatRational) { self.init(BigInt(r.numerator), BigInt(r.denominator)) }

    static let zero = Q(BigInt(0))
    static let one = Q(BigInt(1))

    static func + (a: Q, b: Q) -> Q { Q(a.num * b.den + b.num * a.den, a.den * b.den) }
    static func - (a: Q, b: Q) -> Q { Q(a.num * b.den - b.num * a.den, a.den * b.den) }
    static func * (a: Q, b: Q) -> Q { Q(a.num * b.num, a.den * b.den) }
    static func / (a: Q, b: Q) -> Q { Q(a.num * b.den, a.den * b.num) }
    static prefix func - (a: Q) -> Q { Q(-a.num, a.den) }
    static func < (a: Q, b: Q) -> Bool { a.num * b.den < b.num * a.den }

    var magnitude: Q { num < 0 ? -self : self }

    /// The largest integer <= self.
    var floor: BigInt {
        let (q, r) = num.quotientAndRemainder(dividingBy: den)
        return r < 0 ? q - 1 : q
    }

    /// The smallest integer >= self.
    var ceiling: BigInt { -((-self).floor) }

    var double: Double { Double(num) / Double(den) }

    var description: String { den == 1 ? "\(num)" : "\(num)/\(den)" }
}
