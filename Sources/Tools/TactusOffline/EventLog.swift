import TactusEngine
import TactusModel

/// One MIDI event at an absolute frame: a line of an event log.
public struct LoggedEvent: Equatable, Hashable, Sendable {
    /// Frames since the start of the session (the sum of all earlier blocks).
    public var frame: Int64
    public var bytes: [UInt8]
    /// The musical position of the frame, when the producer knows it (for display only:
    /// not part of equality).
    public var position: MusicalPosition?

    public init(frame: Int64, bytes: [UInt8], position: MusicalPosition? = nil) {
        self.frame = frame
        self.bytes = bytes
        self.position = position
    }

    public static func == (a: LoggedEvent, b: LoggedEvent) -> Bool { a.frame == b.frame && a.bytes == b.bytes }
    public func hash(into h: inout Hasher) { h.combine(frame); h.combine(bytes) }

    /// A short description: `note-on  C4 (60) vel 100 ch 1`.
    public var summary: String {
        switch bytes.first {
        case 0xF8: return "clock"
        case 0xFA: return "start"
        case 0xFB: return "continue"
        case 0xFC: return "stop"
        case 0xF2 where bytes.count == 3: return "song position \(Int(bytes[1]) | Int(bytes[2]) << 7) (sixteenths)"
        default: break
        }
        guard let status = bytes.first, status >= 0x80, status < 0xF0 else { return "" }
        let channel = Int(status & 0x0F) + 1
        // Contract §10: controllers, pitch bend, pressure and programs, spelled as the
        // pattern text's statements; a pattern's Bank Select (§9.4) named as such.
        switch (status & 0xF0, bytes.count) {
        case (0xB0, 3) where bytes[1] == 0: return "cc 0 = \(bytes[2]) ch \(channel) (bank select MSB)"
        case (0xB0, 3) where bytes[1] == 32: return "cc 32 = \(bytes[2]) ch \(channel) (bank select LSB)"
        case (0xB0, 3): return "cc \(bytes[1]) = \(bytes[2]) ch \(channel)"
        case (0xE0, 3): return "bend \((Int(bytes[1]) | Int(bytes[2]) << 7) - 8192) ch \(channel)"
        case (0xD0, 2): return "pressure \(bytes[1]) ch \(channel)"
        case (0xC0, 2): return "program \(bytes[1]) ch \(channel)"
        default: break
        }
        guard bytes.count == 3 else { return "" }
        let key = Int(bytes[1])
        let names = ["C", "C#", "D", "D#", "E", "F", "F#", "G", "G#", "A", "A#", "B"]
        let name = "\(names[key % 12])\(key / 12 - 1)"
        if isNoteOn { return "note-on  \(name) (\(key)) vel \(bytes[2]) ch \(channel)" }
        if isNoteOff { return "note-off \(name) (\(key)) ch \(channel)" }
        return ""
    }

    public var isNoteOn: Bool { bytes.count == 3 && bytes[0] & 0xF0 == 0x90 && bytes[2] != 0 }
    public var isNoteOff: Bool { bytes.count == 3 && (bytes[0] & 0xF0 == 0x80 || (bytes[0] & 0xF0 == 0x90 && bytes[2] == 0)) }
    /// `(channel 0-15) * 128 + key` for note messages.
    public var slot: Int { Int(bytes[0] & 0x0F) * 128 + Int(bytes[1]) }
}

/// A position as a person reads it in a DAW: bar and beat counted from 1.
public struct MusicalPosition: Sendable {
    /// Beats since the timeline's beat 0.
    public var beats: Double
    public var beatsPerBar: Double

    public init(beats: Double, beatsPerBar: Double) {
        self.beats = beats
        self.beatsPerBar = beatsPerBar
    }

    /// `BAR:BEAT` with both counted from 1, the beat to three decimals (`2:1.500`).
    public var barBeatText: String {
        // Round first, then split, so that a beat a hair below a bar line reads as the next bar's 1.000.
        let milli = (beats * 1000).rounded()
        let barMilli = (beatsPerBar * 1000).rounded()
        let bar = (milli / barMilli).rounded(.down)
        let inBar = Int64(milli - bar * barMilli) + 1000
        let frac = inBar % 1000
        let fracText = frac < 10 ? "00\(frac)" : (frac < 100 ? "0\(frac)" : "\(frac)")
        return "\(Int64(bar) + 1):\(inBar / 1000).\(fracText)"
    }
}

/// The event log format (`docs/event-log.md`): one event a line, its absolute
/// frame in decimal and its bytes in two-digit lower-case hex, `#` comments.
///
///     # tactus event log: FRAME then MIDI bytes in hex
///     0 90 3c 64
///     12000 80 3c 00
public enum EventLog {
    public static func line(_ event: LoggedEvent) -> String {
        var s = String(event.frame)
        for b in event.bytes {
            s += b < 16 ? " 0" : " "
            s += String(b, radix: 16)
        }
        return s
    }

    /// A log that could not be read.
    public struct ParseError: Error, CustomStringConvertible {
        public var line: Int
        public var reason: String
        public var description: String { "event log line \(line): \(reason)" }
    }

    public static func parse(_ text: String) throws(ParseError) -> [LoggedEvent] {
        var events: [LoggedEvent] = []
        var n = 0
        for raw in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            n += 1
            let content = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let words = content.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
            guard let first = words.first else { continue }
            guard let frame = Int64(first) else { throw ParseError(line: n, reason: "'\(QuotedText.quoted(Array(first.utf8)))' is not a frame number") }
            let bytes = words.dropFirst().compactMap { UInt8($0, radix: 16) }
            guard !bytes.isEmpty, bytes.count == words.count - 1 else {
                throw ParseError(line: n, reason: "expected FRAME followed by MIDI bytes in hex")
            }
            events.append(LoggedEvent(frame: frame, bytes: bytes))
        }
        return events
    }
}
