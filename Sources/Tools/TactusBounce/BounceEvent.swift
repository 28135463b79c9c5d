/// One channel-voice message (note, controller, program, pressure, pitch
/// bend) at the exact frame the instrument must receive it (docs/bounce.md, B1).
///
/// A value type; frames are Int64 from the start of the bounce (frame 0 is
/// the first sample of the file).
public struct BounceEvent: Equatable, Hashable, Sendable {
    public var frame: Int64
    /// `0x80`-`0xEF`: the channel is the low nibble (0-15).
    public var status: UInt8
    public var data1: UInt8
    /// 0 for the one-data-byte kinds (program change, channel pressure).
    public var data2: UInt8

    public init(frame: Int64, status: UInt8, data1: UInt8, data2: UInt8 = 0) {
        self.frame = frame
        self.status = status
        self.data1 = data1
        self.data2 = data2
    }

    /// The message kind, by the status's high nibble (`0x8`-`0xE`).
    public var kind: UInt8 { status >> 4 }
    /// 0-15.
    public var channel: Int { Int(status & 0x0F) }
    public var isNoteOn: Bool { kind == 0x9 && data2 != 0 }
    public var isNoteOff: Bool { kind == 0x8 || (kind == 0x9 && data2 == 0) }
    /// 2 for program change and channel pressure, 3 for the others.
    public var byteCount: Int { kind == 0xC || kind == 0xD ? 2 : 3 }
    /// The message as MIDI bytes.
    public var bytes: [UInt8] { byteCount == 2 ? [status, data1] : [status, data1, data2] }

    /// The order of events at one frame (B2): controllers, programs, pressure
    /// and pitch bend first (so a note sounds with the program and controllers
    /// of its tick), then note-offs (so a key ended and restarted at one frame
    /// sounds again), then note-ons.
    public var rankAtFrame: Int { isNoteOn ? 2 : (isNoteOff ? 1 : 0) }
}
