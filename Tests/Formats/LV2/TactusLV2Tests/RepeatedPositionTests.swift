import CLV2
import Foundation
import LV2Atoms
import Testing
import TactusEngine
import TactusInProcessHost
import TactusModel
import TactusOffline

/// The plugin's fast path reads a position laid out as the last one by
/// comparing bytes and reading the varying values again
/// (`RepeatedPositionLayout`): it must give exactly what the plain path
/// (`PositionReading`, one walk over every key) gives, whatever the bytes.
/// Here both run on what hosts send (the positions recorded from Ardour,
/// Carla, jalv and Qtractor, and the simulated host's every shape:
/// Ardour's tick-rounded barBeat, Carla's atom:Blank with beat-in-bar, MusE's
/// floored beats, Qtractor's whole beats, tempo changes, locates, loops), and
/// on the same objects with values, types, sizes and single bytes changed.
@Suite("The repeated position's fast path agrees with the plain path")
struct RepeatedPositionTests {
    static let map = URIDMap()
    static let uris = URIDTable(map)

    static func probe() -> RepeatedPositionProbe { RepeatedPositionProbe(uris: uris) }

    /// The properties of a `time:Position` object as a host lays them out (`lv2_atom_forge`'s padding).
    static func properties(_ p: HostPosition) -> [UInt8] {
        let body = AtomBody.position(p, uris: uris)
        return Array(body.dropFirst(AtomLayout.objectHeaderBytes))  // id and otype: the decoders read the properties
    }

    /// Every key as its bit pattern (NaN compares equal to itself here), and the invalid-key flag.
    static func bits(_ u: PositionUpdate) -> [UInt64?] {
        [u.frame, u.speed, u.bar, u.barBeat, u.beat, u.beatsPerBar, u.beatsPerMinute].map { $0?.bitPattern }
            + [u.hasInvalidKey ? 1 : 0]
    }

    /// Decodes `objects` in order with one decoder; records any disagreement. Returns how many took the quick path.
    static func check(_ objects: [[UInt8]], _ what: String) -> Int {
        var probe = RepeatedPositionTests.probe()
        var quick = 0
        for (i, object) in objects.enumerated() {
            let r = probe.decode(object)
            if bits(r.decoded) != bits(r.inFull) {
                Issue.record("\(what), object \(i) (\(r.quick ? "quick" : "full")): \(r.decoded) against \(r.inFull); bytes \(object)")
                return quick
            }
            if r.quick { quick += 1 }
        }
        return quick
    }

    /// The same object with one thing changed, the way a host (or a broken one) might.
    static func mutate(_ object: [UInt8], _ rng: inout SplitMix64) -> [UInt8] {
        var o = object
        guard !o.isEmpty else { return o }
        let property = 24 * Int(rng.next() % UInt64(max(1, o.count / 24)))
        switch rng.next() % 8 {
        case 0:  // any byte
            o[Int(rng.next() % UInt64(o.count))] ^= UInt8(1 << (rng.next() % 8))
        case 1:  // a value's low bytes (a varying value, or a tempo, a speed, a meter)
            if property + 16 < o.count { o[property + 16] &+= 1 }
        case 2:  // a value's high bytes (a Float's padding, a Long's sign)
            if property + 23 < o.count { o[property + 20 + Int(rng.next() % 4)] ^= 0x80 }
        case 3:  // the type (Float, Double, Long, Int, or something else)
            let types = [uris.atomFloat, uris.atomDouble, uris.atomLong, uris.atomInt, uris.atomString, 9999]
            let t = types[Int(rng.next() % UInt64(types.count))]
            if property + 16 <= o.count { withUnsafeBytes(of: t) { for k in 0..<4 { o[property + 12 + k] = $0[k] } } }
        case 4:  // the size (too short for the type, longer, past the end)
            let sizes: [UInt32] = [0, 3, 4, 7, 8, 9, 16, UInt32(o.count)]
            let s = sizes[Int(rng.next() % UInt64(sizes.count))]
            if property + 16 <= o.count { withUnsafeBytes(of: s) { for k in 0..<4 { o[property + 8 + k] = $0[k] } } }
        case 5:  // the key (another position key, an unknown one)
            let keys = [uris.timeFrame, uris.timeBar, uris.timeBarBeat, uris.timeBeat, uris.timeSpeed, uris.timeBeatsPerMinute, 4242]
            let k = keys[Int(rng.next() % UInt64(keys.count))]
            if property + 8 <= o.count { withUnsafeBytes(of: k) { for j in 0..<4 { o[property + j] = $0[j] } } }
        case 6:  // cut short, or one byte longer
            o = rng.next() % 2 == 0 ? Array(o.dropLast(Int(rng.next() % 9))) : o + [0]
        default:  // the context word (ignored by the decoder)
            if property + 8 <= o.count { o[property + 4 + Int(rng.next() % 4)] ^= 0xFF }
        }
        return o
    }

