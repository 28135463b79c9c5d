/// What a position update did to the transport (timing contract §4).
public enum TransportChange: Sendable, Equatable, BitwiseCopyable {
    /// Rejected as a whole (§6): NaN, infinite or absurd values, or a key of the wrong type.
    case ignored
    /// An update while stopped that leaves the transport stopped (it may move the position).
    case stoppedUpdate
    /// The transport started rolling: play resumes at the update's beat, like a jump.
    case start
    /// The transport stopped: every sounding note ends here.
    case stop
    /// Within 1/1920 beat of where we are: the position stays, tempo and speed apply.
    case `repeat`
    /// Between 1/1920 and 1/16 beat off: the host is the clock; nothing is cut or replayed.
    case correction
    /// More than 1/16 beat off (a seek, or the host's loop wrapping): sounding notes are cut.
    case jump
}

/// The host's transport as the plugin knows it: the last value of every key,
/// the anchor of the latest update, and extrapolation between updates.
///
/// Implements the timing contract's §1 (key rules), §2 (extrapolation), §4
/// (classification of updates) and §6 (bad updates are ignored whole). Beats
/// come from the host's own keys (`bar`/`barBeat`, else `beat`), never rebuilt
/// from frame × tempo while those are available, except where rule 1 of §1
/// finds them to be a mere floor of the host's beat (`FloorReport`), which
/// it stops doing for good once the host has shown itself exact
/// (`hostIsExact`).
///
/// Value type; every method is O(1), allocation-free and `@_noLocks`: it is
/// owned and used by the audio thread.
public struct TransportClock: Sendable, BitwiseCopyable {
    /// Updates closer than this to the extrapolated beat are repeats (§4).
    @inlinable public static var repeatBandBeats: Double { 1.0 / 1920.0 }
    /// Updates closer than this (and beyond the repeat band) are corrections (§4).
    public static var correctionBandBeats: Double { @_noLocks get { 1.0 / 16.0 } }
    /// Tempo above this (bpm) is absurd (§6).
    public static var maximumTempo: Double { @_noLocks get { 1000 } }
    /// Speed above this (in magnitude) is absurd (§6).
    public static var maximumSpeed: Double { @_noLocks get { 1000 } }
    /// Floating-point slack on the band edges, in beats: a host whose update lies
    /// exactly on an edge (integer frames make that common: 12.5 frames at
    /// 24000 frames per beat is exactly 1/1920 beat) is classified as exact
    /// arithmetic would, though our doubles carry ~1e-15 beat of noise.
    public static var bandToleranceBeats: Double { @_noLocks get { 1e-12 } }
    /// The largest `time:beatUnit` taken (a 1/256 note a beat).
    public static var maximumBeatUnit: Double { @_noLocks get { 256 } }
    /// A beat position beyond ± this is absurd (§6).
    @inlinable public static var beatLimit: Double { 4_294_967_296 }  // 2^32

    /// Frames per second, fixed at instantiation.
    public let sampleRate: Double

    /// Last value of `time:beatsPerMinute` (initially 120).
    public private(set) var beatsPerMinute: Double = 120
    /// Last value of `time:speed` (initially 0: stopped).
    public private(set) var speed: Double = 0
    /// Last value of `time:beatsPerBar` (initially 4).
    public private(set) var beatsPerBar: Double = 4
    /// Last usable value of `time:beatUnit` (initially 4: a beat is a quarter
    /// note). Only the MIDI clock reads it (§12.1); a value that is not a
    /// whole number from 1 to `maximumBeatUnit` is passed over (reading (s)).
    public private(set) var beatUnit: Double = 4
    /// Last value of `time:bar` (initially 0).
    public var bar: Double { @_noLocks get { _bar } }
    @usableFromInline var _bar: Double = 0

