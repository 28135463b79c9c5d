import CCLAP
import TactusEngine
import TactusOffline
import Testing

import TactusCLAP

/// Timing contract §11: a CLAP host's transport becomes the report an LV2 host
/// sends at the same place, meter and tempo, to the bit.
@Suite("§11 CLAP transport as §1's reports")
struct TransportReadingTests {
    static let quarter: Int64 = 1 << 31  // CLAP_BEATTIME_FACTOR

    /// A CLAP transport at bar `bar` (from 0), `offset` quarter notes (fixed
    /// point) into it, the meter `n/d` having held from 0, `tempo` quarter
    /// notes a minute.
    static func transport(
        bar: Int32, offsetFixed: Int64, n: UInt16, d: UInt16, tempo: Double,
        flags: UInt32 = CLAP_TRANSPORT_HAS_TEMPO.rawValue | CLAP_TRANSPORT_HAS_BEATS_TIMELINE.rawValue
            | CLAP_TRANSPORT_HAS_TIME_SIGNATURE.rawValue | CLAP_TRANSPORT_IS_PLAYING.rawValue
    ) -> clap_event_transport_t {
        var t = clap_event_transport_t()
        t.header.size = UInt32(MemoryLayout<clap_event_transport_t>.size)
        t.header.type = UInt16(CLAP_EVENT_TRANSPORT)
        t.flags = flags
        t.bar_start = Int64(bar) * Int64(n) * (quarter * 4) / Int64(d)
        t.song_pos_beats = t.bar_start + offsetFixed
        t.bar_number = bar
        t.tempo = tempo
        t.tsig_num = n
        t.tsig_denom = d
        return t
    }

    @Test("the worked example of §11.3: 6/8, bar 2, 1.5 quarter notes in, 90 quarter notes a minute")
    func workedExample() {
        let t = Self.transport(bar: 2, offsetFixed: 3 * Self.quarter / 2, n: 6, d: 8, tempo: 90)
        #expect(t.bar_start == 6 * Self.quarter)
        let u = TransportReading.update(t)
        #expect(u == PositionUpdate(speed: 1, beat: 15, beatsPerBar: 6, beatsPerMinute: 180, beatUnit: 8))
    }

