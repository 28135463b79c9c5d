/// One line of `tactus jack-record --cycles`: a cycle's JACK transport as the
/// recorder saw it, and the server's frame time at its start, written so that
/// every value reads back exactly (Swift prints Doubles and Floats in their
/// shortest round-trip form). `tactus-hosttest jack-align` reads it back to
/// rebuild what another client saw in the same cycles.
public enum JackCycleLine {
    public static let header =
        "# CYCLE_START FRAMES FRAME_TIME STATE TRANSPORT_FRAME [BAR BEAT TICK TICK_DOUBLE|- TICKS_PER_BEAT BEATS_PER_BAR BEAT_TYPE BPM]"

    public static func text(_ t: JackTransportSnapshot, frameTime: UInt32) -> String {
        var line = "\(t.cycleStart) \(t.frameCount) \(frameTime) \(t.rolling ? "rolling" : "stopped") \(t.frame)"
        if t.hasBBT {
            line += " \(t.bar) \(t.beat) \(t.tick) \(t.tickDouble.map { "\($0)" } ?? "-") \(t.ticksPerBeat) \(t.beatsPerBar) \(t.beatType) \(t.beatsPerMinute)"
        }
        return line
    }

    /// The cycle and its frame time, or nil for a comment or a malformed line.
    public static func parse(_ line: Substring) -> (cycle: JackTransportSnapshot, frameTime: UInt32)? {
        let w = line.split(separator: " ")
        guard w.count == 5 || w.count == 13, let start = Int64(w[0]), let count = UInt32(w[1]), let frameTime = UInt32(w[2]),
            w[3] == "rolling" || w[3] == "stopped", let frame = UInt32(w[4])
        else { return nil }
        var t = JackTransportSnapshot(
            cycleStart: start, frameCount: count, rolling: w[3] == "rolling", frame: frame, hasBBT: false, bar: 0, beat: 0, tick: 0,
            ticksPerBeat: 0, beatsPerBar: 0, beatType: 0, beatsPerMinute: 0)
        if w.count == 13 {
            guard let bar = Int32(w[5]), let beat = Int32(w[6]), let tick = Int32(w[7]), let ticksPerBeat = Double(w[9]),
                let beatsPerBar = Float(w[10]), let beatType = Float(w[11]), let bpm = Double(w[12])
            else { return nil }
            t.hasBBT = true
            t.bar = bar
            t.beat = beat
            t.tick = tick
            t.tickDouble = w[8] == "-" ? nil : Double(w[8])
            t.ticksPerBeat = ticksPerBeat
            t.beatsPerBar = beatsPerBar
            t.beatType = beatType
            t.beatsPerMinute = bpm
        }
        return (t, frameTime)
    }
}