    /// Absolute frame of the update in force.
    public private(set) var anchorFrame: Int64 = 0
    /// Beat at `anchorFrame`.
    public private(set) var anchorBeat: BeatPosition = .zero
    /// Rolling: speed > 0 and tempo > 0. Negative speed is treated as stopped.
    public private(set) var isRolling = false
    /// `60 R / (s T)` while rolling, to 106 bits; meaningless while stopped.
    public private(set) var framesPerBeat = DoubleDouble(0)
    /// `s T / (60 R)` while rolling, to 106 bits; 0 while stopped (the position is frozen).
    public private(set) var beatsPerFrame = DoubleDouble(0)
    /// `time:frame` of the last update applied, if it carried one (§1, rule 1: a
    /// host whose frame advanced exactly as ours did has not moved).
    public var lastHostFrame: Double? { @_noLocks get { _lastHostFrame } }
    @usableFromInline var _lastHostFrame: Double?
    /// Absolute frame at which that update arrived.
    public var lastHostFrameArrival: Int64 { @_noLocks get { _lastHostFrameArrival } }
    @usableFromInline var _lastHostFrameArrival: Int64 = 0
    /// An update with `frame`, `bar`, `barBeat` and `beat` has had its `beat`
    /// on no tick grid MusE can be set to (`FloorReport.liesOnATickGrid`)
    /// since the last reset: the host sends exact beats (Element, JUCE hosts),
    /// and no report of it is read as a floor report again (§1, rule 1) until
    /// deactivation, which resets the clock.
    public var hostIsExact: Bool { @_noLocks get { _hostIsExact } }
    @usableFromInline var _hostIsExact = false

    /// A stopped transport at beat 0, 120 bpm, 4/4, for a positive finite `sampleRate`.
    @_noLocks
    public init(sampleRate: Double) {
        precondition(sampleRate.isFinite && sampleRate > 0, "sample rate must be positive")
        self.sampleRate = sampleRate
    }

    /// Forgets every update: back to the initial stopped state (LV2 `activate`).
    @_noLocks
    public mutating func reset() {
        self = TransportClock(sampleRate: sampleRate)
    }

    /// The beat at absolute frame `frame` (§2). Frozen while stopped.
    @_noLocks
    public func beat(atFrame frame: Int64) -> BeatPosition {
        guard isRolling else { return anchorBeat }
        return anchorBeat.advanced(by: DoubleDouble(Double(frame &- anchorFrame)) * beatsPerFrame)
    }

    /// `x` of §3: the exact offset in frames of `beat` from the anchor, while
    /// rolling, to 106 bits (a double would be a frame off near rounding edges
    /// when the anchor is hours old).
    @_noLocks @inline(__always)
    public func exactOffset(of beat: BeatPosition) -> DoubleDouble {
        beat.exactBeats(since: anchorBeat) * framesPerBeat
    }

    /// The frame at which an event at `beat` is emitted (§3), while rolling.
    @_noLocks @inline(__always)
    public func frame(of beat: BeatPosition) -> Int64 {
        anchorFrame &+ FrameRule.frameOffset(exactOffset: exactOffset(of: beat))
    }

    /// Applies an update arriving at absolute frame `frame` and says what it did (§1, §4, §6).
    @_noLocks
    public mutating func apply(_ update: PositionUpdate, atFrame frame: Int64) -> TransportChange {
        if applyIfCertainRepeat(update, atFrame: frame) { return .repeat }
        return applyInFull(update, atFrame: frame)
    }

    /// Margin, in beats per beat of magnitude, that covers the rounding of the
    /// quick repeat test's doubles (a few ulps, 2^-52 each) many times over.
    @inlinable static var quickTestRelativeMargin: Double { 0x1p-40 }

