import CJack
import TactusEngine

extension jack_position_t {
    /// Fills the bar/beat/tick fields a JACK timebase master publishes for
    /// the position `beats` (beats from the start of the transport, bar 1
    /// beat 1 at beat 0): `valid` = BBT with `tick_double`, `bar`, `beat`,
    /// `tick`, `tick_double`, `bar_start_tick`, `beats_per_bar`, `beat_type`
    /// (`beatType`, 4 a quarter note, 8 an eighth), `ticks_per_beat` and `beats_per_minute`. The one fill of the
    /// project's masters (`tactus jack --master`, `TimebaseMaster`).
    ///
    /// The clamping rule, so that a follower always reads a valid position
    /// (JACK counts bars and beats from 1, ticks from 0 to
    /// `ticks_per_beat - 1`) and nothing traps on the audio thread:
    /// - before beat 0 (or not a number), the position is beat 0: bar 1,
    ///   beat 1, tick 0. JACK's BBT has no bar 0 or negative bars that
    ///   followers agree on, and a transport frame is never negative;
    /// - past the last bar an `Int32` counts, the position is that bar's
    ///   first beat (bar `Int32.max`), instead of a wrapped or trapping bar;
    /// - the bar and beat are the floor of the position (the bar or beat it
    ///   is in); a position that floating-point rounding puts a hair outside
    ///   the bar it divides to (with 1.1 beats to a bar, beat 7.7 divides to
    ///   bar 7.0 but lies 9e-16 before 7 × 1.1) is on that bar's line, so
    ///   `beat` stays within 1...`ceil(beats_per_bar)`, never 0;
    /// - `tick` is the floor of `tick_double`, at most `ticks_per_beat - 1`
    ///   (the tick the position is in: a rounding that reaches the next
    ///   beat's first tick stays on the last tick of this one);
    ///   `tick_double` is the exact fraction, unrounded, so that followers
    ///   need not round (`JackTickDouble`).
    ///
    /// `beatsPerBar` and `ticksPerBeat` are positive. O(1), no allocation.
    @_noLocks
    public mutating func setBBT(beats: Double, beatsPerBar: Double, beatType: Double = 4, ticksPerBeat: Double, beatsPerMinute: Double) {
        let lastBarStart = Double(Int32.max - 1) * beatsPerBar
        let b = beats >= 0 ? (beats < lastBarStart ? beats : lastBarStart) : 0
        var bar = Double(BeatPosition.floorToInt64(b / beatsPerBar))
        var inBar = b - bar * beatsPerBar
        // Within rounding of a bar line: on it.
        if inBar < 0 {
            inBar = 0
        } else if inBar >= beatsPerBar {
            bar += 1
            inBar = 0
        }
        let whole = Double(BeatPosition.floorToInt64(inBar))
        let tickDouble = (inBar - whole) * ticksPerBeat
        let wholeTick = Double(BeatPosition.floorToInt64(tickDouble))
        valid = jack_position_bits_t(rawValue: JackPositionBBT.rawValue | JackTickDouble.rawValue)
        self.bar = Int32(bar) + 1
        self.beat = Int32(whole) + 1
        tick = Int32(wholeTick < ticksPerBeat - 1 ? wholeTick : ticksPerBeat - 1)
        tick_double = tickDouble
        bar_start_tick = bar * beatsPerBar * ticksPerBeat
        beats_per_bar = Float(beatsPerBar)
        beat_type = Float(beatType)
        ticks_per_beat = ticksPerBeat
        beats_per_minute = beatsPerMinute
    }
}