    /// The same place as an LV2 host reports it (bar, barBeat, beatsPerBar,
    /// beatsPerMinute, speed: what the plugin's atom reader makes of its
    /// `time:Position`) and as a CLAP transport: the running beat
    /// `bar × n + barBeat` exactly, and the same anchor beat in a clock; the
    /// same when the host leaves its bar fields at 0 (reading (u)).
    @Test("4/4, 3/4, 6/8, 7/8 and 20,000 random meters, tempi and places: the LV2 report's update and beat, exactly")
    func sameBeatAsLV2() {
        var rng = SplitMix64(seed: 31)
        var cases: [(UInt16, UInt16)] = [(4, 4), (3, 4), (6, 8), (7, 8)]
        for _ in 0..<20_000 {
            cases.append((UInt16(1 + rng.next() % 32), UInt16(1) << UInt16(rng.next() % 6)))
        }
        for (index, (n, d)) in cases.enumerated() {
            for _ in 0..<(index < 4 ? 2000 : 1) {
                let bar = Int32(truncatingIfNeeded: Int64(rng.next() % 200_000) - 1000)
                // barBeat = k / 2^m beats, inside the bar; m <= 20 keeps it on CLAP's grid for d <= 32.
                let m = Int(rng.next() % 21)
                let k = Int64(rng.next() % (UInt64(n) << UInt64(m)))
                let barBeat = Double(k) * pow2(-m)
                let offsetFixed = (k * (Self.quarter * 4) / Int64(d)) >> Int64(m)
                // Tempi of the meter's beats up to §6's 1000 bpm, in quarter notes (× 4 / d, exact).
                let tempoQuarters = [120.0, 90, 133.7, 60.5, 999][Int(rng.next() % 5)] * 4 / Double(d)
                let t = Self.transport(bar: bar, offsetFixed: offsetFixed, n: n, d: d, tempo: tempoQuarters)
                let lv2 = PositionUpdate(
                    speed: 1, bar: Double(bar), barBeat: barBeat, beatsPerBar: Double(n), beatsPerMinute: tempoQuarters * Double(d) / 4)
                let clap = TransportReading.update(t)
                let runningBeat = PositionUpdate(
                    speed: 1, beat: Double(bar) * Double(n) + barBeat, beatsPerBar: Double(n), beatsPerMinute: tempoQuarters * Double(d) / 4,
                    beatUnit: Double(d))
                #expect(clap == runningBeat, "\(n)/\(d) bar \(bar) barBeat \(barBeat)")

                var noBars = t
                noBars.bar_start = 0
                noBars.bar_number = 0
                let running = TransportReading.update(noBars)
                let expected = BeatPosition(whole: Int64(bar) * Int64(n) + Int64(barBeat.rounded(.down)), fraction: barBeat - barBeat.rounded(.down))
                for update in [lv2, clap, running] {
                    var clock = TransportClock(sampleRate: 48000)
                    _ = clock.apply(update, atFrame: 1000)
                    #expect(clock.anchorBeat == expected, "\(n)/\(d) bar \(bar) barBeat \(barBeat): \(update)")
                    #expect(clock.beatsPerMinute == tempoQuarters * Double(d) / 4 && clock.isRolling)
                }
                if bar != 0 { #expect(running.beat != nil && running.bar == nil) }
            }
        }
    }

    func pow2(_ e: Int) -> Double { Double(sign: .plus, exponent: e, significand: 1) }

    @Test("§11.2 flags: no beats timeline, no position; no tempo, no tempo; pre-roll and not playing, stopped; no meter, 4/4")
    func flags() {
        let all = Self.transport(bar: 3, offsetFixed: Self.quarter, n: 3, d: 4, tempo: 100)
        var t = all
        t.flags &= ~CLAP_TRANSPORT_HAS_BEATS_TIMELINE.rawValue
        #expect(TransportReading.update(t) == PositionUpdate(speed: 1, beatsPerMinute: 100, beatUnit: 4))
        t = all
        t.flags &= ~CLAP_TRANSPORT_HAS_TEMPO.rawValue
        #expect(TransportReading.update(t) == PositionUpdate(speed: 1, beat: 10, beatsPerBar: 3, beatUnit: 4))
        t = all
        t.flags |= CLAP_TRANSPORT_IS_WITHIN_PRE_ROLL.rawValue
        #expect(TransportReading.update(t).speed == 0)
        t = all
        t.flags &= ~CLAP_TRANSPORT_IS_PLAYING.rawValue
        #expect(TransportReading.update(t).speed == 0)
        // Without a time signature (or with a 0 in it), reading (t): 4/4: quarter note 10 is beat 10.
        t = all
        t.flags &= ~CLAP_TRANSPORT_HAS_TIME_SIGNATURE.rawValue
        #expect(TransportReading.update(t) == PositionUpdate(speed: 1, beat: 10, beatsPerBar: 4, beatsPerMinute: 100, beatUnit: 4))
        t = all
        t.tsig_denom = 0
        #expect(TransportReading.update(t).beatsPerBar == 4)
        // Unused: tempo_inc, the loop, seconds, recording.
        t = all
        t.tempo_inc = 0.5
        t.loop_start_beats = 1
        t.loop_end_beats = 2
        t.song_pos_seconds = 12345
        t.flags |= CLAP_TRANSPORT_IS_LOOP_ACTIVE.rawValue | CLAP_TRANSPORT_IS_RECORDING.rawValue
        #expect(TransportReading.update(t) == TransportReading.update(all))
        // Never a frame key (never a floor report, §1 rule 1).
        #expect(TransportReading.update(all).frame == nil)
    }

    @Test("reading (u): the bar fields are not read: Qtractor's bars from 1, Carla's bar_start in eighths, nonsense, the same beat")
    func barFieldsNotRead() {
        let t = Self.transport(bar: 1, offsetFixed: Self.quarter, n: 6, d: 8, tempo: 120)  // quarter note 4: beat 8 of 6/8
        let expected = PositionUpdate(speed: 1, beat: 8, beatsPerBar: 6, beatsPerMinute: 240, beatUnit: 8)
        #expect(TransportReading.update(t) == expected)
        var qtractor = t
        qtractor.bar_number = 2  // Qtractor 0.9.31 counts bars from 1
        var carla = t
        carla.bar_start = 6 * Self.quarter  // Carla: beatsPerBar × (bar - 1), in eighths, read as quarter notes
        var nonsense = t
        nonsense.bar_start = Int64.min
        nonsense.bar_number = -7
        for u in [qtractor, carla, nonsense] { #expect(TransportReading.update(u) == expected) }
    }

    @Test("§11.3 exact: the fixed point integer comes back from the beat, up to 2^53")
    func exact() {
        var rng = SplitMix64(seed: 113)
        for _ in 0..<100_000 {
            let q = Int64(bitPattern: rng.next()) >> 11  // |q| < 2^52
            let d = UInt16(1) << UInt16(rng.next() % 6)
            var t = Self.transport(bar: 0, offsetFixed: 0, n: 4, d: d, tempo: 120)
            t.song_pos_beats = q
            t.bar_start = 0
            let u = TransportReading.update(t)
            let beat = u.beat!
            #expect(Int64(exactly: beat * 0x1p33 / Double(d)) == q)
        }
    }

    /// A host that sends its transport every block (§11.1) confirms where the
    /// clock already is: the quick repeat test takes it, as for LV2.
    @Test("a transport repeated every block takes the quick repeat path")
    func quickRepeat() {
        var clock = TransportClock(sampleRate: 48000)
        // 120 quarter notes a minute at 48 kHz: 375 frames are 1/64 quarter note, 2^25 in fixed point.
        for n: UInt16 in [4, 3, 6, 7] {
            let d: UInt16 = n == 6 || n == 7 ? 8 : 4
            clock.reset()
            _ = clock.apply(TransportReading.update(Self.transport(bar: 5, offsetFixed: 0, n: n, d: d, tempo: 120)), atFrame: 0)
            let barLength = Int64(n) * Self.quarter * 4 / Int64(d)
            for block in 1..<2000 {
                let fixed = Int64(block) << 25
                let t = Self.transport(bar: Int32(5 + fixed / barLength), offsetFixed: fixed % barLength, n: n, d: d, tempo: 120)
                let quick = clock.applyIfCertainRepeat(TransportReading.update(t), atFrame: Int64(block) * 375)
                #expect(quick, "\(n)/\(d) block \(block)")
            }
        }
    }
}