    /// Applies `update` and returns true only when the full path of `apply`
    /// would find it a repeat (§4) with nothing to change but the keys it
    /// repeats: rolling before and after at the same tempo, speed and meter,
    /// not a floor report (§1 rule 1), a beat from `bar`/`barBeat` or `beat`
    /// whose distance from the extrapolated beat, computed in doubles, is
    /// inside the repeat band by more than the doubles' error. It then leaves
    /// the clock exactly as the full path would: the anchor and the rates
    /// untouched (every beat stays on its frame), the bar and the host's frame
    /// taken. False changes nothing and says nothing: the full path decides,
    /// as it does for the report that first shows a host exact (§1 rule 1).
    ///
    /// Most updates from a host that reports every block (Ardour, Carla,
    /// Element) are such repeats: decided here in a few comparisons; MusE's
    /// and Qtractor's, floor reports, never are. Inlinable, so that a
    /// wrapper's every-block path has it in line (`Sequencer.applyIfCertainRepeat`).
    @_transparent @_noLocks
    public mutating func applyIfCertainRepeat(_ update: PositionUpdate, atFrame frame: Int64) -> Bool {
        guard isRolling, !update.hasInvalidKey else { return false }
        if let t = update.beatsPerMinute, t != beatsPerMinute { return false }
        if let s = update.speed, s != speed { return false }
        if let b = update.beatsPerBar, b != beatsPerBar { return false }
        if let u = update.beatUnit, u != beatUnit { return false }
        if let f = update.frame, !f.isFinite { return false }
        let limit = TransportClock.beatLimit
        var newBar = bar
        let reported: Double
        if let barBeat = update.barBeat {
            if let b = update.bar { newBar = b }
            let barStart = newBar * beatsPerBar
            // Also false when the bar or barBeat is not finite (a NaN compares false).
            guard barStart.magnitude <= limit, barBeat.magnitude <= limit else { return false }
            if let beat = update.beat {
                guard beat.isFinite else { return false }
                // Both keys, with a frame and a bar, may make a floor report (§1 rule 1)
                // until the host has shown itself exact. A beat off every tick grid shows
                // that: the full path takes note (once); on a grid, only a report clearly
                // of neither shape is decided here.
                if update.frame != nil && update.bar != nil && !_hostIsExact {
                    if !FloorReport.liesOnATickGrid(beat) || barBeat == barStart { return false }
                    let sum = barStart + barBeat
                    let slack = TransportClock.repeatBandBeats + (sum.magnitude + beat.magnitude + 1) * TransportClock.quickTestRelativeMargin
                    if (beat - sum).magnitude <= slack { return false }
                }
            }
            reported = barStart + barBeat
        } else if let beat = update.beat {
            if let b = update.bar {
                guard b.isFinite else { return false }
                newBar = b
            }
            reported = beat  // a beat that is not finite fails the next test
        } else {
            return false
        }
        guard reported.magnitude < limit - 1 else { return false }
        let elapsed = Double(frame &- anchorFrame) * beatsPerFrame.hi
        let anchor = anchorBeat.approximateValue
        let extrapolated = anchor + elapsed
        let margin = (reported.magnitude + anchor.magnitude + elapsed.magnitude + 1) * TransportClock.quickTestRelativeMargin
        guard (reported - extrapolated).magnitude + margin <= TransportClock.repeatBandBeats else { return false }
        _lastHostFrame = update.frame
        _lastHostFrameArrival = frame
        _bar = newBar
        return true
    }

