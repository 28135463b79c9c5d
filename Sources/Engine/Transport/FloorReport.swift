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
/// The tick-floor shape is also the shape of every report of a host that
/// follows the LV2 definitions and sends every key (Element, JUCE hosts):
/// its `beat` is the running beat, `bar × beatsPerBar + barBeat`. Such a host
/// is told apart by its `beat`: MusE's lies on one of its tick grids
/// (`liesOnATickGrid`), an exact host's does not, as soon as it has moved
/// off a whole tick. `TransportClock` reads no report as a floor once a
/// report with all four keys has had its `beat` off every grid (§1).
///
/// Carla's `beat` is the beat of the bar from 0, so it agrees with
/// `bar × beatsPerBar + barBeat` only in bar 0 within 1/1920 beat after a
/// whole beat, and its `barBeat` equals `bar × beatsPerBar` only at beat 0 of
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
    public static var marginBeats: Double { @_noLocks get { 1.0 / 960.0 } }
    /// Width of a tick-floor report's range, in beats (the correction band of §4).
    public static var tickFloorWidthBeats: Double { @_noLocks get { 1.0 / 16.0 } }

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

    /// The divisions of a beat MusE can be set to (`genset.cpp`: 48, 96, 120,
    /// 192, 240, 384 (its default), 480, 768, 960, 1536, 1920, 3072, 3840,
    /// 6144, 7680, 12288 and 15360 ticks a beat) each divide one of these two:
    /// a beat on any of its grids is on the grid of 12288 or of 15360.
    public static var tickGrids: (Double, Double) { @_noLocks get { (12288, 15360) } }

    /// True when `beat` lies on a tick grid MusE can be set to, as MusE
    /// computes it: `double(bar × z + beat) + double(tick) / double(division)`,
    /// a whole number plus a rounded fraction. It is on the grid of `d` ticks
    /// a beat when `beat × d` is within `(|beat × d| + d) × 2^-50` of a whole
    /// number: four times the rounding of those two operations and of the
    /// product, 1.4e-11 tick near beat 0, 0.06 tick at 2^32 beats.
    @_noLocks @inline(__always)
    public static func liesOnATickGrid(_ beat: Double) -> Bool {
        let grids = FloorReport.tickGrids
        return liesOnGrid(beat, ticksPerBeat: grids.0) || liesOnGrid(beat, ticksPerBeat: grids.1)
    }

    @_noLocks @inline(__always)
    static func liesOnGrid(_ beat: Double, ticksPerBeat d: Double) -> Bool {
        let ticks = beat * d
        // Far beyond any beat §6 accepts (2^32), every double is a whole number of ticks.
        guard ticks.magnitude < 0x1p62 else { return ticks == ticks }
        let nearest = Double(BeatPosition.floorToInt64(ticks + 0.5))
        return (ticks - nearest).magnitude <= (ticks.magnitude + d) * 0x1p-50
    }

    /// True when `beat` lies in `[lowest - margin, lowest + width + margin)`.
    /// The edges carry the band edges' floating-point slack (timing contract,
    /// reading (m)): a beat exactly on one is taken as exact arithmetic takes
    /// it. Whole frames make that common: at 96 kHz and 60 bpm the margin is
    /// exactly 100 frames (the 24-hour soak met one at beat 65804).
    @_noLocks
    public func admits(_ beat: BeatPosition) -> Bool {
        let d = beat.beats(since: lowest)
        let slack = TransportClock.bandToleranceBeats
        return d >= -FloorReport.marginBeats - slack && d < widthBeats + FloorReport.marginBeats - slack
    }
}
