import Testing
import TactusEngine
import TactusModel
import TactusOffline

/// The quick repeat test of `TransportClock.apply` (a host that repeats its
/// position every block pays a few comparisons) decides nothing the exact
/// path would decide otherwise (§4): for updates of every shape hosts send,
/// on both sides of the repeat band's edge within a hair, with and without a
/// new rate, both give the same change and leave the clock in the same state.
@Suite("§4 the quick repeat test agrees with the exact path")
struct QuickRepeatTests {
    static func sameState(_ a: TransportClock, _ b: TransportClock) -> Bool {
        a.beatsPerMinute == b.beatsPerMinute && a.speed == b.speed && a.beatsPerBar == b.beatsPerBar && a.bar == b.bar
            && a.beatUnit == b.beatUnit
            && a.anchorFrame == b.anchorFrame && a.anchorBeat == b.anchorBeat && a.isRolling == b.isRolling
            && a.framesPerBeat == b.framesPerBeat && a.beatsPerFrame == b.beatsPerFrame
            && a.lastHostFrame == b.lastHostFrame && a.lastHostFrameArrival == b.lastHostFrameArrival
            && a.hostIsExact == b.hostIsExact
    }

    @Test("400,000 updates near the band edges: the same change and the same clock as the exact path")
    func quickAndExactAgree() {
        var rng = SplitMix64(seed: 16)
        func unit() -> Double { Double(rng.next() >> 11) / Double(1 << 53) }
        func pick<T>(_ items: [T]) -> T { items[Int(rng.next() % UInt64(items.count))] }
        let band = TransportClock.repeatBandBeats
        var quickRepeats = 0, quickAllKeys = 0
        // The beat unit (§12.1) from a stream of its own, so the updates are those without it:
        // one in eight carries one, usable or not; a new one must fail the quick test.
        var unitRNG = SplitMix64(seed: 17)
        var unitChanges = 0
        for _ in 0..<2000 {
            let rate = pick([44100.0, 48000, 96000, 22050])
            var clock = TransportClock(sampleRate: rate)
            let tempo = pick([120.0, 133.7, 97.5, 60, 180 + unit()])
            let perBar = pick([4.0, 3, 7, 5.5])
            let startBeat = pick([0.0, 1e3 * unit(), 1e6 * unit(), 4e9 * unit()])
            let bar0 = (startBeat / perBar).rounded(.down)
            _ = clock.apply(
                PositionUpdate(frame: 0, speed: 1, bar: bar0, barBeat: startBeat - bar0 * perBar, beatsPerBar: perBar, beatsPerMinute: tempo),
                atFrame: 0)
            var frame: Int64 = 0
            for _ in 0..<200 {
                frame += Int64(pick([1, 64, 256, 1024, 4096, 48000]))
                let beat = clock.beat(atFrame: frame).approximateValue
                // Off by nothing, by a hair either side of the band edge, inside it, or far.
                let off = pick([0.0, band, -band, band * (1 + 1e-9), band * (1 - 1e-9), band + 1e-12, band - 1e-13, unit() * band, 0.03, 2]) * pick([1.0, -1.0])
                let reported = beat + off
                let bar = (reported / perBar).rounded(.down)
                var update: PositionUpdate
                var allKeys = false
                switch rng.next() % 7 {
                case 0: update = PositionUpdate(frame: Double(frame), speed: 1, bar: bar, barBeat: reported - bar * perBar, beatsPerBar: perBar, beatsPerMinute: tempo)
                case 1: update = PositionUpdate(speed: 1, beat: reported, beatsPerMinute: tempo)
                case 2:  // Carla: the beat within the bar as `beat`
                    update = PositionUpdate(frame: Double(frame), speed: 1, bar: bar, barBeat: reported - bar * perBar, beat: reported - bar * perBar,
                                            beatsPerBar: perBar, beatsPerMinute: tempo)
                case 3:  // MusE: both keys, floored to 384 ticks
                    let floored = (reported * 384).rounded(.down) / 384
                    let fbar = (floored / perBar).rounded(.down)
                    update = PositionUpdate(frame: Double(frame), speed: 1, bar: fbar, barBeat: floored - fbar * perBar, beat: floored,
                                            beatsPerBar: perBar, beatsPerMinute: tempo)
                case 4:  // a new tempo or speed
                    update = PositionUpdate(speed: pick([1.0, 0.5, 0]), bar: bar, barBeat: reported - bar * perBar, beatsPerMinute: pick([tempo, tempo + 1]))
                case 6:  // Element, JUCE hosts: every key, the running beat as `beat`, barBeat a Float
                    update = PositionUpdate(frame: Double(frame), speed: 1, bar: bar, barBeat: Double(Float(reported - bar * perBar)), beat: reported,
                                            beatsPerBar: perBar, beatsPerMinute: tempo)
                    allKeys = true
                default:  // Qtractor: the bar's first beat as barBeat, the whole beat of the bar from 1
                    let beatOfBar = (reported - bar * perBar).rounded(.down) + 1
                    update = PositionUpdate(frame: Double(frame), speed: 1, bar: bar, barBeat: bar * perBar, beat: min(beatOfBar, perBar),
                                            beatsPerBar: perBar, beatsPerMinute: tempo)
                }
                if unitRNG.next() % 8 == 0 {
                    let units: [Double] = [4, 4, 8, 2, 16, 4.5, 0]
                    update.beatUnit = units[Int(unitRNG.next() % UInt64(units.count))]
                }
                var exact = clock
                let expected = exact.applyInFull(update, atFrame: frame)
                let before = clock
                // The quick test alone (what the renderer calls first): taken only for a
                // repeat, which it applies as the full path does; refused, it changes nothing.
                var quick = clock
                if quick.applyIfCertainRepeat(update, atFrame: frame) {
                    if allKeys { quickAllKeys += 1 }
                    if expected != .repeat || !QuickRepeatTests.sameState(quick, exact) {
                        Issue.record("\(update) at frame \(frame) on \(before): quick test took an update the exact path finds \(expected)")
                        return
                    }
                } else if !QuickRepeatTests.sameState(quick, before) {
                    Issue.record("\(update) at frame \(frame): the quick test refused it but changed the clock")
                    return
                }
                let got = clock.apply(update, atFrame: frame)
                if got != expected || !QuickRepeatTests.sameState(clock, exact) {
                    Issue.record("\(update) at frame \(frame) on \(before): quick \(got), exact \(expected)")
                    return
                }
                if got == .repeat && before.anchorFrame == clock.anchorFrame { quickRepeats += 1 }
                if clock.beatUnit != before.beatUnit { unitChanges += 1 }
                if !clock.isRolling {
                    _ = clock.apply(PositionUpdate(speed: 1, beatsPerMinute: tempo), atFrame: frame)
                }
            }
        }
        #expect(quickRepeats > 50_000)
        #expect(unitChanges > 10_000)
        // The all-keys host's repeats take the quick path (once a beat off the tick grids has shown it exact).
        #expect(quickAllKeys > 5_000)
    }

