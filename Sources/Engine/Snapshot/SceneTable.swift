/// One pattern of a snapshot as the switch reads it (timing contract §9): its
/// name's hash (a new text keeps the playing pattern by name, §9.7) and the
/// Bank Select and Program Change it sends when it starts playing (§9.4).
public struct ScenePart: Sendable, BitwiseCopyable {
    /// `TextHash.of(name)`.
    public var nameHash: UInt64
    /// Program Change 0-127, or -1 when the pattern has no `program`.
    public var program: Int16
    /// Controller 0 (MSB) and 32 (LSB), or -1 when not given.
    public var bankMSB: Int16
    public var bankLSB: Int16
    /// The program change's channel, 0-15 (as the status byte counts).
    public var channelIndex: UInt8

    @_noLocks
    public init(nameHash: UInt64, program: Int16, bankMSB: Int16, bankLSB: Int16, channelIndex: UInt8) {
        self.nameHash = nameHash
        self.program = program
        self.bankMSB = bankMSB
        self.bankLSB = bankLSB
        self.channelIndex = channelIndex
    }
}

/// The `switch` line as the renderer reads it (§9.2-§9.4).
public struct SwitchSettings: Sendable, BitwiseCopyable, Equatable {
    /// The boundary grid: `now`, `beat`, `bar`, `bars N`, `end`.
    public enum Grid: Sendable, BitwiseCopyable, Equatable {
        case now, beat, bar, bars(Int64), end
    }
    public var grid: Grid
    public var keepsPhase: Bool
    public var notesRing: Bool
    /// `grace G`, beats (exactly representable: a pattern-format beat value, split).
    public var grace: BeatPosition

    @_noLocks
    public init(grid: Grid = .bar, keepsPhase: Bool = false, notesRing: Bool = false, grace: BeatPosition = .zero) {
        self.grid = grid
        self.keepsPhase = keepsPhase
        self.notesRing = notesRing
        self.grace = grace
    }
}

/// The `trigger` lines as the MIDI input reads them (§9.6). Channels are
/// 1-16, 0 for any; -1 where the text has no such trigger.
public struct TriggerSettings: Sendable, BitwiseCopyable, Equatable {
    public var programChannel: Int8
    public var noteKey: Int16
    public var noteChannel: UInt8
    public var controller: Int16
    public var controllerChannel: UInt8

    @_noLocks
    public init(programChannel: Int8 = -1, noteKey: Int16 = -1, noteChannel: UInt8 = 0, controller: Int16 = -1, controllerChannel: UInt8 = 0) {
        self.programChannel = programChannel
        self.noteKey = noteKey
        self.noteChannel = noteChannel
        self.controller = controller
        self.controllerChannel = controllerChannel
    }

    /// Whether a listened channel `listened` (0: any) hears `channel` (1-16).
    @_noLocks @inline(__always)
    static func hears(_ listened: UInt8, _ channel: UInt8) -> Bool { listened == 0 || listened == channel }
}

/// One song entry: its pattern and its start `S_i` (§9.5).
public struct SongStep: Sendable, BitwiseCopyable {
    /// Index of the pattern (0-based).
    public var part: Int32
    /// `S_i`, beats from the song's start.
    public var start: BeatPosition

    @_noLocks
    public init(part: Int32, start: BeatPosition) {
        self.part = part
        self.start = start
    }
}

/// What happens after a song's last entry.
public enum SongEnding: Sendable, BitwiseCopyable, Equatable {
    case loop, stop, hold
}
