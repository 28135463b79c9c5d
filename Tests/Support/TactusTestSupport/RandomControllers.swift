import TactusEngine
import TactusOffline

/// Random version-3 texts with controllers and several patterns (pattern
/// format "Version 3"; timing contract §9, §10), and the pattern requests and
/// song toggles a transport script adds to play them: for the tests that hold
/// every surface (the LV2 plugin, the CLAP plugin, the C hosts) to
/// `tactus render`'s log.
extension RandomSession {
    /// A random version-3 text: a `switch` line of random options (every
    /// `WHEN`, both phases, both note modes, grace), 1-3 patterns (some with a
    /// program and bank) of 1-3 lanes, each lane with notes (locks `ccN=V`,
    /// some on overlapping notes of one controller), `cc`, `bend`, `pressure`
    /// and `program` points, ramps (one point's ramp crosses the loop end
    /// whenever it is the lane's first point of its controller), swing and
    /// `ramp-step`; with `song`, a song of the patterns.
    /// Returns the text and the patterns' names in text order.
    public mutating func controllerText(patterns: ClosedRange<Int> = 1...3, song: Bool = false) -> (text: String, names: [String]) {
        var gen = self
        defer { self = gen }
        var text = "tactus-pattern 3\nseed \(gen.int(0...1000))\n"
        var options: [String] = []
        if gen.chance(0.8) { options.append("at " + gen.pick(["now", "beat", "bar", "bars 2", "end", "bar", "beat"])) }
        if gen.chance(0.6) { options.append("phase " + gen.pick(["restart", "keep"])) }
        if gen.chance(0.6) { options.append("notes " + gen.pick(["cut", "ring"])) }
        if gen.chance(0.3) { options.append("grace " + gen.pick(["1/8", "1/4", "1/32"])) }
        if !options.isEmpty { text += "switch " + options.shuffledBy(&gen).joined(separator: " ") + "\n" }
        var names: [String] = []
        var key = 36
        for p in 0..<gen.int(patterns) {
            let name = "p\(p + 1)"
            names.append(name)
            text += "pattern \(name)"
            if gen.chance(0.5) {
                text += " program \(gen.int(0...127))"
                if gen.chance(0.5) { text += " bank \(gen.int(0...3))" + (gen.chance(0.5) ? " \(gen.int(0...127))" : "") }
                if gen.chance(0.5) { text += " channel \(gen.int(1...2))" }
            }
            text += "\n"
            for l in 0..<gen.int(1...3) {
                let length = gen.pick([(text: "2", eighths: 16), (text: "3", eighths: 24), (text: "4", eighths: 32), (text: "3/2", eighths: 12)])
                let channel = gen.int(1...2)
                text += "lane l\(l) length \(length.text) channel \(channel)"
                if gen.chance(0.35) { text += " swing \(gen.pick(["2/3", "0.6", "3/4"])) \(gen.pick(["1/4", "1/2"]))" }
                if gen.chance(0.7) { text += " ramp-step " + gen.pick(["1/8", "1/4", "1/3", "1/16", "1/32"]) }
                text += "\n"
                for _ in 0..<gen.int(1...4) {
                    let start = gen.below(length.eighths)
                    let duration = gen.pick([1, 2, 4, 8, 12].filter { $0 < length.eighths * 2 })
                    var note = "note \(start)/8 \(duration)/8 \(key) \(gen.int(40...127))"
                    key = key == 120 ? 24 : key + 1
                    if gen.chance(0.15) { note += " prob=\(gen.pick(["1/2", "0.7"]))" }
                    let locks = gen.chance(0.6)
                    if locks { note += " cc74=\(gen.int(0...127))" }
                    if gen.chance(0.25) { note += " cc1=\(gen.int(0...127))" }
                    text += note + "\n"
                    // Locks of one controller on overlapping notes: the newest holds, the restore comes when the last ends (§10.5).
                    if locks, gen.chance(0.4) {
                        let later = min(length.eighths - 1, start + gen.int(0...duration))
                        text += "note \(later)/8 \(gen.pick([2, 4, 8]))/8 \(key) \(gen.int(40...127)) cc74=\(gen.int(0...127))\n"
                        key = key == 120 ? 24 : key + 1
                    }
                }
                var used: Set<String> = []
                for _ in 0..<gen.int(0...6) {
                    let kind = gen.pick(["cc 74", "cc 1", "bend", "pressure", "program", "cc 74", "cc 7", "bend"])
                    let at = gen.below(length.eighths)
                    // Sometimes on another channel than the lane's (CHANNEL).
                    let other = gen.chance(0.15) ? " \(3 - channel)" : ""
                    guard used.insert("\(kind) \(at)\(other)").inserted else { continue }
                    let value = kind == "bend" ? gen.int(-8192...8191) : gen.int(0...127)
                    let ramp = kind != "program" && gen.chance(0.5)
                    text += "\(kind) \(at)/8 \(value)\(other)\(ramp ? " ramp" : "")\n"
                }
            }
        }
        if song {
            text += "song \(gen.pick(["loop", "stop", "hold"]))\n"
            for _ in 0..<gen.int(1...4) { text += "play \(gen.pick(names))" + (gen.chance(0.5) ? " \(gen.int(1...3))" : "") + "\n" }
        }
        return (text, names)
    }

