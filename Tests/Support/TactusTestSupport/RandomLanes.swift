/// Random version-2 patterns and key-follow input (pattern format "Version 2",
/// timing contract §7), for the partition, differential and plugin tests.
extension RandomSession {
    /// A random version-2 pattern: 1-5 lanes, lengths whose common cycle stays small.
    public mutating func lanePattern() -> String {
        var gen = self
        defer { self = gen }
        var text = "tactus-pattern 2\nseed \(gen.int(0...1000))\n"
        for lane in 0..<gen.int(1...5) {
            let length = gen.pick(["1", "2", "3/2", "4", "3/4", "5/4", "3"])
            let lengthValue = beatLiteralValue(length)
            text += "lane l\(lane) length \(length)"
            if gen.chance(0.4) { text += " swing \(gen.pick(["2/3", "0.6", "1/3", "3/4"])) \(gen.pick(["1/4", "1/8", "1/2", "1/3"]))" }
            if gen.chance(0.4) { text += " follow \(gen.int(40...70))" + (gen.chance(0.5) ? " in \(gen.int(1...2))" : "") }
            if gen.chance(0.3) { text += " channel \(gen.int(1...3))" }
            text += "\n"
            let keys = gen.pick([[60], [60, 62], [36, 38, 42]])
            for _ in 0..<gen.int(0...6) {
                let start = gen.beatText(below: lengthValue)
                let duration = gen.beatText(below: lengthValue * 2 + 0.5, allowZero: false)
                let prob = gen.chance(0.4) ? " prob=\(gen.pick(["1/2", "0.7", "1/3", "1"]))" : ""
                text += "note \(start) \(duration) \(gen.pick(keys)) \(gen.int(1...127))\(prob)\n"
            }
        }
        return text
    }

    /// `script` with MIDI key-follow input at random frames merged in by frame.
    public mutating func withFollowInput(_ script: String, frames: Int64) -> String {
        var gen = self
        defer { self = gen }
        var lines = script.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
        let header = lines.removeFirst()
        let end = lines.removeLast()
        for _ in 0..<gen.int(0...12) {
            let frame = gen.int(0...Int(frames - 1))
            let channel = gen.int(0...1)
            let message = gen.pick([
                "midi \(String(0x90 + channel, radix: 16)) \(String(gen.int(30...90), radix: 16)) 64",
                "midi \(String(0x80 + channel, radix: 16)) 3c 00", "midi \(String(0xb0 + channel, radix: 16)) 79 00",
                // §7.6: lane mutes by patch:Set (`mute` alone unmutes every lane).
                "mute \(gen.int(0...2))", "mute",
            ])
            lines.append("\(frame) \(message)")
        }
        func frameOf(_ line: String) -> Int64 { line.split(separator: " ").first.flatMap { Int64($0) } ?? -1 }
        let ordered = lines.enumerated().sorted { a, b in
            let fa = frameOf(a.element), fb = frameOf(b.element)
            return fa != fb ? fa < fb : a.offset < b.offset
        }.map(\.element)
        return ([header] + ordered + [end]).joined(separator: "\n") + "\n"
    }
}
