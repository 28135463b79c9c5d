import TactusEngine
import TactusModel

/// The piano roll's snap grid, named as musicians name note values.
///
/// In beats a quarter note is 1, so the grid steps are: `quarter` 1,
/// `eighth` 1/2, `sixteenth` 1/4, `eighthTriplet` 1/3 (three in a beat),
/// `sixteenthTriplet` 1/6 (six in a beat). With `off` nothing is snapped to
/// a musical value, but a pointer position (a `Double`) still becomes an
/// exact beat on the fine grid of 1/96 beat (`fineStep`): a multiple of every
/// other step, so a note placed with the grid off stays on the lines of any
/// grid chosen later, and its text stays short (`5/96`, `0.03125`).
///
/// Pure value type; every method is O(1) and allocation-free except `label`
/// and `lines`. Grid lines start at beat 0 (the loop start).
public enum SnapGrid: Equatable, Sendable, CaseIterable {
    case quarter
    case eighth
    case sixteenth
    case eighthTriplet
    case sixteenthTriplet
    case off

    /// The fine grid that pointer positions fall on when snapping is off: 1/96 beat.
    public static var fineStep: BeatRational { BeatRational(numerator: 1, denominator: 96)! }

    /// The grid step in beats, nil when snapping is off.
    public var step: BeatRational? {
        switch self {
        case .quarter: return BeatRational(1)
        case .eighth: return BeatRational(numerator: 1, denominator: 2)!
        case .sixteenth: return BeatRational(numerator: 1, denominator: 4)!
        case .eighthTriplet: return BeatRational(numerator: 1, denominator: 3)!
        case .sixteenthTriplet: return BeatRational(numerator: 1, denominator: 6)!
        case .off: return nil
        }
    }

    /// The step pointer positions are rounded to: the grid step, or `fineStep` when off.
    public var resolution: BeatRational { step ?? SnapGrid.fineStep }

    /// What the UI shows: `1/4`, `1/8`, `1/16`, `1/8T`, `1/16T`, `off` (ASCII).
    public var label: [UInt8] {
        let text: StaticString
        switch self {
        case .quarter: text = "1/4"
        case .eighth: text = "1/8"
        case .sixteenth: text = "1/16"
        case .eighthTriplet: text = "1/8T"
        case .sixteenthTriplet: text = "1/16T"
        case .off: text = "off"
        }
        return Array(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// The next grid in the cycle 1/4, 1/8, 1/16, 1/8T, 1/16T, off, 1/4, ...
    public var next: SnapGrid {
        switch self {
        case .quarter: return .eighth
        case .eighth: return .sixteenth
        case .sixteenth: return .eighthTriplet
        case .eighthTriplet: return .sixteenthTriplet
        case .sixteenthTriplet: return .off
        case .off: return .quarter
        }
    }

    /// The grid before this one in the cycle.
    public var previous: SnapGrid {
        var g = self
        // Five steps forward in a cycle of six.
        for _ in 0..<5 { g = g.next }
        return g
    }

    /// The grid line nearest `beat` (a tie goes to the later line). With
    /// `off`, `beat` itself: an exact value is never moved by snapping alone.
    public func snap(_ beat: BeatRational) -> BeatRational {
        guard let step else { return beat }
        // nearest = floor(beat / step + 1/2) * step
        guard let doubled = beat.multiplied(by: 2), let shifted = doubled.adding(step) else { return beat }
        let twoSteps = step.multiplied(by: 2)!
        return step.multiplied(by: shifted.floorQuotient(twoSteps)) ?? beat
    }

    /// The grid line at or before `beat` (the cell a click falls in). With
    /// `off`, `beat` itself.
    public func floor(_ beat: BeatRational) -> BeatRational {
        guard let step else { return beat }
        return step.multiplied(by: beat.floorQuotient(step)) ?? beat
    }

    /// The exact beat for a pointer position: the nearest grid line (the
    /// nearest 1/96 beat when off). Non-finite input gives 0; input is
    /// clamped to ±2,000,000 beats, beyond every pattern limit.
    public func nearest(_ beat: Double) -> BeatRational {
        SnapGrid.multiple(of: resolution, for: beat, rounding: .toNearestOrAwayFromZero)
    }

    /// The exact beat for a pointer position: the grid line at or before it
    /// (the 1/96 beat at or before it when off).
    public func floor(_ beat: Double) -> BeatRational {
        SnapGrid.multiple(of: resolution, for: beat, rounding: .down)
    }

    /// The grid lines from `first` through `last` (beats), at most `limit` of
    /// them (the first ones); empty when off. For drawing: O(lines).
    public func lines(from first: Double, through last: Double, limit: Int = 4096) -> [BeatRational] {
        guard let step, first.isFinite, last.isFinite, last >= first else { return [] }
        var out: [BeatRational] = []
        var line = SnapGrid.multiple(of: step, for: first, rounding: .up)
        while out.count < limit, line.approximateValue <= last {
            out.append(line)
            guard let following = line.adding(step) else { break }
            line = following
        }
        return out
    }

    /// `k * step` for the `k` that `beat / step` rounds to.
    static func multiple(of step: BeatRational, for beat: Double, rounding: FloatingPointRoundingRule) -> BeatRational {
        guard beat.isFinite else { return .zero }
        let clamped = Swift.min(Swift.max(beat, -2_000_000), 2_000_000)
        let steps = (clamped * Double(step.denominator) / Double(step.numerator)).rounded(rounding)
        return step.multiplied(by: Int64(steps)) ?? .zero
    }
}
