import TactusEngine
/// One event to write: its tick and its bytes as they go after the delta
/// time (a channel message with its status, or a whole `FF type length data`
/// meta event).
public struct MIDIFileEvent: Sendable, Equatable {
    public var tick: Int64
    public var bytes: [UInt8]

    public init(tick: Int64, bytes: [UInt8]) {
        self.tick = tick
        self.bytes = bytes
    }

    /// A meta event `FF type length data`.
    public static func meta(tick: Int64, type: UInt8, data: [UInt8]) -> MIDIFileEvent {
        var bytes: [UInt8] = [0xFF, type]
        MIDIFileWriter.appendQuantity(UInt32(data.count), to: &bytes)
        return MIDIFileEvent(tick: tick, bytes: bytes + data)
    }

    /// A Set Tempo meta event.
    public static func tempo(tick: Int64, microsecondsPerQuarter: Int) -> MIDIFileEvent {
        let t = UInt32(clamping: microsecondsPerQuarter) & 0xFF_FFFF
        return meta(tick: tick, type: 0x51, data: [UInt8(t >> 16), UInt8(t >> 8 & 0xFF), UInt8(t & 0xFF)])
    }
}

/// Writes a Standard MIDI File: format 1, ticks per quarter note, one
/// `MTrk` chunk per track, every status byte written (no running status).
///
/// Off the audio thread; O(n) in the events.
public enum MIDIFileWriter {
    /// The file's bytes. Each track's events must be in tick order; its End
    /// of Track goes at `endTicks[i]` (or its last event, if later).
    public static func bytes(ticksPerQuarter: Int, tracks: [[MIDIFileEvent]], endTicks: [Int64]) -> [UInt8] {
        var out: [UInt8] = Array("MThd".utf8)
        appendUInt32(6, to: &out)
        appendUInt16(1, to: &out)
        appendUInt16(UInt16(clamping: tracks.count), to: &out)
        appendUInt16(UInt16(clamping: ticksPerQuarter) & 0x7FFF, to: &out)
        for (i, events) in tracks.enumerated() {
            var body: [UInt8] = []
            var tick: Int64 = 0
            for e in events {
                advance(from: &tick, to: e.tick, into: &body)
                body += e.bytes
            }
            advance(from: &tick, to: max(tick, i < endTicks.count ? endTicks[i] : 0), into: &body)
            body += [0xFF, 0x2F, 0x00]
            out += Array("MTrk".utf8)
            appendUInt32(UInt32(body.count), to: &out)
            out += body
        }
        return out
    }

    /// Writes the delta to `target`; a gap beyond the 4-byte quantity
    /// (2^28 - 1 ticks) is bridged by empty text events, which readers skip.
    static func advance(from tick: inout Int64, to target: Int64, into body: inout [UInt8]) {
        let largest: Int64 = (1 << 28) - 1
        while target - tick > largest {
            appendQuantity(UInt32(largest), to: &body)
            body += [0xFF, 0x01, 0x00]
            tick += largest
        }
        appendQuantity(UInt32(max(target - tick, 0)), to: &body)
        tick = max(target, tick)
    }

    public static func appendQuantity(_ value: UInt32, to out: inout [UInt8]) {
        var shift: UInt32 = 21
        var started = false
        while shift > 0 {
            let group = UInt8((value >> shift) & 0x7F)
            if started || group != 0 {
                out.append(group | 0x80)
                started = true
            }
            shift -= 7
        }
        out.append(UInt8(value & 0x7F))
    }

    static func appendUInt32(_ v: UInt32, to out: inout [UInt8]) {
        out += [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
    }

    static func appendUInt16(_ v: UInt16, to out: inout [UInt8]) {
        out += [UInt8(v >> 8), UInt8(v & 0xFF)]
    }
}
