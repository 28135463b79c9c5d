import TactusEngine

/// Everything a pattern text holds: its patterns in text order, how a
/// requested pattern takes over, which MIDI input selects one, and the song
/// (pattern format "Version 3"; timing contract §9).
///
/// A version-1 or version-2 text, or a version-3 text without `pattern`
/// lines, is one pattern named `main` with the default switch, no trigger
/// and no song. Value type, built off the audio thread (the parser, the
/// MIDI file import, code); the engine plays a snapshot made from it.
public struct Arrangement: Equatable, Sendable {
    /// Most patterns one text may hold (pattern format, "Limits (version 3)").
    public static var maximumPatternCount: Int { 512 }
    /// Most notes over the common cycles of all patterns together.
    public static var maximumTotalCycleNoteCount: Int { 4_194_304 }

    /// 1, 2 or 3, as the text's header says (what the writer writes back).
    public var version: Int
    /// The patterns, numbered 1, 2, ... in this order; never empty.
    public var patterns: [NamedPattern]
    /// Whether the text has `pattern` lines (false: its one pattern is `main`).
    public var hasPatternLines: Bool
    /// The `switch` line, or the defaults without one.
    public var switchRule: SwitchRule
    /// The `trigger` lines.
    public var triggers: PatternTriggers
    /// The song, if the text has one.
    public var song: Song?

    /// One pattern of version 1 or 2, as its text would read.
    public init(single pattern: Pattern) {
        version = pattern.version
        patterns = [NamedPattern(name: NamedPattern.mainName, pattern: pattern)]
        hasPatternLines = false
        switchRule = SwitchRule()
        triggers = PatternTriggers()
        song = nil
    }

    public init(
        version: Int, patterns: [NamedPattern], hasPatternLines: Bool, switchRule: SwitchRule = SwitchRule(),
        triggers: PatternTriggers = PatternTriggers(), song: Song? = nil
    ) {
        self.version = version
        self.patterns = patterns
        self.hasPatternLines = hasPatternLines
        self.switchRule = switchRule
        self.triggers = triggers
        self.song = song
    }

    /// Whether only version 3 can say this: several patterns, a pattern's
    /// program, a switch line other than the defaults, a trigger, a song, or
    /// controllers (points, locks, `ramp-step`).
    public var needsVersion3: Bool {
        hasSeveralPatterns || patterns.contains { $0.pattern.usesControllers }
    }

    /// Whether the text is more than one pattern's lanes: several patterns,
    /// `pattern` lines, a pattern's program, a switch line other than the
    /// defaults, a trigger or a song (what the piano roll and the prompt do
    /// not edit). Controllers in one pattern's lanes are not.
    public var hasSeveralPatterns: Bool {
        hasPatternLines || patterns.count > 1 || switchRule != SwitchRule() || triggers != PatternTriggers() || song != nil
            || patterns.contains { $0.program != nil }
    }

    /// Every controller point of every pattern. O(patterns).
    public var controllerPointCount: Int { patterns.reduce(0) { $0 + $1.pattern.controllers.count } }

    /// Every lock of every note of every pattern. O(notes).
    public var lockCount: Int { patterns.reduce(0) { $0 + $1.pattern.notes.reduce(0) { $0 + $1.locks.count } } }

    /// The index of the pattern named `name`, if any. O(patterns).
    public func index(ofPattern name: [UInt8]) -> Int? {
        patterns.firstIndex { $0.name == name }
    }

    /// Every note of every pattern. O(patterns).
    public var noteCount: Int { patterns.reduce(0) { $0 + $1.pattern.notes.count } }

    /// Every lane of every pattern. O(patterns).
    public var laneCount: Int { patterns.reduce(0) { $0 + $1.pattern.lanes.count } }

    /// The song's length in beats, `Σ N_i × C_i` (§9.5), exact; nil without a
    /// song or when it passes 2^32 beats or needs a denominator of 2^31 or more.
    public var songLength: BeatRational? {
        guard let song else { return nil }
        if case .beats(let b) = Song.length(of: song.entries, cycles: patterns.map { $0.pattern.length }) { return b }
        return nil
    }
}

