/// A number held as the unevaluated sum of two doubles, `hi + lo` with
/// `|lo| <= ulp(hi) / 2`: about 106 bits, where a double has 53.
///
/// The frame rule of §3 rounds the exact offset `x` up to a frame; a double
/// carries about 1e-6 frame of error once `x` is a day of frames at 96 kHz
/// (a host that reports nothing for hours), and an onset whose exact `x`
/// lies that close to a rounding edge then lands a frame early or late (the
/// soak found one). With `x` and the rate held to 106 bits the error is
/// below 1e-20 frame.
///
/// Built from error-free transformations only (Knuth's two-sum, Dekker's
/// two-product with Veltkamp's split) and no fused multiply-add, which on
/// baseline x86-64 is a call into libm, a library the plugin must not need.
/// Value type; every operation is O(1), allocation-free and safe on the
/// audio thread. Valid for magnitudes below 2^996 (the split's headroom).
public struct DoubleDouble: Sendable, BitwiseCopyable, Equatable {
    public var hi: Double
    public var lo: Double

    @_noLocks @inline(__always)
    public init(_ hi: Double, _ lo: Double = 0) {
        self.hi = hi
        self.lo = lo
    }

    /// The value rounded to one double.
    public var value: Double { @_noLocks get { hi + lo } }

    /// `a + b` exactly, as `s + e` (Knuth).
    @_noLocks @inline(__always)
    public static func twoSum(_ a: Double, _ b: Double) -> DoubleDouble {
        let s = a + b
        let v = s - a
        let e = (a - (s - v)) + (b - v)
        return DoubleDouble(s, e)
    }

    /// `a + b` exactly, for `|a| >= |b|` (or `a` zero).
    @_noLocks @inline(__always)
    static func quickTwoSum(_ a: Double, _ b: Double) -> DoubleDouble {
        let s = a + b
        return DoubleDouble(s, b - (s - a))
    }

    /// `a` as two halves of 26 bits each (Veltkamp).
    @_noLocks @inline(__always)
    static func split(_ a: Double) -> (Double, Double) {
        let c = 134_217_729.0 * a  // 2^27 + 1
        let high = c - (c - a)
        return (high, a - high)
    }

    /// `a × b` exactly, as `p + e` (Dekker).
    @_noLocks @inline(__always)
    public static func twoProduct(_ a: Double, _ b: Double) -> DoubleDouble {
        let p = a * b
        let (ah, al) = split(a)
        let (bh, bl) = split(b)
        let e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
        return DoubleDouble(p, e)
    }

    @_noLocks @inline(__always)
    public static func + (a: DoubleDouble, b: DoubleDouble) -> DoubleDouble {
        let s = twoSum(a.hi, b.hi)
        let t = twoSum(a.lo, b.lo)
        let u = quickTwoSum(s.hi, s.lo + t.hi)
        return quickTwoSum(u.hi, u.lo + t.lo)
    }

    @_noLocks @inline(__always)
    public static prefix func - (a: DoubleDouble) -> DoubleDouble { DoubleDouble(-a.hi, -a.lo) }

    @_noLocks @inline(__always)
    public static func - (a: DoubleDouble, b: DoubleDouble) -> DoubleDouble { a + -b }

    @_noLocks @inline(__always)
    public static func * (a: DoubleDouble, b: DoubleDouble) -> DoubleDouble {
        let p = twoProduct(a.hi, b.hi)
        return quickTwoSum(p.hi, p.lo + (a.hi * b.lo + a.lo * b.hi))
    }

    @_noLocks @inline(__always)
    public static func / (a: DoubleDouble, b: DoubleDouble) -> DoubleDouble {
        // Long division, two steps: q1 = a / b to a double, then the remainder's quotient.
        let q1 = a.hi / b.hi
        let r = a - b * DoubleDouble(q1)
        let q2 = r.hi / b.hi
        let s = r - b * DoubleDouble(q2)
        let q3 = s.hi / b.hi
        return quickTwoSum(q1, q2) + DoubleDouble(q3)
    }

    @_noLocks @inline(__always)
    public static func < (a: DoubleDouble, b: DoubleDouble) -> Bool {
        a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo)
    }

    /// `ceil(hi + lo)` for values whose magnitude is below 2^62; nil beyond (NaN included).
    @_noLocks @inline(__always)
    public func ceiling() -> Int64? {
        guard hi < 4_611_686_018_427_387_904, hi > -4_611_686_018_427_387_904 else { return nil }
        let i = Int64(hi)  // toward zero
        var c = Double(i) < hi ? i &+ 1 : i
        // When hi is a whole number the sum's ceiling depends on lo's sign alone; otherwise
        // hi lies at least an ulp from the next whole number and lo (half an ulp) cannot cross it.
        if Double(c) == hi, lo > 0 { c &+= 1 }
        return c
    }
}