    @Test("recorded sessions of Ardour, Carla, jalv and Qtractor: every position decodes the same both ways")
    func recordedPositions() throws {
        let fixtures = URL(fileURLWithPath: String(#filePath[..<#filePath.range(of: "/Tests/")!.lowerBound])).appendingPathComponent("Tests").appendingPathComponent("Fixtures")
        var quick = 0, total = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: fixtures.path).sorted() {
            let file = fixtures.appendingPathComponent(name).appendingPathComponent("session.transport")
            guard let text = try? String(contentsOf: file, encoding: .utf8) else { continue }
            let script = try TransportScript(parsing: text)
            let objects = script.actions.compactMap { action -> [UInt8]? in
                if case .position(let p) = action.action { return RepeatedPositionTests.properties(p) }
                return nil
            }
            quick += RepeatedPositionTests.check(objects, name)
            total += objects.count
        }
        #expect(total > 8000)
        // Carla's positions (every block) and Ardour's (mostly the same layout) take the quick path.
        #expect(quick > total / 3)
    }

    @Test("the simulated host, every key shape, every block, with tempo changes, locates and loops")
    func simulatedHosts() throws {
        var quick = 0, total = 0
        let shapes = [
            "keys bbt\nround-ticks 1920",  // Ardour: barBeat rounded to its ticks
            "keys bbt\natom blank",  // Carla, given the beat in the bar as `beat` below
            "keys beat", "keys frame", "keys qtractor", "keys muse",
            "keys all",  // Element, JUCE hosts: every key, the running beat as `beat`
        ]
        for (n, shape) in shapes.enumerated() {
            for seed in UInt64(1)...6 {
                var rng = SplitMix64(seed: seed * 100 + UInt64(n))
                var lines = ["tactus-transport 1", "rate 48000", "send every-block", shape, "0 tempo 120", "0 play"]
                var frame: Int64 = 0
                for _ in 0..<12 {
                    frame += Int64(1000 + rng.next() % 20_000)
                    switch rng.next() % 5 {
                    case 0: lines.append("\(frame) tempo \(60 + Double(rng.next() % 12000) / 100)")
                    case 1: lines.append("\(frame) locate \(Double(rng.next() % 4000) / 16)")
                    case 2: lines.append("\(frame) loop \(Double(rng.next() % 64)) \(Double(64 + rng.next() % 64))")
                    case 3: lines.append("\(frame) meter \(2 + rng.next() % 6)")
                    default: lines.append("\(frame) speed \(rng.next() % 3 == 0 ? 0 : 1)")
                    }
                }
                lines.append("\(frame + 48_000) end")
                let script = try TransportScript(parsing: lines.joined(separator: "\n") + "\n")
                var host = HostSimulator(script: script, sampleRate: 48000)
                var objects: [[UInt8]] = []
                var start: Int64 = 0
                while start < script.endFrame {
                    let size = Int(1 + rng.next() % 1024)
                    for input in host.inputs(blockStart: start, frameCount: size) {
                        guard case .position(var p) = input.input else { continue }
                        if p.asBlank, let i = p.fields.firstIndex(where: { $0.key == .barBeat }), case .float(let inBar) = p.fields[i].value {
                            // Carla sends the beat within the bar as time:beat too (a Double).
                            p.fields.insert((.beat, .double(Double(inBar))), at: i + 1)
                        }
                        objects.append(RepeatedPositionTests.properties(p))
                    }
                    start += Int64(size)
                }
                quick += RepeatedPositionTests.check(objects, "\(shape), seed \(seed)")
                total += objects.count
            }
        }
        #expect(quick > total / 2)
    }

    @Test("host-shaped objects with a value, a type, a size, a key or any byte changed, in random order")
    func mutatedObjects() {
        var rng = SplitMix64(seed: 16_16)
        let u = RepeatedPositionTests.uris
        var quick = 0, total = 0
        for round in 0..<300 {
            // A layout: some of the keys, in some order, some twice, with an unknown key now and then.
            var fields: [(key: PositionKey, value: WireValue)] = []
            for key in PositionKey.allCases.shuffled(using: &rng) where rng.next() % 4 != 0 {
                fields.append((key, key.usualValue(Double(rng.next() % 1000) / 8)))
            }
            if rng.next() % 5 == 0, let first = fields.first { fields.append((first.key, .double(1.5))) }
            var base = RepeatedPositionTests.properties(HostPosition(fields: fields))
            if rng.next() % 6 == 0 {
                base += AtomBody.object(otype: 0, properties: [AtomProperty(key: 4242, type: u.atomLong, body: AtomBody.long(7))]).dropFirst(8)
            }
            var objects: [[UInt8]] = []
            for _ in 0..<60 {
                var o = base
                // New varying values, as every block brings.
                for (i, field) in fields.enumerated() where [.frame, .bar, .barBeat, .beat].contains(field.key) && 24 * i + 24 <= o.count {
                    var width = 8
                    switch field.value { case .float, .int: width = 4; default: break }
                    for k in 0..<width where rng.next() % 2 == 0 { o[24 * i + 16 + k] = UInt8(truncatingIfNeeded: rng.next()) }
                }
                if rng.next() % 3 == 0 { o = RepeatedPositionTests.mutate(o, &rng) }
                objects.append(o)
                if rng.next() % 10 == 0 { base = o }  // the host changed something for good
            }
            quick += RepeatedPositionTests.check(objects, "round \(round)")
            total += objects.count
        }
        #expect(quick > total / 4)
    }
}
