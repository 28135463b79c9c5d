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

extension SwitchSettings.Grid {
    /// The grid a `when` spells in a message (an editor's `urn:tactus:when`):
    /// `now`, `beat`, `bar`, `end` or `bars N` (N 1-64, one space or more
    /// between), as a pattern text writes it; nil for anything else. A
    /// trailing zero byte (an `atom:String`'s) is allowed. Allocation-free.
    @_noLocks
    public init?(spelling bytes: UnsafeRawBufferPointer) {
        var count = bytes.count
        while count > 0, bytes[count - 1] == 0 { count -= 1 }
        var wordEnd = 0
        while wordEnd < count, bytes[wordEnd] != 0x20 { wordEnd += 1 }
        if wordEnd == count {
            if Self.isWord("now", bytes, count) { self = .now; return }
            if Self.isWord("beat", bytes, count) { self = .beat; return }
            if Self.isWord("bar", bytes, count) { self = .bar; return }
            if Self.isWord("end", bytes, count) { self = .end; return }
            return nil
        }
        guard Self.isWord("bars", bytes, wordEnd) else { return nil }
        var i = wordEnd
        while i < count, bytes[i] == 0x20 { i += 1 }
        var n: Int64 = 0
        guard i < count else { return nil }
        while i < count {
            let b = bytes[i]
            guard b >= 0x30, b <= 0x39, n <= 64 else { return nil }
            n = n * 10 + Int64(b - 0x30)
            i += 1
        }
        guard n >= 1, n <= 64 else { return nil }
        self = .bars(n)
    }

    /// Whether the first `count` bytes are `word`.
    @_noLocks
    private static func isWord(_ word: StaticString, _ bytes: UnsafeRawBufferPointer, _ count: Int) -> Bool {
        guard count == word.utf8CodeUnitCount else { return false }
        let w = word.utf8Start
        for i in 0..<count where bytes[i] != w[i] { return false }
        return true
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