    /// `apply` without the quick repeat test: every update through the exact
    /// path. Public so that tests show both give the same result and state.
    @_noLocks
    public mutating func applyInFull(_ update: PositionUpdate, atFrame frame: Int64) -> TransportChange {
        // §6: one bad value rejects the whole update.
        if update.hasInvalidKey { return .ignored }
        if !TransportClock.isFiniteOrAbsent(update.frame) || !TransportClock.isFiniteOrAbsent(update.speed)
            || !TransportClock.isFiniteOrAbsent(update.bar) || !TransportClock.isFiniteOrAbsent(update.barBeat)
            || !TransportClock.isFiniteOrAbsent(update.beat)
            || !TransportClock.isFiniteOrAbsent(update.beatsPerBar)
            || !TransportClock.isFiniteOrAbsent(update.beatsPerMinute)
        {
            return .ignored
        }
        let tempo = update.beatsPerMinute ?? beatsPerMinute
        let newSpeed = update.speed ?? speed
        let perBar = update.beatsPerBar ?? beatsPerBar
        let newBar = update.bar ?? bar
        guard tempo >= 0, tempo <= TransportClock.maximumTempo else { return .ignored }
        guard newSpeed >= -TransportClock.maximumSpeed, newSpeed <= TransportClock.maximumSpeed else { return .ignored }
        guard perBar > 0, perBar <= TransportClock.beatLimit else { return .ignored }

        let extrapolated = beat(atFrame: frame)
        // §1 rule 1: a report with all four keys whose beat lies on no tick grid MusE
        // can be set to comes from a host that sends exact beats; from it on, that
        // host's reports are read by rule 2 (or 3), as if `beat` were absent.
        var exact = _hostIsExact
        if !exact, update.frame != nil, update.bar != nil, update.barBeat != nil, let beat = update.beat {
            exact = !FloorReport.liesOnATickGrid(beat)
        }
        let reported: BeatPosition
        if !exact, let floor = FloorReport(update, bar: newBar, beatsPerBar: perBar), let hostFrame = update.frame {
            // §1 rule 1: the host's beat is only a floor; its frame is exact. If the
            // frame continued ours, the host has not moved and our beat is its beat;
            // else, if its frame is the floor's own frame (within one), the floor is
            // where it is; else a host whose tempo has been T since its frame 0 is at
            // frame × T / 60R; else all we know is the floor.
            var continued = false
            if isRolling && speed == 1, let last = lastHostFrame {
                continued = TransportClock.hostFrameContinues(from: last, to: hostFrame, elapsed: frame &- lastHostFrameArrival)
            }
            let fromFrame = BeatPosition.zero.advanced(
                by: DoubleDouble.twoProduct(hostFrame, tempo) / DoubleDouble.twoProduct(60, sampleRate))
            if continued && floor.admits(extrapolated) {
                reported = extrapolated
            } else if TransportClock.isWithinAFrame(fromFrame, of: floor.lowest, tempo: tempo, sampleRate: sampleRate) {
                reported = floor.lowest
            } else if floor.admits(fromFrame) {
                reported = fromFrame
            } else {
                reported = floor.lowest
            }
        } else if let barBeat = update.barBeat {
            // bar × beatsPerBar is exact in a double for any bar a host can send
            // (a float times an integer below 2^29); the sum is kept split, so
            // the host's binary values are taken exactly (§3).
            let barStart = newBar * perBar
            guard barStart.magnitude <= TransportClock.beatLimit, barBeat.magnitude <= TransportClock.beatLimit,
                let a = BeatPosition(barStart), let b = BeatPosition(barBeat)
            else { return .ignored }
            reported = a + b
        } else if let beat = update.beat {
            guard beat.magnitude <= TransportClock.beatLimit, let b = BeatPosition(beat) else { return .ignored }
            reported = b
        } else if let hostFrame = update.frame {
            let beats = hostFrame * tempo / (60 * sampleRate)
            guard beats.magnitude <= TransportClock.beatLimit, let b = BeatPosition(beats) else { return .ignored }
            reported = b
        } else {
            reported = extrapolated
        }
        // §6 judges the positions a host sends. Without a position key the beat is our own
        // extrapolation, never a reason to ignore the update: a stop stops, however far a
        // fast transport ran (reading (n)).
        let hostSentPosition = update.barBeat != nil || update.beat != nil || update.frame != nil
        guard !hostSentPosition || reported.approximateValue.magnitude <= TransportClock.beatLimit else { return .ignored }

        _lastHostFrame = update.frame
        _lastHostFrameArrival = frame
        _hostIsExact = exact
        let wasRolling = isRolling
        let rateChanged = tempo != beatsPerMinute || newSpeed != speed
        beatsPerMinute = tempo
        speed = newSpeed
        beatsPerBar = perBar
        if let u = update.beatUnit, TransportClock.isUsableBeatUnit(u) { beatUnit = u }
        _bar = newBar
        isRolling = newSpeed > 0 && tempo > 0
        // The rates depend on tempo and speed alone: a host that repeats its
        // position every block (Carla, Ardour) pays the two 106-bit divisions
        // only when one of them changes or the transport starts.
        if isRolling && (rateChanged || !wasRolling) {
            // s T and 60 R are exact as double-doubles; only the quotients round, at 106 bits.
            let beatsPerMinuteAtSpeed = DoubleDouble.twoProduct(newSpeed, tempo)
            let framesPerMinute = DoubleDouble.twoProduct(60, sampleRate)
            framesPerBeat = framesPerMinute / beatsPerMinuteAtSpeed
            beatsPerFrame = beatsPerMinuteAtSpeed / framesPerMinute
        } else if !isRolling {
            framesPerBeat = DoubleDouble(0)
            beatsPerFrame = DoubleDouble(0)
        }

        guard isRolling else {
            anchorFrame = frame
            anchorBeat = reported
            return wasRolling ? .stop : .stoppedUpdate
        }
        guard wasRolling else {
            anchorFrame = frame
            anchorBeat = reported
            return .start
        }
        let offBy = reported.beats(since: extrapolated).magnitude
        if offBy <= TransportClock.repeatBandBeats + TransportClock.bandToleranceBeats {
            // The position stays where we are; only a new rate needs a new anchor
            // (with the same rate the old anchor is the same line, and keeping it
            // avoids re-rounding on hosts that repeat the position every block).
            if rateChanged {
                anchorFrame = frame
                anchorBeat = extrapolated
            }
            return .repeat
        }
        anchorFrame = frame
        anchorBeat = reported
        return offBy <= TransportClock.correctionBandBeats + TransportClock.bandToleranceBeats ? .correction : .jump
    }

