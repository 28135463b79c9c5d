import BigInt
import Testing
import TactusEngine
import TactusModel
import TactusOffline

/// MIDI clock out (timing contract §12): the engine against a plain reference
/// that enumerates clocks `k` (at beat `k/24` for a quarter-note beat) and maps
/// each to its frame with §3's frame rule in exact rationals; the same output
/// for any block partition; nothing outside the range; nothing when off.
@Suite("MIDI clock (§12)")
struct MIDIClockTests {
    /// One transport event of a session, at an absolute frame.
    struct Event {
        var frame: Int64
        var update: PositionUpdate
    }

    /// One emitted message, as a log line would show it.
    struct Message: Equatable, CustomStringConvertible {
        var frame: Int64
        var status: UInt8
        var data1: UInt8 = 0
        var data2: UInt8 = 0
        var description: String {
            status == 0xF2 || status < 0xF0
                ? "\(frame) \(hex(status)) \(hex(data1)) \(hex(data2))" : "\(frame) \(hex(status))"
        }
        func hex(_ b: UInt8) -> String { let s = String(b, radix: 16); return s.count == 1 ? "0" + s : s }
    }

    // MARK: - The engine, driven block by block

    /// Renders `events` over `frames` frames in blocks from `sizes`, each
    /// update applied at its offset in the block it falls in.
    static func render(
        sampleRate: Double, events: [Event], frames: Int64, sizes: (Int) -> Int, clock: Bool = true,
        pattern: String? = nil, capacity: Int = 4096
    ) throws -> [Message] {
        var renderer = BlockRenderer(sampleRate: sampleRate)
        var out = MIDIEventBuffer(storageCapacity: capacity)
        if let pattern { _ = renderer.install(PatternSnapshot.make(try PatternParser.parse(pattern))) }
        var log: [Message] = []
        var start: Int64 = 0
        var next = 0
        var block = 0
        while start < frames {
            let n = Int(min(Int64(sizes(block)), frames - start))
            block += 1
            renderer.beginBlock(frameCount: n, output: &out)
            if block == 1 && clock { renderer.setMIDIClock(enabled: true, output: &out) }
            while next < events.count, events[next].frame < start + Int64(n) {
                renderer.apply(events[next].update, atOffset: Int(events[next].frame - start), output: &out)
                next += 1
            }
            renderer.endBlock(output: &out)
            for e in out.events {
                log.append(Message(frame: start + e.offset, status: e.status, data1: e.data1, data2: e.data2))
            }
            start += Int64(n)
        }
        renderer.install(nil)?.destroy()
        return log
    }

    static func clockMessages(_ log: [Message]) -> [Message] { log.filter { $0.status >= 0xF0 } }

    // MARK: - The reference: §12 read literally, in exact rationals

