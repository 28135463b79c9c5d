import TactusEngine
/// A Standard MIDI File as the reader understood it (docs/midi-files.md,
/// M1-M6): notes paired, other channel events, tempo map, time signatures
/// and track names kept, everything in integer ticks from the track's start.
///
/// Value type, built off the audio thread by `MIDIFileReader`; memory is
/// proportional to the events the file holds.
public struct MIDIFile: Sendable {
    /// 0, 1 or 2.
    public var format: Int
    /// Ticks per quarter note (the division), 1-32767. A beat is a quarter note.
    public var ticksPerQuarter: Int
    /// The track count the header declares (not trusted: `tracks` are the chunks found).
    public var declaredTrackCount: Int
    /// Every `MTrk` chunk, in file order.
    public var tracks: [MIDIFileTrack]

    public init(format: Int, ticksPerQuarter: Int, declaredTrackCount: Int, tracks: [MIDIFileTrack]) {
        self.format = format
        self.ticksPerQuarter = ticksPerQuarter
        self.declaredTrackCount = declaredTrackCount
        self.tracks = tracks
    }

    /// Notes in all tracks.
    public var noteCount: Int { tracks.reduce(0) { $0 + $1.notes.count } }
}

/// One `MTrk` chunk.
public struct MIDIFileTrack: Sendable {
    /// The first Sequence/Track Name meta event (03), as bytes (no encoding is specified).
    public var name: [UInt8]?
    /// Notes in the order of their note-ons (M4).
    public var notes: [MIDIFileNote] = []
    /// Program, control, pitch bend and pressure events (M6), in file order.
    public var channelEvents: [MIDIChannelEvent] = []
    /// Set Tempo meta events (51), in file order.
    public var tempoChanges: [MIDITempoChange] = []
    /// Time Signature meta events (58), in file order.
    public var timeSignatures: [MIDITimeSignature] = []
    /// The loop length a Tactus export stored (M16), if any.
    public var tactusLoopLength: BeatRational?
    /// The tick of End of Track, or of the last event when there is none.
    public var endTick: Int64 = 0
    /// Whether an End of Track meta event was found.
    public var hasEndOfTrack = false
    /// Note-offs with no open note of their key and channel (ignored, M4).
    public var unmatchedNoteOffs = 0
    /// Byte offset of the chunk's header in the file.
    public var offset: Int = 0

    public init() {}
}

/// A note: a note-on paired with its note-off (M4), in ticks.
public struct MIDIFileNote: Sendable, Equatable {
    public var startTick: Int64
    /// `>= startTick`; the track's end for a note that was never ended.
    public var endTick: Int64
    /// 0-127.
    public var key: UInt8
    /// 1-127.
    public var velocity: UInt8
    /// As people count it, 1-16.
    public var channel: UInt8

    public init(startTick: Int64, endTick: Int64, key: UInt8, velocity: UInt8, channel: UInt8) {
        self.startTick = startTick
        self.endTick = endTick
        self.key = key
        self.velocity = velocity
        self.channel = channel
    }
}

/// A channel-voice event that is not a note (M6): its status and data as in the file.
public struct MIDIChannelEvent: Sendable, Equatable {
    public var tick: Int64
    /// The status byte (`0xA0`-`0xEF`, never `0x8n`/`0x9n`).
    public var status: UInt8
    public var data1: UInt8
    /// 0 for the one-data-byte kinds (program change, channel pressure).
    public var data2: UInt8

    public init(tick: Int64, status: UInt8, data1: UInt8, data2: UInt8) {
        self.tick = tick
        self.status = status
        self.data1 = data1
        self.data2 = data2
    }

    /// What kind of event this is, by its status's high nibble.
    public var kind: Kind { Kind(rawValue: status >> 4) ?? .controlChange }

    /// The channel-voice kinds other than notes, by status nibble.
    public enum Kind: UInt8, Sendable, CaseIterable {
        case polyphonicPressure = 0xA
        case controlChange = 0xB
        case programChange = 0xC
        case channelPressure = 0xD
        case pitchBend = 0xE

        /// Singular noun for reports ("1 program change").
        public var singular: String {
            switch self {
            case .polyphonicPressure: return "polyphonic pressure event"
            case .controlChange: return "control change"
            case .programChange: return "program change"
            case .channelPressure: return "channel pressure event"
            case .pitchBend: return "pitch bend"
            }
        }

        /// Plural noun for reports ("3 program changes").
        public var plural: String {
            switch self {
            case .polyphonicPressure: return "polyphonic pressure events"
            case .controlChange: return "control changes"
            case .programChange: return "program changes"
            case .channelPressure: return "channel pressure events"
            case .pitchBend: return "pitch bends"
            }
        }
    }
}

/// A Set Tempo meta event: microseconds per quarter note from `tick` on.
public struct MIDITempoChange: Sendable, Equatable {
    public var tick: Int64
    public var microsecondsPerQuarter: Int

    public init(tick: Int64, microsecondsPerQuarter: Int) {
        self.tick = tick
        self.microsecondsPerQuarter = microsecondsPerQuarter
    }
}

/// A Time Signature meta event: `numerator / 2^denominatorPower` from `tick` on.
public struct MIDITimeSignature: Sendable, Equatable {
    public var tick: Int64
    public var numerator: Int
    public var denominatorPower: Int

    public init(tick: Int64, numerator: Int, denominatorPower: Int) {
        self.tick = tick
        self.numerator = numerator
        self.denominatorPower = denominatorPower
    }

    /// Whether a bar of it has a length Tactus can count (numerator 1-255,
    /// denominator 1-256); others are ignored by the import (reported).
    public var isUsable: Bool { numerator > 0 && denominatorPower <= 8 }
}
