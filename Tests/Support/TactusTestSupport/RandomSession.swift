import TactusEngine
import TactusModel
import TactusOffline

/// Random patterns and transport scripts, as text, from a seed: a failing
/// case can be printed and replayed with `tactus render`.
public struct RandomSession {
    public var rng: SplitMix64

    public init(seed: UInt64) { rng = SplitMix64(seed: seed) }

    public mutating func int(_ range: ClosedRange<Int>) -> Int { range.lowerBound + Int(rng.next() % UInt64(range.count)) }
    public mutating func chance(_ p: Double) -> Bool { Double(rng.next() % 1_000_000) < p * 1_000_000 }
    public mutating func pick<T>(_ items: [T]) -> T { items[int(0...items.count - 1)] }
    /// A number in `0 ..< n` (`n` at least 1).
    public mutating func below(_ n: Int) -> Int { int(0...n - 1) }
    public mutating func next() -> UInt64 { rng.next() }
    public mutating func unit() -> Double { Double(rng.next() >> 11) / Double(1 << 53) }

    /// A beat value as pattern text: integers, decimals, and fractions of awkward denominators.
    public mutating func beatText(below limit: Double, allowZero: Bool = true) -> String {
        for _ in 0..<100 {
            let den = pick([1, 2, 3, 4, 7, 8, 12, 16, 1000, 3, 7])
            let num = int(allowZero ? 0...max(0, Int(limit * Double(den)) ) : 1...max(1, Int(limit * Double(den))))
            let value = Double(num) / Double(den)
            if value < limit || (limit == .infinity) {
                if !allowZero && num == 0 { continue }
                if den == 1 { return "\(num)" }
                if den == 1000 && chance(0.5) { return "\(num / 1000).\(String(1000 + num % 1000).dropFirst())" }
                return "\(num)/\(den)"
            }
        }
        return "0"
    }

    /// A random valid pattern, dense enough to make merges and retriggers common.
    public mutating func pattern(maxNotes: Int = 24) -> String {
        let length = pick(["1", "2", "3", "4", "7/3", "1/2", "5/4", "3/4", "16", "1/3", "6"])
        let lengthValue = beatLiteralValue(length)
        var text = "tactus-pattern 1\nlength \(length)\n"
        let keys = pick([[60], [60, 62], [60, 62, 64, 67], Array(36...50)])
        for _ in 0..<int(0...maxNotes) {
            let start = beatText(below: lengthValue)
            var duration = chance(0.1) ? pick(["1/100000", "1/48000", "1/20000"]) : beatText(below: lengthValue * 2 + 0.5, allowZero: false)
            if chance(0.1) { duration = "\(int(1...9))" }
            let channel = chance(0.2) ? " \(int(1...3))" : ""
            text += "note \(start) \(duration) \(pick(keys)) \(int(1...127))\(channel)\n"
        }
        return text
    }