    /// Plays `events` (updates that carry `speed`, `barBeat` with `bar: 0`, or
    /// only `beatsPerMinute`; a position more than 1/8 beat from where the
    /// transport is, so that each is plainly a start, a jump, a stop or a
    /// tempo change) and lists the clock messages of frames before `frames`.
    static func reference(sampleRate: Int64, events: [Event], frames: Int64) -> [Message] {
        let R = Q(sampleRate)
        var rolling = false
        var f0: Int64 = 0
        var b0 = Q.zero
        var tempo = Q(120)
        var unit = Q(4)
        var running = false
        var waitingForZero = false
        var k = BigInt(0)
        var log: [Message] = []
        let tolerance = Q(BigInt(1), BigInt(10_000))
        let endClock = BigInt(16384 * 6)

        func x(_ beat: Q) -> Q { (beat - b0) * Q(60) * R / tempo }
        func frame(_ beat: Q) -> Int64 { f0 + Int64((x(beat) - tolerance).ceiling) }
        func clockBeat(_ k: BigInt) -> Q { Q(k, 96) * unit }
        func beat(at f: Int64) -> Q { rolling ? b0 + Q(f - f0) * tempo / (Q(60) * R) : b0 }

        /// The messages due in `[from, to)` under the anchor in force.
        func play(from: Int64, to: Int64) {
            guard rolling else { return }
            if waitingForZero {
                let f = max(frame(.zero), from)
                guard f < to else { return }
                log += [Message(frame: f, status: 0xF2), Message(frame: f, status: 0xFA)]
                waitingForZero = false
                running = true
                k = 0
            }
            while running {
                let f = max(frame(clockBeat(k)), from)
                guard f < to else { return }
                if k == endClock {
                    log.append(Message(frame: f, status: 0xFC))
                    running = false
                    return
                }
                log.append(Message(frame: f, status: 0xF8))
                k += 1
            }
        }

        var last: Int64 = 0
        for event in events where event.frame < frames {
            play(from: last, to: event.frame)
            last = event.frame
            let u = event.update
            let f = event.frame
            let e = beat(at: f)
            if let t = u.beatsPerMinute { tempo = Q(t) }
            let unitChanged = u.beatUnit.map { Q($0) != unit } ?? false
            if let v = u.beatUnit { unit = Q(v) }
            let nowRolling = (u.speed ?? (rolling ? 1 : 0)) > 0
            let b = u.barBeat.map { Q($0) } ?? e
            let moved = u.barBeat != nil
            // A stop, a start or a jump: Stop if the clock runs, then the line restarts at (f, b).
            func restart(rolling nowRolls: Bool) {
                if running { log.append(Message(frame: f, status: 0xFC)) }
                running = false
                waitingForZero = false
                rolling = nowRolls
                f0 = f
                b0 = b
            }
            if rolling && !nowRolling {
                restart(rolling: false)
            } else if nowRolling && (!rolling || moved || (running && unitChanged)) {
                // A start, or a jump (the generator keeps positions 1/8 beat away), or
                // another beat unit while running (reading (s): a jump to where we are).
                restart(rolling: true)
                if b < .zero {
                    waitingForZero = true
                } else {
                    // The first sixteenth n whose clock 6n is at or after the update (x > -1e-4).
                    var n = (b * Q(16) / unit).ceiling
                    if n > 0 && Q.zero < x(clockBeat(6 * (n - 1))) + tolerance { n -= 1 }
                    if n <= 16383 {
                        log += [
                            Message(frame: f, status: 0xF2, data1: UInt8(n & 0x7f), data2: UInt8(n >> 7)),
                            Message(frame: f, status: n == 0 ? 0xFA : 0xFB),
                        ]
                        running = true
                        k = 6 * n
                    }
                }
            } else {
                // A tempo change while rolling (a repeat) or anything while stopped.
                if rolling { b0 = e }
                f0 = f
                if !rolling { b0 = b }
            }
        }
        play(from: last, to: frames)
        return log
    }

    // MARK: - Sessions

    /// The project's SplitMix64 (`TactusOffline`), with what the sessions draw.
    struct Generator {
        var random: SplitMix64
        init(state: UInt64) { random = SplitMix64(seed: state) }
        mutating func next() -> UInt64 { random.next() }
        mutating func int(_ r: ClosedRange<Int>) -> Int { r.lowerBound + Int(next() % UInt64(r.count)) }
        /// A beat on a 1/64 grid (exact in a float), now and then near the end of SPP's range or before 0.
        mutating func beat() -> Double {
            switch int(0...9) {
            case 0: return Double(int(-256...(-1))) / 64
            case 1: return 4090 + Double(int(0...640)) / 64
            default: return Double(int(0...(64 * 40))) / 64
            }
        }
    }

