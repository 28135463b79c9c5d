import TactusEngine
import TactusModel

/// One lane's band in the stacked view (every lane at once): the rows of
/// the keys its notes use, one under the other in lane order.
///
/// Pixels: `top` is from the top of the stack (before scrolling), the band
/// `rows × keyHeight` high, then `LaneStack.gap` to the next band.
public struct LaneBand: Equatable, Sendable {
    /// Index in `EditorDocument.lanes`.
    public var lane: Int
    /// The band's lowest and highest key.
    public var lowKey: Int
    public var highKey: Int
    /// From the stack's top to the band's top row.
    public var top: Double
    /// The height of a row.
    public var keyHeight: Double

    public var rows: Int { highKey - lowKey + 1 }
    /// The rows' height (the gap below excluded).
    public var height: Double { Double(rows) * keyHeight }
    /// Where the next band starts.
    public var bottom: Double { top + height + LaneStack.gap }
}

/// The stacked view's layout: each lane gets a band of the keys from its
/// lowest note to its highest (at least `minimumKeys`, centred on them; a
/// lane without notes gets the octave from C4), rows of one height.
///
/// Pure functions; O(n) in the notes.
public enum LaneStack {
    /// Pixels between two bands.
    public static var gap: Double { 3 }
    /// The fewest keys a band shows.
    public static var minimumKeys: Int { 12 }
    /// The row height (pixels) the stacked view allows.
    public static var keyHeightRange: ClosedRange<Double> { 1...16 }

    /// The bands of `document`'s lanes, top to bottom, with rows `keyHeight` high.
    public static func bands(of document: EditorDocument, keyHeight: Double) -> [LaneBand] {
        var low = [Int](repeating: 128, count: document.lanes.count)
        var high = [Int](repeating: -1, count: document.lanes.count)
        for note in document.notes where low.indices.contains(note.lane) {
            low[note.lane] = Swift.min(low[note.lane], Int(note.key))
            high[note.lane] = Swift.max(high[note.lane], Int(note.key))
        }
        let h = PianoRollGeometry.clamp(keyHeight, keyHeightRange)
        var bands: [LaneBand] = []
        var top = 0.0
        for lane in document.lanes.indices {
            var lo = low[lane], hi = high[lane]
            if hi < lo {
                lo = 60
                hi = 71
            }
            let missing = minimumKeys - (hi - lo + 1)
            if missing > 0 {
                lo -= missing / 2
                hi += missing - missing / 2
                if lo < 0 { hi -= lo; lo = 0 }
                if hi > 127 { lo -= hi - 127; hi = 127 }
            }
            let band = LaneBand(lane: lane, lowKey: lo, highKey: hi, top: top, keyHeight: h)
            bands.append(band)
            top = band.bottom
        }
        return bands
    }

    /// The stack's whole height.
    public static func height(of bands: [LaneBand]) -> Double { bands.last?.bottom ?? 0 }

    /// The whole-pixel row height at which `bands` fit `pixels` (within `keyHeightRange`).
    public static func fittingKeyHeight(_ bands: [LaneBand], in pixels: Double) -> Double {
        let rows = bands.reduce(0) { $0 + $1.rows }
        guard rows > 0, pixels.isFinite else { return 4 }
        let h = ((pixels - Double(bands.count) * gap) / Double(rows)).rounded(.down)
        return PianoRollGeometry.clamp(h, keyHeightRange)
    }
}