    @Test("an all-keys host that repeats its position every block takes the quick path in every block but its first two")
    func allKeysHostTakesTheQuickPath() {
        for (rate, tempo) in [(48000.0, 120.0), (44100, 133.7), (96000, 97.0)] {
            var clock = TransportClock(sampleRate: rate)
            var quick = 0, full = 0
            for block in 0..<20_000 {
                let frame = Int64(block * 256)
                let beat = Double(frame) * tempo / (60 * rate)
                let bar = (beat / 4).rounded(.down)
                let update = PositionUpdate(frame: Double(frame), speed: 1, bar: bar, barBeat: Double(Float(beat - bar * 4)), beat: beat,
                                            beatsPerBar: 4, beatsPerMinute: tempo)
                if clock.applyIfCertainRepeat(update, atFrame: frame) { quick += 1 } else {
                    full += 1
                    #expect(clock.applyInFull(update, atFrame: frame) == (block == 0 ? .start : .repeat))
                }
            }
            #expect(clock.hostIsExact)
            // Block 0 starts the transport; block 1, the first beat off the tick grids, shows the host
            // exact, through the full path; from then on the quick path decides.
            #expect(full == 2 && quick == 19_998, "\(rate) Hz, \(tempo) bpm: \(full) through the full path")
        }
    }
}
