import Testing
import TactusEngine
import TactusModel
import TactusOffline

/// `PositionUpdate` keeps its keys as doubles with presence bits: it must
/// behave exactly as eight `Double?` would (the core's logic and every test
/// compare updates that way).
@Suite("PositionUpdate behaves as eight optional doubles")
struct PositionUpdateTests {
    typealias Keys = (Double?, Double?, Double?, Double?, Double?, Double?, Double?, Double?)

    static func keys(_ u: PositionUpdate) -> Keys {
        (u.frame, u.speed, u.bar, u.barBeat, u.beat, u.beatsPerBar, u.beatsPerMinute, u.beatUnit)
    }

    static func same(_ a: Keys, _ b: Keys) -> Bool {
        a.0 == b.0 && a.1 == b.1 && a.2 == b.2 && a.3 == b.3 && a.4 == b.4 && a.5 == b.5 && a.6 == b.6 && a.7 == b.7
    }

    @Test("set, cleared and read back in any order; == is the optionals' == (NaN, -0 and absent keys included)")
    func behavesAsOptionals() {
        var rng = SplitMix64(seed: 1616)
        let values: [Double?] = [nil, nil, 0, -0.0, 1, -1, 0.7, Double(Float(0.7)), .nan, .infinity, -.infinity, 1e300, 4e9]
        func pick() -> Double? { values[Int(rng.next() % UInt64(values.count))] }
        for _ in 0..<20_000 {
            var u = PositionUpdate(frame: pick(), speed: pick(), bar: pick(), barBeat: pick(), beat: pick(), beatsPerBar: pick(), beatsPerMinute: pick(), beatUnit: pick())
            var expected = PositionUpdateTests.keys(u)
            // A few writes, some of them clearing a key.
            for _ in 0..<Int(rng.next() % 4) {
                let v = pick()
                switch rng.next() % 8 {
                case 0: u.frame = v; expected.0 = v
                case 1: u.speed = v; expected.1 = v
                case 2: u.bar = v; expected.2 = v
                case 3: u.barBeat = v; expected.3 = v
                case 4: u.beat = v; expected.4 = v
                case 5: u.beatsPerBar = v; expected.5 = v
                case 6: u.beatUnit = v; expected.7 = v
                default: u.beatsPerMinute = v; expected.6 = v
                }
            }
            let got = PositionUpdateTests.keys(u)
            #expect(PositionUpdateTests.same(got, expected) || "\(got)" == "\(expected)")  // NaN != NaN: compare the text then
            #expect(u.isEmpty == (expected.0 == nil && expected.1 == nil && expected.2 == nil && expected.3 == nil
                && expected.4 == nil && expected.5 == nil && expected.6 == nil && expected.7 == nil))
            let w = PositionUpdate(frame: expected.0, speed: expected.1, bar: expected.2, barBeat: expected.3, beat: expected.4,
                                   beatsPerBar: expected.5, beatsPerMinute: expected.6, beatUnit: expected.7)
            #expect((u == w) == PositionUpdateTests.same(expected, expected))
            let other = PositionUpdate(frame: pick(), speed: pick(), bar: pick(), barBeat: pick(), beat: pick(), beatsPerBar: pick(), beatsPerMinute: pick(), beatUnit: pick())
            #expect((u == other) == PositionUpdateTests.same(expected, PositionUpdateTests.keys(other)))
        }
    }
}