    /// Whether `fromFrame` (a host's `frame × T / 60R`) lies less than one frame
    /// at tempo `T` from `floor`: the host's frame is the floor's own frame,
    /// rounded either way (§1 rule 1). A distance of exactly one frame, common
    /// with whole frames per beat, is not within: the slack of 1e-9 frame keeps
    /// the rounding of these doubles (about 1e-16 frame) from deciding it.
    @_noLocks @inline(__always)
    static func isWithinAFrame(_ fromFrame: BeatPosition, of floor: BeatPosition, tempo: Double, sampleRate: Double) -> Bool {
        let frames = fromFrame.exactBeats(since: floor).hi * (60 * sampleRate) / tempo
        return frames.magnitude < 1 - 1e-9
    }

    /// Whether a host's frame went from `last` to `next` while we ran `elapsed`
    /// frames: exactly, to within the precision of a 32-bit float at those frames
    /// (Qtractor forges its frame from a float: exact below 2^24, then to 2, 4, ...).
    @_noLocks @inline(__always)
    public static func hostFrameContinues(from last: Double, to next: Double, elapsed: Int64) -> Bool {
        let precision = (last.magnitude > next.magnitude ? last.magnitude : next.magnitude) * 0x1p-23
        return (next - last - Double(elapsed)).magnitude <= precision
    }

    /// Whether `u` is a beat unit the clock can count in quarter notes: a
    /// whole number from 1 to `maximumBeatUnit` (§12.1, reading (s)).
    @_noLocks @inline(__always)
    public static func isUsableBeatUnit(_ u: Double) -> Bool {
        u >= 1 && u <= maximumBeatUnit && Double(Int64(u)) == u
    }

    @_noLocks @inline(__always)
    static func isFiniteOrAbsent(_ value: Double?) -> Bool {
        guard let value else { return true }
        return value.isFinite
    }
}
