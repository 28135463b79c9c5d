import TactusEngine
import TactusModel

/// The ruler's marks: bars counted by the host's meter (`beatsPerBar`, 4
/// until the plugin says otherwise), from bar 1 at beat 0 as musicians
/// count, thinned out as the zoom narrows so that lines stay apart and
/// numbers do not overlap.
///
/// A bar line is drawn every `barStep` bars (1, 2, 4, 8, ...: the fewest
/// that keep `minimumLineSpacing` pixels between lines), numbered every
/// `labelStep` bars (a multiple of `barStep` at least `minimumLabelSpacing`
/// apart); beat lines inside bars appear from `minimumLineSpacing` pixels a
/// beat, numbered `bar.beat` from `beatLabelPixels`.
///
/// Pure; O(marks), at most `limit` marks.
public enum BarRuler {
    public static var minimumLineSpacing: Double { 6 }
    public static var minimumLabelSpacing: Double { 40 }
    public static var beatLabelPixels: Double { 28 }

    /// One line of the ruler and the grid.
    public struct Mark: Equatable, Sendable {
        /// Where (beats from the pattern's start).
        public var beat: Double
        /// The bar it is in, from 1.
        public var bar: Int
        /// The beat in its bar, from 1 (1: a bar line).
        public var beatInBar: Int
        /// Whether a number goes beside it.
        public var labelled: Bool

        public var isBar: Bool { beatInBar == 1 }

        public init(beat: Double, bar: Int, beatInBar: Int, labelled: Bool) {
            self.beat = beat
            self.bar = bar
            self.beatInBar = beatInBar
            self.labelled = labelled
        }
    }

    /// How many bars from one drawn bar line to the next.
    public static func barStep(beatsPerBar: Double, pixelsPerBeat: Double) -> Int {
        step(beatsPerBar * pixelsPerBeat, atLeast: minimumLineSpacing, from: 1)
    }

    /// How many bars from one numbered bar line to the next.
    public static func labelStep(beatsPerBar: Double, pixelsPerBeat: Double) -> Int {
        step(beatsPerBar * pixelsPerBeat, atLeast: minimumLabelSpacing, from: barStep(beatsPerBar: beatsPerBar, pixelsPerBeat: pixelsPerBeat))
    }

    /// The marks from `first` through `last` (beats).
    public static func marks(from first: Double, through last: Double, beatsPerBar rawBeatsPerBar: Double, pixelsPerBeat: Double, limit: Int = 2048) -> [Mark] {
        guard first.isFinite, last.isFinite, last >= first, pixelsPerBeat.isFinite, pixelsPerBeat > 0 else { return [] }
        let beatsPerBar = sane(rawBeatsPerBar)
        let bars = barStep(beatsPerBar: beatsPerBar, pixelsPerBeat: pixelsPerBeat)
        let labels = labelStep(beatsPerBar: beatsPerBar, pixelsPerBeat: pixelsPerBeat)
        let showBeats = bars == 1 && pixelsPerBeat >= minimumLineSpacing
        var out: [Mark] = []
        // The first bar line drawn at or before `first`.
        var bar = Int(Swift.max(0, (first / beatsPerBar).rounded(.down)).clamped(to: 0...1e9)) / bars * bars
        while out.count < limit {
            let start = Double(bar) * beatsPerBar
            if start > last { break }
            if start >= first { out.append(Mark(beat: start, bar: bar + 1, beatInBar: 1, labelled: bar % labels == 0)) }
            if showBeats {
                var b = 1
                while Double(b) < beatsPerBar, out.count < limit {
                    let beat = start + Double(b)
                    if beat > last { break }
                    if beat >= first { out.append(Mark(beat: beat, bar: bar + 1, beatInBar: b + 1, labelled: pixelsPerBeat >= beatLabelPixels)) }
                    b += 1
                }
            }
            bar += bars
        }
        return out
    }

    /// A meter a ruler can count by: finite, at least 1/16 beat, at most 1024 beats a bar (else 4).
    public static func sane(_ beatsPerBar: Double) -> Double {
        beatsPerBar.isFinite && beatsPerBar >= 1.0 / 16 && beatsPerBar <= 1024 ? beatsPerBar : 4
    }

    static func step(_ pixelsPerBar: Double, atLeast spacing: Double, from start: Int) -> Int {
        var n = Swift.max(start, 1)
        while Double(n) * pixelsPerBar < spacing && n < 1 << 24 { n *= 2 }
        return n
    }
}

extension Double {
    fileprivate func clamped(to range: ClosedRange<Double>) -> Double { Swift.min(Swift.max(self, range.lowerBound), range.upperBound) }
}
