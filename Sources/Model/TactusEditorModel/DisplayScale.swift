import TactusEngine
import TactusModel

/// How many device pixels a logical pixel of the editor takes: the host's
/// `ui:scaleFactor` (LV2 options; Ardour and Carla give it on HiDPI
/// screens), 1 when the host gives none.
///
/// The editor's model lays everything out in logical pixels; the UI draws
/// at `factor` and divides the pointer's device pixels by it, so that what
/// is drawn and what is hit stay the same at any scale.
///
/// Value type; O(1).
public struct DisplayScale: Equatable, Sendable {
    /// Device pixels per logical pixel, within `range`.
    public let factor: Double

    /// The scales honoured; a host's value outside is brought to the nearest end.
    public static var range: ClosedRange<Double> { 0.5...4 }

    /// The host's value; nil, not finite, or not above 0: 1.
    public init(hostValue: Double?) {
        guard let v = hostValue, v.isFinite, v > 0 else {
            factor = 1
            return
        }
        factor = Swift.min(Swift.max(v, DisplayScale.range.lowerBound), DisplayScale.range.upperBound)
    }

    /// A pointer position (device pixels) in the model's pixels.
    public func logical(_ device: Double) -> Double { device / factor }

    /// A size in the model's pixels as whole device pixels (at least 1).
    public func device(_ logical: Double) -> Int32 {
        let d = (logical * factor).rounded()
        return Int32(Swift.min(Swift.max(d, 1), 32767))
    }
}