    /// A random session: a start, then tempo changes, jumps, loops back, stops and restarts.
    /// With `meters`, the host's beat unit too: one of 2, 4, 8, 16 at the start
    /// and changed now and then (alone, or with a tempo change).
    static func session(seed: UInt64, sampleRate: Int64, frames: Int64, meters: Bool = false) -> [Event] {
        var g = Generator(state: seed)
        var events: [Event] = []
        var frame = Int64(g.int(0...2000))
        let firstTempo = Double(g.int(40 * 4...240 * 4)) / 4
        let units: [Double] = [2, 4, 8, 16]
        events.append(Event(frame: frame, update: PositionUpdate(
            speed: 1, bar: 0, barBeat: g.beat(), beatsPerBar: 4, beatsPerMinute: firstTempo,
            beatUnit: meters ? units[g.int(0...3)] : nil)))
        // Track where the transport is, to keep each move plainly a jump (1/8 beat away).
        var rolling = true
        var anchor = (frame: frame, beat: Q(events[0].update.barBeat!))
        var tempo = Q(firstTempo)
        while true {
            frame += Int64(g.int(1...Int(frames / 6)))
            if frame >= frames { break }
            let here = rolling ? anchor.beat + Q(frame - anchor.frame) * tempo / Q(60 * sampleRate) : anchor.beat
            switch g.int(0...9) {
            case 0...2:
                let t = Double(g.int(30 * 8...300 * 8)) / 8
                let unit = meters && g.int(0...1) == 0 ? units[g.int(0...3)] : nil
                events.append(Event(frame: frame, update: PositionUpdate(beatsPerMinute: t, beatUnit: unit)))
                anchor = (frame, here)
                tempo = Q(t)
            case 3...5:
                let b = g.beat()
                guard !rolling || Q(1, 8) < (Q(b) - here).magnitude else { continue }
                events.append(Event(frame: frame, update: PositionUpdate(speed: 1, bar: 0, barBeat: b)))
                anchor = (frame, Q(b))
                rolling = true
            case 6:
                // A host's loop: back to a bar start (a wrap is a jump).
                let b = Double(4 * g.int(0...3))
                guard !rolling || Q(1, 8) < (Q(b) - here).magnitude else { continue }
                events.append(Event(frame: frame, update: PositionUpdate(speed: 1, bar: 0, barBeat: b)))
                anchor = (frame, Q(b))
                rolling = true
            case 7 where meters:
                // Another beat unit alone: the anchor stays (a repeat).
                events.append(Event(frame: frame, update: PositionUpdate(beatUnit: units[g.int(0...3)])))
            default:
                guard rolling else { continue }
                events.append(Event(frame: frame, update: PositionUpdate(speed: 0)))
                anchor = (frame, here)
                rolling = false
            }
        }
        return events
    }

    // MARK: - Tests

    @Test("worked example of §12: start, jump, tempo change, stop (48 kHz, 120 bpm)")
    func workedExample() throws {
        let events = [
            Event(frame: 0, update: PositionUpdate(speed: 1, bar: 0, barBeat: 0, beatsPerBar: 4, beatsPerMinute: 120)),
            Event(frame: 25700, update: PositionUpdate(speed: 1, bar: 0, barBeat: 2.125)),
            Event(frame: 31000, update: PositionUpdate(beatsPerMinute: 60)),
            Event(frame: 40000, update: PositionUpdate(speed: 0)),
        ]
        let log = try Self.render(sampleRate: 48000, events: events, frames: 45000, sizes: { _ in 256 })
        var expected = [Message(frame: 0, status: 0xF2), Message(frame: 0, status: 0xFA)]
        expected += (0...25).map { Message(frame: Int64($0) * 1000, status: 0xF8) }
        expected += [Message(frame: 25700, status: 0xFC), Message(frame: 25700, status: 0xF2, data1: 9), Message(frame: 25700, status: 0xFB)]
        expected += [28700, 29700, 30700, 32400, 34400, 36400, 38400].map { Message(frame: $0, status: 0xF8) }
        expected.append(Message(frame: 40000, status: 0xFC))
        #expect(log == expected)
    }

    @Test("clock messages come before the notes of their frame, and the notes are those of the clock off")
    func orderAtOneFrameAndNotesUnchanged() throws {
        let pattern = "tactus-pattern 1\nlength 4\nnote 0 1/2 60 100\nnote 1/3 1/3 64 90 2\nnote 2 1 62 100\n"
        let events = [
            Event(frame: 0, update: PositionUpdate(speed: 1, bar: 0, barBeat: 0, beatsPerBar: 4, beatsPerMinute: 120)),
            Event(frame: 12000, update: PositionUpdate(speed: 1, bar: 0, barBeat: 2)),  // cuts C4, plays D4
            Event(frame: 30000, update: PositionUpdate(speed: 0)),  // cuts D4
        ]
        let on = try Self.render(sampleRate: 48000, events: events, frames: 40000, sizes: { _ in 100 }, pattern: pattern)
        let off = try Self.render(sampleRate: 48000, events: events, frames: 40000, sizes: { _ in 100 }, clock: false, pattern: pattern)
        #expect(on.filter { $0.status < 0xF0 } == off)
        #expect(Self.clockMessages(off).isEmpty)
        let at12000 = on.filter { $0.frame == 12000 }.map(\.status)
        #expect(at12000 == [0xFC, 0xF2, 0xFB, 0xF8, 0x80, 0x81, 0x90])
        #expect(on.filter { $0.frame == 0 }.map(\.status) == [0xF2, 0xFA, 0xF8, 0x90])
        #expect(on.filter { $0.frame == 30000 }.map(\.status) == [0xFC, 0x80])
    }

