/// A position report whose beat is only a floor of the host's beat at its
/// exact `time:frame` (timing contract §1, rule 1): the host says "somewhere
/// in `[lowest, lowest + width)`", and its frame says exactly where.
///
/// Two shapes are recognised, by their content and never by a host's name:
///
/// - **Whole-beat report** (Qtractor 0.9 and its current master): `barBeat`
///   equal to `bar × beatsPerBar` (Qtractor sends the beat at which the bar
///   starts, not the position within it) and `beat` a whole number from 1 to
///   `beatsPerBar` (the beat of the bar the block starts in, counted from 1).
///   The host's beat lies in `[bar × beatsPerBar + beat - 1, ... + 1)`.
/// - **Tick-floor report** (MusE 4): `beat` within 1/1920 beat of
///   `bar × beatsPerBar + barBeat` (both keys say the same position), both
///   cut down to the host's tick grid. The host's beat lies in
///   `[bar × beatsPerBar + barBeat, ... + 1/16)`: a tick grid is finer than
///   the correction band of §4.
///
/// No other host's report has either shape: Ardour and jalv send no `beat`;
/// Carla's `beat` is the beat within the bar, so it agrees with
/// `bar × beatsPerBar + barBeat` only in bar 0, where both readings give the
/// same beat, and its `barBeat` equals `bar × beatsPerBar` only at beat 0 of
/// bar 0, where its `beat` is 0, not 1 or more. A report that follows the
/// LV2 definitions (`beat` counts from the start of the timeline) is never a
/// whole-beat report, since there `beat` would be `2 × bar × beatsPerBar`.
///
/// Value type, O(1), allocation-free and `@_noLocks`: built on the audio thread.
public struct FloorReport: Sendable, BitwiseCopyable {
    /// The two shapes.
    public enum Shape: Sendable, Equatable, BitwiseCopyable {
        case wholeBeat
        case tickFloor
    }

    /// Beats on either side of the range that still count as inside: one tick
    /// of Qtractor's default 960 a beat. Qtractor rounds its tick count to the
    /// nearest tick (so its whole beat can be half a tick ahead) and computes
    /// it in 32-bit floats; MusE's float `barBeat` carries ~1e-6 beat.
    public static var marginBeats: Double { 1.0 / 960.0 }
    /// Width of a tick-floor report's range, in beats (the correction band of §4).
    public static var tickFloorWidthBeats: Double { 1.0 / 16.0 }

    public let shape: Shape
    /// The floor: the least beat the host can be at.
    public let lowest: BeatPosition
    /// The range's width in beats: 1 for a whole-beat report, 1/16 for a tick floor.
    public let widthBeats: Double

    /// The report's floor, when `update` has one of the two shapes; `bar` and
    /// `beatsPerBar` are the values in force after the update (sent or kept).
    @_noLocks
    public init?(_ update: PositionUpdate, bar: Double, beatsPerBar: Double) {
        guard update.frame != nil, update.bar != nil, let barBeat = update.barBeat, let beat = update.beat else { return nil }
        let barStart = bar * beatsPerBar
        let limit = TransportClock.beatLimit
        guard barStart.magnitude <= limit, barBeat.magnitude <= limit, beat.magnitude <= limit,
            let start = BeatPosition(barStart), let within = BeatPosition(barBeat), let reportedBeat = BeatPosition(beat)
        else { return nil }
        if barBeat == barStart, beat >= 1, beat <= beatsPerBar, Double(BeatPosition.floorToInt64(beat)) == beat {
            guard let beatOfBar = BeatPosition(beat - 1) else { return nil }
            shape = .wholeBeat
            lowest = start + beatOfBar
            widthBeats = 1
            return
        }
        let sum = start + within
        if reportedBeat.beats(since: sum).magnitude <= TransportClock.repeatBandBeats {
            shape = .tickFloor
            lowest = sum
            widthBeats = FloorReport.tickFloorWidthBeats
            return
        }
        return nil
    }

    /// True when `beat` lies in `[lowest - margin, lowest + width + margin)`.
    @_noLocks
    public func admits(_ beat: BeatPosition) -> Bool {
        let d = beat.beats(since: lowest)
        return d >= -FloorReport.marginBeats && d < widthBeats + FloorReport.marginBeats
    }
}
