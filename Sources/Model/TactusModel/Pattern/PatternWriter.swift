import TactusEngine
/// Writes a `Pattern` in the text format, version 1 (or 2 when it has lanes).
///
/// The output parses back to an equal pattern (same length, same notes in
/// the same order, same exact values). Beat values are written as integers,
/// as decimals when the value has a finite decimal form of at most nine
/// places (`3.5`, `0.125`), and as fractions otherwise (`1/3`). O(n); runs
/// off the audio thread.
public enum PatternWriter {
    public static func text(for pattern: Pattern) -> String {
        if pattern.usesControllers { return text(for: Arrangement(single: pattern)) }
        if pattern.version == 2 { return version2Text(for: pattern) }
        var out = "tactus-pattern 1\n"
        out += "length \(beatText(pattern.length))\n"
        if !pattern.notes.isEmpty {
            out += "# note START DURATION KEY VELOCITY [CHANNEL]\n"
        }
        for note in pattern.notes {
            out += noteStatement(note, defaultChannel: 1) + "\n"
        }
        return out
    }

    /// A whole text: version 3 when the arrangement needs it or came as
    /// version 3 (`seed`, `switch` and `trigger` lines when they differ from
    /// the defaults, each pattern's line and lanes, the song), else the
    /// version 1 or 2 text of its one pattern. Parses back to an equal
    /// arrangement. O(n).
    public static func text(for arrangement: Arrangement) -> String {
        guard arrangement.version == 3 || arrangement.needsVersion3 else { return text(for: arrangement.patterns[0].pattern) }
        var out = "tactus-pattern 3\n"
        let seed = arrangement.patterns[0].pattern.seed
        if seed != 0 { out += "seed \(seed)\n" }
        if arrangement.switchRule != SwitchRule() { out += switchStatement(arrangement.switchRule) + "\n" }
        let t = arrangement.triggers
        if let c = t.programChannel { out += "trigger program" + inChannel(c) + "\n" }
        if let key = t.noteKey { out += "trigger note \(key)" + inChannel(t.noteChannel) + "\n" }
        if let n = t.controller { out += "trigger cc \(n)" + inChannel(t.controllerChannel) + "\n" }
        let named = arrangement.hasPatternLines || arrangement.patterns.count > 1
        for entry in arrangement.patterns {
            if named { out += patternStatement(entry) + "\n" }
            for (index, lane) in entry.pattern.lanes.enumerated() {
                out += laneStatement(lane) + "\n"
                for note in entry.pattern.notes where note.lane == index {
                    out += noteStatement(note, defaultChannel: lane.channel) + "\n"
                }
                for point in entry.pattern.controllers where point.lane == index {
                    out += controllerStatement(point, defaultChannel: lane.channel) + "\n"
                }
            }
        }
        if let song = arrangement.song {
            switch song.end {
            case .loop: out += "song loop\n"
            case .stop: out += "song stop\n"
            case .hold: out += "song hold\n"
            }
            for entry in song.entries {
                out += "play \(String(decoding: arrangement.patterns[entry.pattern].name, as: UTF8.self))"
                out += entry.passes == 1 ? "\n" : " \(entry.passes)\n"
            }
        }
        return out
    }

    /// ` in C` for a listened channel, nothing for any (0).
    static func inChannel(_ channel: UInt8) -> String { channel == 0 ? "" : " in \(channel)" }

    /// `switch at WHEN phase P notes N [grace G]` (no line end).
    public static func switchStatement(_ rule: SwitchRule) -> String {
        var out = "switch at " + rule.at.text
        out += rule.keepsPhase ? " phase keep" : " phase restart"
        out += rule.notesRing ? " notes ring" : " notes cut"
        if rule.grace != .zero { out += " grace \(beatText(rule.grace))" }
        return out
    }

