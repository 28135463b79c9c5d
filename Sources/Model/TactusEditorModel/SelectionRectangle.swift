import TactusEngine
import TactusModel

/// The rubber band a Shift-drag on empty grid draws: the beats and keys it
/// spans (pointer beats, not snapped). Notes it touches get selected.
public struct SelectionRectangle: Equatable, Sendable {
    public var firstBeat: Double
    public var lastBeat: Double
    public var lowKey: Int
    public var highKey: Int

    public init(firstBeat: Double, lastBeat: Double, lowKey: Int, highKey: Int) {
        self.firstBeat = firstBeat
        self.lastBeat = lastBeat
        self.lowKey = lowKey
        self.highKey = highKey
    }

    /// Whether `note` overlaps the rectangle: its key within it and its time
    /// span `[start, end]` meeting `[firstBeat, lastBeat]`.
    public func touches(_ note: EditorNote) -> Bool {
        let key = Int(note.key)
        return key >= lowKey && key <= highKey && note.start.approximateValue <= lastBeat && note.approximateEnd >= firstBeat
    }
}