/// A pattern of a version-3 text: its name, its lanes and notes (a
/// version-2 `Pattern`), and the program change it sends when it starts
/// playing (§9.4, §9.7).
public struct NamedPattern: Equatable, Sendable {
    /// 1-32 bytes of `A-Z a-z 0-9 - _`.
    public var name: [UInt8]
    /// The lanes and notes; its `length` is the pattern's cycle `C`.
    public var pattern: Pattern
    /// `program P [bank MSB [LSB]] [channel C]`, nil without `program`.
    public var program: PatternProgram?

    public init(name: [UInt8], pattern: Pattern, program: PatternProgram? = nil) {
        self.name = name
        self.pattern = pattern
        self.program = program
    }

    /// The name of the one pattern of a text without `pattern` lines.
    public static var mainName: [UInt8] { Array("main".utf8) }
}

/// A pattern's Bank Select and Program Change (§9.4 step 2).
public struct PatternProgram: Equatable, Sendable {
    /// Program Change value, 0-127.
    public var program: UInt8
    /// Controller 0, 0-127, if given.
    public var bankMSB: UInt8?
    /// Controller 32, 0-127, if given (only with `bankMSB`).
    public var bankLSB: UInt8?
    /// The channel, 1-16 (1 by default).
    public var channel: UInt8

    public init(program: UInt8, bankMSB: UInt8? = nil, bankLSB: UInt8? = nil, channel: UInt8 = 1) {
        self.program = program
        self.bankMSB = bankMSB
        self.bankLSB = bankLSB
        self.channel = channel
    }
}

/// The grid a request's boundary lies on (§9.2).
public enum SwitchGrid: Equatable, Sendable {
    case now
    case beat
    case bar
    /// A bar start `m × beatsPerBar` with `m` a multiple of N, 1-64.
    case bars(Int)
    /// Whole cycles of the playing pattern from its origin.
    case end
}

extension SwitchGrid {
    /// The grid a `when` spells, as a pattern text's `switch at`, the
    /// `tactus jack` prompt's `play NAME WHEN` and a transport script's
    /// `request NAME WHEN` write it: `now`, `beat`, `bar`, `bars N` (N 1-64),
    /// `end`. Nil for anything else.
    public init?(words: ArraySlice<String>) {
        guard let first = words.first else { return nil }
        switch (first, words.count) {
        case ("now", 1): self = .now
        case ("beat", 1): self = .beat
        case ("bar", 1): self = .bar
        case ("end", 1): self = .end
        case ("bars", 2):
            guard let n = Int(words[words.startIndex + 1]), (1...64).contains(n) else { return nil }
            self = .bars(n)
        default: return nil
        }
    }

    /// Its spelling in a text (`bars 4`).
    public var text: String {
        switch self {
        case .now: return "now"
        case .beat: return "beat"
        case .bar: return "bar"
        case .bars(let n): return "bars \(n)"
        case .end: return "end"
        }
    }

    /// The `when` words a person may type, for messages.
    public static var choicesText: String { "now, beat, bar, bars N (1-64) or end" }
}

/// The `switch` line: how a requested pattern takes over (§9.2-§9.4).
public struct SwitchRule: Equatable, Sendable {
    public var at: SwitchGrid
    /// `phase keep` (true) keeps the origin; `phase restart` (false) sets it to the boundary.
    public var keepsPhase: Bool
    /// `notes ring` (true) lets the old pattern's notes end on their own; `notes cut` ends them at the switch.
    public var notesRing: Bool
    /// `grace G`, beats, `>= 0`.
    public var grace: BeatRational

    /// `at bar phase restart notes cut grace 0`, the defaults.
    public init(at: SwitchGrid = .bar, keepsPhase: Bool = false, notesRing: Bool = false, grace: BeatRational = .zero) {
        self.at = at
        self.keepsPhase = keepsPhase
        self.notesRing = notesRing
        self.grace = grace
    }
}