    /// `pattern NAME [program P [bank MSB [LSB]] [channel C]]` (no line end).
    public static func patternStatement(_ entry: NamedPattern) -> String {
        var out = "pattern \(String(decoding: entry.name, as: UTF8.self))"
        if let p = entry.program {
            out += " program \(p.program)"
            if let msb = p.bankMSB {
                out += " bank \(msb)"
                if let lsb = p.bankLSB { out += " \(lsb)" }
            }
            if p.channel != 1 { out += " channel \(p.channel)" }
        }
        return out
    }

    /// Version 2: `seed` when not 0, then each lane line followed by its notes
    /// (text order within the lane); a note's channel is left out when it is
    /// the lane's, `prob=` when it is 1.
    static func version2Text(for pattern: Pattern) -> String {
        var out = "tactus-pattern 2\n"
        if pattern.seed != 0 { out += "seed \(pattern.seed)\n" }
        for (index, lane) in pattern.laneList.enumerated() {
            out += laneStatement(lane) + "\n"
            for note in pattern.notes where note.lane == index {
                out += noteStatement(note, defaultChannel: lane.channel) + "\n"
            }
        }
        return out
    }

    /// A note's statement (no line end): `note START DURATION KEY VELOCITY`,
    /// then the channel when it is not `defaultChannel` (1 in version 1, the
    /// lane's in version 2), `prob=P` when P is not 1.
    public static func noteStatement(_ note: PatternNote, defaultChannel: UInt8) -> String {
        var out = "note \(beatText(note.start)) \(beatText(note.duration)) \(note.key) \(note.velocity)"
        if note.channel != defaultChannel { out += " \(note.channel)" }
        if note.probability != BeatRational(1) { out += " prob=\(beatText(note.probability))" }
        for lock in note.locks { out += " " + lock.text }
        return out
    }

    /// A controller point's statement (no line end): `cc N AT VALUE`, `bend
    /// AT VALUE`, `pressure AT VALUE` or `program AT VALUE`, then the channel
    /// when it is not the lane's, `ramp` when it ramps.
    public static func controllerStatement(_ point: ControllerPoint, defaultChannel: UInt8) -> String {
        var out = point.kind.word
        if case .control(let n) = point.kind { out += " \(n)" }
        out += " \(beatText(point.start)) \(point.value)"
        if point.channel != defaultChannel { out += " \(point.channel)" }
        if point.ramp { out += " ramp" }
        return out
    }

    /// A lane's statement (no line end): `lane NAME length L`, then `channel`
    /// when not 1, `swing`, `follow ROOT [in C]` when set.
    public static func laneStatement(_ lane: PatternLane) -> String {
        var out = "lane \(String(decoding: lane.name, as: UTF8.self)) length \(beatText(lane.length))"
        if lane.channel != 1 { out += " channel \(lane.channel)" }
        if let r = lane.swingRatio { out += " swing \(beatText(r)) \(beatText(lane.swingGrid))" }
        if let root = lane.followRoot {
            out += " follow \(root)"
            if lane.followChannel != 0 { out += " in \(lane.followChannel)" }
        }
        if lane.rampStep != PatternLane.defaultRampStep { out += " ramp-step \(beatText(lane.rampStep))" }
        return out
    }

    /// One beat value in its shortest exact spelling.
    public static func beatText(_ value: BeatRational) -> String {
        let n = value.numerator
        let d = value.denominator
        if d == 1 { return "\(n)" }
        var twos = 0
        var fives = 0
        var rest = d
        while rest % 2 == 0 { rest /= 2; twos += 1 }
        while rest % 5 == 0 { rest /= 5; fives += 1 }
        let places = max(twos, fives)
        guard rest == 1, places <= PatternLimits.maximumDecimalDigits else { return "\(n)/\(d)" }
        var scale: Int64 = 1
        for _ in 0..<places { scale *= 10 }
        let scaled = n.magnitude * UInt64(scale / d)
        let whole = scaled / UInt64(scale)
        var fraction = "\(scaled % UInt64(scale))"
        while fraction.utf8.count < places { fraction = "0" + fraction }
        return (n < 0 ? "-" : "") + "\(whole).\(fraction)"
    }
}