    /// A random transport script of roughly `frames` frames, ending stopped.
    /// `edits` names the patterns it may switch to.
    /// `onsets` (beats within the loop) and `loopLength` let it aim nudges just past an onset.
    ///
    /// With `partitionIndependent`, a host that reports every block neither rounds
    /// to Ardour's ticks nor is contradicted by raw positions: its reports then stay
    /// within float noise of the plugin's clock, so what it sends cannot depend on
    /// where blocks start (see `PartitionInvarianceTests`).
    ///
    /// `keys` names the host's key set (`keys` of a transport script); by default
    /// it is drawn: `bbt` (Ardour, jalv, Carla), `beat`, `frame`, `qtractor`, `muse`
    /// or `all` (Element, JUCE hosts: every key, exact). `everyBlock` says whether
    /// a host of `bbt`, `beat`, `frame` or `all` reports every block; by default it
    /// is drawn (three times in ten).
    public mutating func script(
        frames: Int64, edits: [String] = [], allowBadInput: Bool = true, onsets: [Double] = [], loopLength: Double = 0,
        partitionIndependent: Bool = false, keys chosenKeys: String? = nil, everyBlock chosenEveryBlock: Bool? = nil
    ) -> String {
        let rate = pick([48000.0, 44100, 96000, 22050, 48000, 44100])
        var text = "tactus-transport 1\nrate \(Int(rate))\n"
        // Qtractor's whole-beat reports and MusE's tick-floor reports (timing contract §1,
        // rule 1) as those hosts send them: on a whole beat's change at block starts, and
        // every block. Both tie the log to the blocks, so partition tests send them on change.
        let drawnKeys = pick(["bbt", "bbt", "bbt", "beat", "frame", "qtractor", "muse", "all", "all"])
        let keys = chosenKeys ?? drawnKeys
        let drawnEveryBlock = chance(0.3)
        var everyBlock = chosenEveryBlock ?? drawnEveryBlock
        var send = everyBlock ? "every-block" : "on-change"
        if keys == "qtractor" || keys == "muse" {
            everyBlock = !partitionIndependent && chance(0.7)
            send = everyBlock ? (keys == "qtractor" ? "on-beat" : "every-block") : "on-change"
        }
        text += "send \(send)\n"
        text += "keys \(keys)\n"
        // MusE's default division, and every other one it offers (genset.cpp).
        if keys == "muse" {
            text += "floor-ticks \(pick([384, 384, 384, 48, 96, 120, 192, 240, 480, 768, 960, 1536, 1920, 3072, 3840, 6144, 7680, 12288, 15360]))\n"
        }
        if keys == "bbt" && chance(0.25) && !(partitionIndependent && everyBlock) { text += "round-ticks 1920\n" }

        // Track the host roughly, to aim nudges at its position.
        var tempo = pick([120.0, 90, 133.7, 60, 174, 100.5])
        var speed = 1.0
        var beat = pick([0.0, 0, 1, 4.5, 1.0 / 3, 13])
        var frame: Int64 = 0
        var loop: (Double, Double)?
        var bpb = 4.0
        text += "0 tempo \(tempo)\n0 locate \(beat)\n0 play\n"
        func advanceHost(to f: Int64) {
            var beatNow = beat + Double(f - frame) * speed * tempo / (60 * rate)
            if let (a, b) = loop, beat < b, beatNow >= b {
                let period = b - a
                beatNow = a + (beatNow - b).truncatingRemainder(dividingBy: period)
            }
            beat = beatNow
            frame = f
        }
        while frame < frames {
            let step: Int64
            switch int(0...9) {
            case 0: step = 0
            case 1, 2: step = Int64(int(1...64))
            default: step = Int64(Double(int(1...1500)) / 1000 * 60 * rate / tempo)
            }
            advanceHost(to: frame + step)
            let f = frame
            switch int(0...23) {
            case 0, 1:
                tempo = chance(0.5) ? Double(int(120...1200)) / 4 : Double(int(3000...30000)) / 100
                text += "\(f) tempo \(tempo)\n"
            case 2, 3:
                beat = chance(0.3) ? Double(int(-8...64)) : Double(int(-100...6400)) / 100
                text += "\(f) locate \(beat)\n"
            case 4, 5, 16, 17:
                // A nudge: repeat band, correction band, or just past it; sometimes
                // aimed just past the next onset, so that it is played late, at the update.
                var size = pick([0.00001, 0.0003, 0.0006, 0.002, 0.02, 0.04, 0.06, 0.07]) * (chance(0.5) ? 1 : -1)
                if chance(0.5), loopLength > 0, !onsets.isEmpty {
                    let pass = (beat / loopLength).rounded(.down)
                    let next = (onsets.map { pass * loopLength + $0 } + onsets.map { (pass + 1) * loopLength + $0 })
                        .filter { $0 > beat }.min() ?? beat
                    if next - beat < 0.055 { size = next - beat + pick([0.0006, 0.002, 0.005]) }
                }
                beat += size
                text += "\(f) locate \(beat)\n"
            case 6:
                if speed > 0 {
                    speed = 0
                    text += "\(f) stop\n"
                } else {
                    speed = 1
                    text += "\(f) play\n"
                }
            case 7:
                speed = pick([0.5, 2, 1, 1.5])
                text += "\(f) speed \(speed)\n"
            case 8:
                let a = beat.rounded(.down) - Double(int(0...2))
                let b = a + pick([0.25, 1, 2, 4, 3.5, 1.0 / 3 + 1])
                loop = (a, b)
                text += "\(f) loop \(a) \(b)\n"
            case 9:
                loop = nil
                text += "\(f) loop off\n"
            case 10:
                text += "\(f) all-notes-off\n"
            case 11:
                text += "\(f) \(pick(["cc 120", "cc 64 127", "cc 123 0 5", "midi 90 3c 64", "midi b0 07 64"]))\n"
            case 12:
                if allowBadInput {
                    text += "\(f) position \(pick(["barBeat=nan:d", "beatsPerMinute=2000", "speed=5000", "beatsPerBar=0", "bar=1e12", "barBeat=x:s", "beatsPerMinute=inf:d", "beat=5e9", "beatsPerMinute=-10"]))\n"
                }
            case 13:
                if !edits.isEmpty { text += "\(f) pattern \(pick(edits))\n" }
            case 14:
                bpb = pick([4, 3, 7, 3.5])
                // 7/8: the beat unit changes too (the MIDI clock then counts 12 a beat, §12.1); it stays for later meters.
                text += bpb == 7 ? "\(f) meter 7 8\n" : "\(f) meter \(bpb)\n"
            case 15:
                // A raw repeat with float noise. Our estimate of the host's beat is rough, so
                // this may well contradict the host; a host reporting every block then puts
                // it right at a block start, which would tie the log to the blocks.
                if partitionIndependent && everyBlock { break }
                let bar = (beat / bpb).rounded(.down)
                text += "\(f) position bar=\(Int(bar)) barBeat=\(beat - bar * bpb + Double(int(-3...3)) * 1e-6)\n"
            default:
                break
            }
        }
        let stop = frame + Int64(int(0...4000))
        // An on-beat host (Qtractor) reports the stop at the next block start: the
        // session lasts past the longest block after it, so that it ends stopped.
        let end = stop + Int64(int(1...96000)) + (send == "on-beat" ? 8192 : 0)
        text += "\(stop) stop\n\(end) end\n"
        return text
    }
}

/// The loop length and note starts of a pattern text, in beats (for aiming nudges).
public func onsetGrid(_ patternText: String) -> (length: Double, starts: [Double]) {
    guard let p = try? PatternParser.parse(patternText) else { return (0, []) }
    return (p.length.approximateValue, p.notes.map(\.start.approximateValue))
}

/// The value of a beat literal (integer, decimal or fraction), for generators.
public func beatLiteralValue(_ text: String) -> Double {
    let parts = text.split(separator: "/")
    if parts.count == 2 { return Double(parts[0])! / Double(parts[1])! }
    return Double(text)!
}