    @Test("random sessions: every clock message at the reference's frame, for random block sizes")
    func randomSessionsMatchTheReference() throws {
        let messages = try Self.checkRandomSessions(seeds: 1...40, meters: false)
        print("MIDI clock: 40 sessions, \(messages) clock messages, each at the reference's frame")
    }

    @Test("random sessions with beat units 2, 4, 8, 16 changing while running: each change a jump, every message at the reference's frame")
    func randomMetersMatchTheReference() throws {
        let messages = try Self.checkRandomSessions(seeds: 101...130, meters: true)
        print("MIDI clock, changing beat units: 30 sessions, \(messages) clock messages, each at the reference's frame")
    }

    /// Each seed's session against the reference, at random block sizes and at 256; the messages compared.
    static func checkRandomSessions(seeds: ClosedRange<UInt64>, meters: Bool) throws -> Int {
        var messages = 0
        for seed in seeds {
            let rate: Int64 = [44100, 48000, 96000][Int(seed % 3)]
            let frames = Int64(400_000 + Int(seed % 100) * 10_000)
            let events = Self.session(seed: seed, sampleRate: rate, frames: frames, meters: meters)
            let expected = Self.reference(sampleRate: rate, events: events, frames: frames)
            var g = Generator(state: seed &* 7919)
            let sizes = (0..<4096).map { _ in g.int(0...9) == 0 ? g.int(0...8192) : g.int(1...1024) }
            let got = Self.clockMessages(try Self.render(sampleRate: Double(rate), events: events, frames: frames, sizes: { sizes[$0 % sizes.count] }))
            let fixed = Self.clockMessages(try Self.render(sampleRate: Double(rate), events: events, frames: frames, sizes: { _ in 256 }))
            #expect(got == fixed, "seed \(seed): the block partition changed the clock")
            #expect(got == expected, "seed \(seed): \(Self.firstDifference(got, expected))")
            messages += got.count
        }
        return messages
    }

    @Test("6/8 (beatUnit 8): 12 clocks a beat, SPP in sixteenths of a quarter; 4/4 to 6/8 while running is a jump")
    func sixEight() throws {
        // 48 kHz, 120 eighth notes a minute: a beat is 24000 frames, a clock 2000.
        let events = [
            Event(frame: 0, update: PositionUpdate(speed: 1, bar: 0, barBeat: 0, beatsPerBar: 6, beatsPerMinute: 120, beatUnit: 8)),
            Event(frame: 30000, update: PositionUpdate(speed: 1, bar: 0, barBeat: 3)),  // beat 3 = quarter 1.5 = sixteenth 6
            Event(frame: 40000, update: PositionUpdate(speed: 0)),
        ]
        var expected = [Message(frame: 0, status: 0xF2), Message(frame: 0, status: 0xFA)]
        expected += (0...14).map { Message(frame: Int64($0) * 2000, status: 0xF8) }
        expected += [Message(frame: 30000, status: 0xFC), Message(frame: 30000, status: 0xF2, data1: 6), Message(frame: 30000, status: 0xFB)]
        expected += (0...4).map { Message(frame: 30000 + Int64($0) * 2000, status: 0xF8) }
        expected.append(Message(frame: 40000, status: 0xFC))
        for sizes in [{ (_: Int) in 1 }, { _ in 256 }, { $0 % 2 == 0 ? 777 : 31 }] {
            #expect(Self.clockMessages(try Self.render(sampleRate: 48000, events: events, frames: 45000, sizes: sizes)) == expected)
        }
        #expect(Self.reference(sampleRate: 48000, events: events, frames: 45000) == expected)
        // 12 clocks between beats 1 and 2 (frames 24000 and 48000 of a plain start).
        let plain = try Self.render(sampleRate: 48000, events: [events[0]], frames: 48001, sizes: { _ in 256 })
        #expect(plain.filter { $0.status == 0xF8 && $0.frame >= 24000 && $0.frame < 48000 }.count == 12)

        // 4/4, then at beat 1 (frame 24000) the host says beatUnit 8: beat 1 is now
        // quarter 0.5, sixteenth 2: Stop, SPP 2, Continue, then a clock every 2000 frames.
        let change = [
            Event(frame: 0, update: PositionUpdate(speed: 1, bar: 0, barBeat: 0, beatsPerBar: 4, beatsPerMinute: 120, beatUnit: 4)),
            Event(frame: 24000, update: PositionUpdate(beatsPerBar: 6, beatUnit: 8)),
        ]
        var changed = [Message(frame: 0, status: 0xF2), Message(frame: 0, status: 0xFA)]
        changed += (0...23).map { Message(frame: Int64($0) * 1000, status: 0xF8) }
        changed += [Message(frame: 24000, status: 0xFC), Message(frame: 24000, status: 0xF2, data1: 2), Message(frame: 24000, status: 0xFB)]
        changed += (0...2).map { Message(frame: 24000 + Int64($0) * 2000, status: 0xF8) }
        for sizes in [{ (_: Int) in 1 }, { _ in 256 }, { $0 % 2 == 0 ? 777 : 31 }] {
            #expect(Self.clockMessages(try Self.render(sampleRate: 48000, events: change, frames: 29000, sizes: sizes)) == changed)
        }
        #expect(Self.reference(sampleRate: 48000, events: change, frames: 29000) == changed)
        // The same unit again changes nothing; an unusable one (0, 4.5) is passed over.
        for unit in [8.0, 0, 4.5] {
            let again = change + [Event(frame: 26500, update: PositionUpdate(beatUnit: unit))]
            #expect(Self.clockMessages(try Self.render(sampleRate: 48000, events: again, frames: 29000, sizes: { _ in 256 })) == changed)
        }
    }