    /// `script` with pattern requests (`request NAME [WHEN]`, timing contract
    /// §9.2) at random frames merged in by frame, some of them at one frame;
    /// `grids`: with a random `WHEN` on some (else on the text's `switch`
    /// grid, all a CLAP host's `pattern` parameter can ask). `songAt`: frames
    /// where the song is turned off or on again (a script's `song` lines);
    /// `songFirst`: each before the other inputs at its frame, as an LV2 host's
    /// control port holds from the block's start, before the block's events (a
    /// CLAP parameter event comes after the block's transport).
    public mutating func withRequests(
        _ script: String, names: [String], frames: Int64, grids: Bool = true, songAt: [Int64] = [], songFirst: Bool = false
    ) -> String {
        var gen = self
        defer { self = gen }
        var lines = script.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
        let headerCount = lines.firstIndex { $0.first?.isNumber == true } ?? lines.count
        let header = Array(lines[..<headerCount])
        lines.removeFirst(headerCount)
        let end = lines.removeLast()
        let endFrame = Int64(end.split(separator: " ")[0])!
        var frame: Int64 = 0
        for _ in 0..<gen.int(2...14) {
            frame = min(endFrame - 1, frame + Int64(gen.int(0...Int(max(1, frames / 6)))))
            var line = "\(frame) request \(gen.pick(names))"
            if grids, gen.chance(0.6) { line += " " + gen.pick(["now", "beat", "bar", "bars 2", "bars 3", "end"]) }
            lines.append(line)
            if gen.chance(0.15) { lines.append("\(frame) request \(gen.pick(names))") }
        }
        var on = true
        for f in songAt.sorted() where f < endFrame {
            on.toggle()
            lines.append("\(f) song \(on ? "on" : "off")")
        }
        func frameOf(_ line: String) -> Int64 { line.split(separator: " ").first.flatMap { Int64($0) } ?? -1 }
        func rank(_ line: String) -> Int { songFirst && line.contains(" song ") ? 0 : 1 }
        let ordered = lines.enumerated().sorted { a, b in
            let fa = frameOf(a.element), fb = frameOf(b.element)
            if fa != fb { return fa < fb }
            return rank(a.element) != rank(b.element) ? rank(a.element) < rank(b.element) : a.offset < b.offset
        }.map(\.element)
        return (header + ordered + [end]).joined(separator: "\n") + "\n"
    }
}

extension Array {
    /// The elements in an order drawn from `gen` (Fisher-Yates).
    fileprivate func shuffledBy(_ gen: inout RandomSession) -> [Element] {
        var items = self
        for i in stride(from: items.count - 1, to: 0, by: -1) { items.swapAt(i, gen.int(0...i)) }
        return items
    }
}

/// How many patterns of `text` (a `controllerText`, whose notes all have keys
/// of their own pattern) sound in `log`: a session that switched patterns hears more than one.
public func patternsHeard(_ text: String, _ log: [LoggedEvent]) -> Int {
    var patternOfKey: [UInt8: Int] = [:]
    var pattern = 0
    for line in text.split(separator: "\n") {
        let words = line.split(separator: " ")
        if words.first == "pattern" { pattern += 1 }
        if words.first == "note", words.count > 3, let key = UInt8(words[3]) { patternOfKey[key] = pattern }
    }
    let heard = log.filter { $0.bytes.count == 3 && $0.bytes[0] & 0xF0 == 0x90 && $0.bytes[2] > 0 }.compactMap { patternOfKey[$0.bytes[1]] }
    return Set(heard).count
}
