import CCLAP
import TactusEngine

/// A CLAP host's transport (`process->transport`, a `CLAP_EVENT_TRANSPORT`
/// event) as one of §1's position reports: timing contract §11.
///
/// The mapping depends on the one struct alone (reading (t)): the same
/// transport always gives the same update. Pure, O(1), allocation- and
/// lock-free: called on the audio thread by `process()`.
public enum TransportReading {
    /// The update a report `t` makes (§11.2): speed always; the tempo in the
    /// meter's beats when `CLAP_TRANSPORT_HAS_TEMPO` is set; with
    /// `CLAP_TRANSPORT_HAS_BEATS_TIMELINE`, the running `beat` from
    /// `song_pos_beats` and `beatsPerBar`; with either, the `beatUnit` those
    /// beats are counted in (the meter's `d`, which MIDI clock needs: §12.1,
    /// reading (s)). Never a `frame` key, so never a floor report.
    /// The beats are the host's fixed point values exactly for a power-of-two
    /// denominator (§11.3).
    @_noLocks
    public static func update(_ t: clap_event_transport_t) -> PositionUpdate {
        let meter = Meter(t)
        var update = PositionUpdate()
        let playing = t.flags & CLAP_TRANSPORT_IS_PLAYING.rawValue != 0
        let inPreRoll = t.flags & CLAP_TRANSPORT_IS_WITHIN_PRE_ROLL.rawValue != 0
        update.speed = playing && !inPreRoll ? 1 : 0
        if t.flags & CLAP_TRANSPORT_HAS_TEMPO.rawValue != 0 {
            // CLAP's tempo counts quarter notes a minute; d / 4 is exact for a power of two.
            update.beatsPerMinute = t.tempo * Double(meter.denominator) / 4
        }
        if t.flags & CLAP_TRANSPORT_HAS_BEATS_TIMELINE.rawValue != 0 {
            // The running beat (rule 3); bar_start and bar_number are not read (reading (u)).
            update.beatsPerBar = Double(meter.numerator)
            update.beat = meter.beats(quarterFixedPoint: t.song_pos_beats)
        }
        if update.beatsPerMinute != nil || update.beat != nil { update.beatUnit = Double(meter.denominator) }
        return update
    }
}

/// The meter of one CLAP report (§11.2): `tsig_num`/`tsig_denom` when the host
/// gives them, else 4/4 (reading (t)); converts CLAP's quarter notes into the
/// meter's beats, which are the beats an LV2 host reports at the same place.
struct Meter {
    /// Beats a bar (1 ... 65535).
    let numerator: Int64
    /// The note value of a beat (1 ... 65535; 4 is a quarter note).
    let denominator: Int64

    @_noLocks
    init(_ t: clap_event_transport_t) {
        if t.flags & CLAP_TRANSPORT_HAS_TIME_SIGNATURE.rawValue != 0, t.tsig_num >= 1, t.tsig_denom >= 1 {
            numerator = Int64(t.tsig_num)
            denominator = Int64(t.tsig_denom)
        } else {
            numerator = 4
            denominator = 4
        }
    }

    /// `q × d / 2^33`: `q` quarter notes in fixed point (2^31 each) as beats of
    /// the meter. For a power-of-two `d` every step scales a double by a power
    /// of two, exact while `|q| < 2^53` (§11.3); otherwise one rounding.
    @_noLocks
    func beats(quarterFixedPoint q: Int64) -> Double {
        let scale = 0x1p-33  // 1 / (2^31 × 4)
        if denominator & (denominator - 1) == 0 { return Double(q) * Double(denominator) * scale }
        let (product, overflow) = q.multipliedReportingOverflow(by: denominator)
        return overflow ? Double(q) * Double(denominator) * scale : Double(product) * scale
    }
}