    static func firstDifference(_ a: [Message], _ b: [Message]) -> String {
        for i in 0..<min(a.count, b.count) where a[i] != b[i] { return "at \(i): engine \(a[i]), reference \(b[i])" }
        return "engine \(a.count) messages, reference \(b.count)"
    }

    @Test("out of range: nothing past sixteenth 16383, a Stop where play leaves the range, a start at beat 0 from before it")
    func range() throws {
        // Past the end: nothing at all.
        let beyond = [Event(frame: 0, update: PositionUpdate(speed: 1, bar: 0, barBeat: 4096, beatsPerBar: 4, beatsPerMinute: 120))]
        #expect(try Self.render(sampleRate: 48000, events: beyond, frames: 100_000, sizes: { _ in 256 }).isEmpty)
        // Rolling into the end: the last clock is 98303 (beat 4095 + 23/24), then Stop at clock 98304's frame.
        let intoEnd = [Event(frame: 0, update: PositionUpdate(speed: 1, bar: 0, barBeat: 4095, beatsPerBar: 4, beatsPerMinute: 120))]
        let end = try Self.render(sampleRate: 48000, events: intoEnd, frames: 100_000, sizes: { _ in 256 })
        #expect(end.prefix(2) == [Message(frame: 0, status: 0xF2, data1: 0x7c, data2: 0x7f), Message(frame: 0, status: 0xFB)])
        #expect(end.filter { $0.status == 0xF8 }.count == 24)
        #expect(end.last == Message(frame: 24000, status: 0xFC))
        // From before beat 0: SPP 0 and Start at beat 0's frame.
        let countIn = [Event(frame: 0, update: PositionUpdate(speed: 1, bar: 0, barBeat: -1, beatsPerBar: 4, beatsPerMinute: 120))]
        let start = try Self.render(sampleRate: 48000, events: countIn, frames: 26_000, sizes: { _ in 300 })
        #expect(start.prefix(4) == [
            Message(frame: 24000, status: 0xF2), Message(frame: 24000, status: 0xFA), Message(frame: 24000, status: 0xF8),
            Message(frame: 25000, status: 0xF8),
        ])
    }

    @Test("a float a hair past a sixteenth keeps it (§3's tolerance), and the clock off sends nothing")
    func toleranceAndOff() throws {
        // 48 kHz, 120 bpm: a clock is 1000 frames; 1/4 + 2^-30 beat is 2.2e-5 frames past sixteenth 1.
        let events = [Event(frame: 0, update: PositionUpdate(speed: 1, bar: 0, barBeat: 0.25 + 0x1p-30, beatsPerBar: 4, beatsPerMinute: 120))]
        let log = try Self.render(sampleRate: 48000, events: events, frames: 2500, sizes: { _ in 64 })
        #expect(log == [
            Message(frame: 0, status: 0xF2, data1: 1), Message(frame: 0, status: 0xFB), Message(frame: 0, status: 0xF8),
            Message(frame: 1000, status: 0xF8), Message(frame: 2000, status: 0xF8),
        ])
        #expect(try Self.render(sampleRate: 48000, events: events, frames: 2500, sizes: { _ in 64 }, clock: false).isEmpty)
    }

    @Test("deactivation while running: Stop at the first frame of the next block")
    func deactivation() {
        var renderer = BlockRenderer(sampleRate: 48000)
        var out = MIDIEventBuffer(storageCapacity: 64)
        renderer.beginBlock(frameCount: 1500, output: &out)
        renderer.setMIDIClock(enabled: true, output: &out)
        renderer.apply(PositionUpdate(speed: 1, bar: 0, barBeat: 0, beatsPerBar: 4, beatsPerMinute: 120), atOffset: 0, output: &out)
        renderer.endBlock(output: &out)
        #expect(out.events.map(\.status) == [0xF2, 0xFA, 0xF8, 0xF8])
        renderer.activate()
        renderer.beginBlock(frameCount: 5000, output: &out)
        renderer.endBlock(output: &out)
        #expect(out.events.map { [Int($0.offset), Int($0.status)] } == [[0, 0xFC]])
    }
    @Test("tactus render --clock: the worked example's transport script, its lines and their descriptions")
    func offlineRenderWithClock() throws {
        let script = try TransportScript(parsing: "tactus-transport 1\n0 play\n25700 locate 2.125\n31000 tempo 60\n40000 stop\n45000 end\n")
        let pattern = try PatternParser.parse("tactus-pattern 1\nlength 4\nnote 0 1/2 60 100\n")
        var logs: [[LoggedEvent]] = []
        for blocks in [BlockPlan.fixed(256), .fixed(1), try BlockPlan(parsing: "random:1-4096@7")] {
            var render = OfflineRender(script: script, sampleRate: 48000, blocks: blocks)
            render.midiClock = true
            render.annotate = true
            var logged: [LoggedEvent] = []
            _ = render.run(pattern: pattern, loadPattern: { _ in .failure(PatternLoadError("no edits")) }) { events, _ in logged += events }
            logs.append(logged)
        }
        #expect(logs[1] == logs[0] && logs[2] == logs[0])
        let lines = logs[0].filter { $0.bytes != [0xF8] }.map { "\(EventLog.line($0)) \($0.summary)" }
        #expect(lines == [
            "0 f2 00 00 song position 0 (sixteenths)", "0 fa start", "0 90 3c 64 note-on  C4 (60) vel 100 ch 1",
            "12000 80 3c 00 note-off C4 (60) ch 1", "25700 fc stop", "25700 f2 09 00 song position 9 (sixteenths)",
            "25700 fb continue", "40000 fc stop",
        ])
        #expect(logs[0].filter { $0.bytes == [0xF8] }.map(\.frame) == (0...25).map { Int64($0) * 1000 } + [28700, 29700, 30700, 32400, 34400, 36400, 38400])
        #expect(logs[0].first { $0.bytes == [0xF8] }?.summary == "clock")
    }

    @Test("tactus render --clock in 6/8: a script's positions with beatUnit=8 give 12 clocks a beat and SPP 6 at beat 3")
    func offlineRenderSixEight() throws {
        let script = try TransportScript(parsing: """
            tactus-transport 1
            0 position frame=0:l speed=1.0:f bar=0:l barBeat=0.0:f beatUnit=8:i beatsPerBar=6.0:f beatsPerMinute=120.0:f
            30000 position frame=30000:l speed=1.0:f bar=0:l barBeat=3.0:f beatUnit=8:i beatsPerBar=6.0:f beatsPerMinute=120.0:f
            40000 position speed=0.0:f
            45000 end

            """)
        let pattern = try PatternParser.parse("tactus-pattern 1\nlength 4\nnote 0 1/2 60 100\n")
        var render = OfflineRender(script: script, sampleRate: 48000, blocks: .fixed(256))
        render.midiClock = true
        var logged: [LoggedEvent] = []
        _ = render.run(pattern: pattern, loadPattern: { _ in .failure(PatternLoadError("no edits")) }) { events, _ in logged += events }
        let clock = logged.filter { $0.bytes.first! >= 0xF0 }
        #expect(clock.filter { $0.bytes != [0xF8] }.map { EventLog.line($0) } == ["0 f2 00 00", "0 fa", "30000 fc", "30000 f2 06 00", "30000 fb", "40000 fc"])
        let before: [Int64] = (0...14).map { Int64($0) * 2000 }
        let after: [Int64] = (0...4).map { 30000 + Int64($0) * 2000 }
        let clocks: [Int64] = clock.filter { $0.bytes == [0xF8] }.map(\.frame)
        #expect(clocks == before + after)
    }
}