/// The `trigger` lines: which MIDI input selects a pattern (§9.6). A
/// channel is 1-16, or 0 for any.
public struct PatternTriggers: Equatable, Sendable {
    /// `trigger program [in C]`: the channel listened to, nil without the line.
    public var programChannel: UInt8?
    /// `trigger note KEY [in C]`: the first key (pattern 1), nil without the line.
    public var noteKey: UInt8?
    public var noteChannel: UInt8
    /// `trigger cc N [in C]`: the controller, 0-119, nil without the line.
    public var controller: UInt8?
    public var controllerChannel: UInt8

    public init(
        programChannel: UInt8? = nil, noteKey: UInt8? = nil, noteChannel: UInt8 = 0, controller: UInt8? = nil,
        controllerChannel: UInt8 = 0
    ) {
        self.programChannel = programChannel
        self.noteKey = noteKey
        self.noteChannel = noteChannel
        self.controller = controller
        self.controllerChannel = controllerChannel
    }
}

/// The song: entries played in order from beat 0, then `end` (§9.5).
public struct Song: Equatable, Sendable {
    /// Most entries a song may hold.
    public static var maximumEntryCount: Int { 65_536 }
    /// Most passes of one entry.
    public static var maximumPasses: Int { 9_999 }

    /// What happens after the last entry.
    public enum End: Equatable, Sendable {
        /// The song starts again.
        case loop
        /// Nothing plays.
        case stop
        /// The last entry's pattern keeps playing.
        case hold
    }

    /// One `play NAME [N]`.
    public struct Entry: Equatable, Sendable {
        /// Index into `Arrangement.patterns`.
        public var pattern: Int
        /// Passes of the pattern's cycle, 1-9999.
        public var passes: Int

        public init(pattern: Int, passes: Int = 1) {
            self.pattern = pattern
            self.passes = passes
        }
    }

    public var end: End
    public var entries: [Entry]

    public init(end: End, entries: [Entry]) {
        self.end = end
        self.entries = entries
    }

    /// A song's length, or why it is out of the limits.
    public enum Length: Equatable, Sendable {
        case beats(BeatRational)
        /// More than 2^32 beats.
        case tooLong
        /// A denominator of 2^31 or more.
        case denominatorTooLarge
    }

    /// `Σ N_i × C_i`, exact (`cycles[i]` is pattern i's cycle), within the
    /// limits of pattern format "Limits (version 3)". O(entries).
    public static func length(of entries: [Entry], cycles: [BeatRational]) -> Length {
        var starts: [BeatRational]? = nil
        return walk(entries, cycles: cycles, starts: &starts)
    }

    /// Each entry's start `S_i` (§9.5), exact, for a song within the limits. O(entries).
    public static func starts(of entries: [Entry], cycles: [BeatRational]) -> [BeatRational] {
        var starts: [BeatRational]? = []
        starts!.reserveCapacity(entries.count)
        _ = walk(entries, cycles: cycles, starts: &starts)
        return starts!
    }

    static func walk(_ entries: [Entry], cycles: [BeatRational], starts: inout [BeatRational]?) -> Length {
        var num: Int128 = 0
        var den: Int128 = 1
        for entry in entries {
            starts?.append(BeatRational(numerator: Int64(num), denominator: Int64(den))!)
            let c = cycles[entry.pattern]
            // num/den + N × c.n/c.d, reduced; every part stays below 2^31 × 2^33.
            let n = Int128(entry.passes) * Int128(c.numerator)
            let d = Int128(c.denominator)
            num = num * d + n * den
            den = den * d
            let g = LaneCycle.gcd(num, den)
            if g > 1 { num /= g; den /= g }
            if den >= Int128(1) << 31 { return .denominatorTooLarge }
            if num > (Int128(1) << 32) * den { return .tooLong }
        }
        return .beats(BeatRational(numerator: Int64(num), denominator: Int64(den))!)
    }
}
