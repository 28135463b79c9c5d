/// A position in beats, split into whole beats and a fraction in `[0, 1)`.
///
/// A plain `Double` of beats loses precision as a session grows (an hour at
/// 1000 bpm is 60,000 beats); the split keeps the fraction at full double
/// precision whatever the whole part, so a frame computed from a position
/// late in a session is as exact as one at its start.
///
/// Value type, `BitwiseCopyable`; every operation is O(1), allocation-free and
/// safe on the audio thread.
public struct BeatPosition: Comparable, Sendable, BitwiseCopyable {
    public var whole: Int64
    /// In `[0, 1)`.
    public var fraction: Double

    /// Builds a position from parts that are already normalized.
    @_noLocks @inline(__always)
    public init(whole: Int64, fraction: Double) {
        self.whole = whole
        self.fraction = fraction
    }

    public static var zero: BeatPosition { @_noLocks get { BeatPosition(whole: 0, fraction: 0) } }

    /// Positions beyond this magnitude are not representable (far beyond the
    /// contract's ±2^32 beats).
    public static var magnitudeLimit: Double { @_noLocks get { 4_611_686_018_427_387_904 } }  // 2^62

    /// The exact value of `beats`, or nil when it is not finite or too large.
    @_noLocks
    public init?(_ beats: Double) {
        guard beats.isFinite, beats > -BeatPosition.magnitudeLimit, beats < BeatPosition.magnitudeLimit
        else { return nil }
        let w = BeatPosition.floorToInt64(beats)
        self = BeatPosition.normalized(whole: w, fraction: beats - Double(w))
    }

    /// The value as one `Double` (rounded; for display and coarse searches).
    @inlinable public var approximateValue: Double {
        @_noLocks get { Double(whole) + fraction }
    }

    /// `self - origin` in beats.
    @_noLocks @inline(__always)
    public func beats(since origin: BeatPosition) -> Double {
        Double(whole &- origin.whole) + (fraction - origin.fraction)
    }

    /// This position moved by `delta` beats (saturating far beyond any real session).
    @_noLocks
    public func advanced(by delta: Double) -> BeatPosition {
        let t = fraction + delta
        guard t > -BeatPosition.magnitudeLimit, t < BeatPosition.magnitudeLimit else {
            return BeatPosition(whole: t > 0 ? Int64.max / 2 : Int64.min / 2, fraction: 0)
        }
        let w = BeatPosition.floorToInt64(t)
        return BeatPosition.normalized(whole: whole &+ w, fraction: t - Double(w))
    }

    /// `self - origin` in beats to 106 bits (`DoubleDouble`): the whole-beat
    /// difference is exact below 2^53 beats, the fractions' difference is exact.
    @_noLocks @inline(__always)
    public func exactBeats(since origin: BeatPosition) -> DoubleDouble {
        DoubleDouble(Double(whole &- origin.whole)) + DoubleDouble.twoSum(fraction, -origin.fraction)
    }

    /// This position moved by `delta` beats given to 106 bits (saturating far beyond any real session).
    @_noLocks
    public func advanced(by delta: DoubleDouble) -> BeatPosition {
        let t = DoubleDouble(fraction) + delta
        guard t.hi > -BeatPosition.magnitudeLimit, t.hi < BeatPosition.magnitudeLimit else {
            return BeatPosition(whole: t.hi > 0 ? Int64.max / 2 : Int64.min / 2, fraction: 0)
        }
        var w = BeatPosition.floorToInt64(t.hi)
        if Double(w) == t.hi, t.lo < 0 { w &-= 1 }
        let f = (t - DoubleDouble(Double(w))).value
        return BeatPosition.normalized(whole: whole &+ w, fraction: f < 0 ? 0 : f)
    }

    @_noLocks @inline(__always)
    public static func + (a: BeatPosition, b: BeatPosition) -> BeatPosition {
        let f = a.fraction + b.fraction
        if f >= 1 { return BeatPosition(whole: a.whole &+ b.whole &+ 1, fraction: f - 1) }
        return BeatPosition(whole: a.whole &+ b.whole, fraction: f)
    }

    @_noLocks @inline(__always)
    public static func - (a: BeatPosition, b: BeatPosition) -> BeatPosition {
        let f = a.fraction - b.fraction
        return f < 0 ? BeatPosition.normalized(whole: a.whole &- b.whole &- 1, fraction: f + 1) : BeatPosition(whole: a.whole &- b.whole, fraction: f)
    }

    @_noLocks @inline(__always)
    public static func < (a: BeatPosition, b: BeatPosition) -> Bool {
        a.whole != b.whole ? a.whole < b.whole : a.fraction < b.fraction
    }

    /// Keeps the fraction below 1 where rounding made it 1 (`-1e-20 + 1 == 1.0`).
    @_noLocks @inline(__always)
    static func normalized(whole: Int64, fraction: Double) -> BeatPosition {
        fraction < 1 ? BeatPosition(whole: whole, fraction: fraction) : BeatPosition(whole: whole &+ 1, fraction: 0)
    }

    /// `floor(x)` for `|x| < 2^62`, without the C library (opaque to `@_noLocks`).
    @_noLocks @inline(__always)
    public static func floorToInt64(_ x: Double) -> Int64 {
        let t = Int64(x)
        return Double(t) > x ? t &- 1 : t
    }
}

// Hashing needs a random seed (see Pattern.swift); only tests and tools hash this.
#if !hasFeature(Embedded)
extension BeatPosition: Hashable {}
#endif
