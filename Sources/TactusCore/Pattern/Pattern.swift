/// One note of a pattern: where it starts in the loop, how long it lasts,
/// and what it plays. Beats are exact rationals (pattern format §"note").
public struct PatternNote: Equatable, Sendable {
    /// Beats from the start of the loop, `0 <= start < length`.
    public var start: BeatRational
    /// Beats, `> 0`. May exceed the loop: the note then overlaps the next pass.
    public var duration: BeatRational
    /// MIDI key, 0-127.
    public var key: UInt8
    /// MIDI velocity, 1-127.
    public var velocity: UInt8
    /// MIDI channel as people count it, 1-16.
    public var channel: UInt8

    public init(start: BeatRational, duration: BeatRational, key: UInt8, velocity: UInt8, channel: UInt8 = 1) {
        self.start = start
        self.duration = duration
        self.key = key
        self.velocity = velocity
        self.channel = channel
    }
}

/// A pattern as a person wrote it: a loop length and notes in text order.
///
/// The text order matters: it breaks ties between notes that start together
/// (timing contract §5). `Pattern` is the editable model, used off the audio
/// thread; the audio thread plays a `PatternSnapshot` built from it.
public struct Pattern: Equatable, Sendable {
    /// Most notes a pattern may hold (pattern format, "Limits").
    public static var maximumNoteCount: Int { 65_536 }

    /// Loop length in beats, `> 0`.
    public var length: BeatRational
    /// Notes in the order of the text.
    public var notes: [PatternNote]

    public init(length: BeatRational, notes: [PatternNote] = []) {
        self.length = length
        self.notes = notes
    }

    /// Checks the pattern format's rules on a pattern built in code (the parser
    /// applies the same rules with line numbers). Returns the first problem.
    public func validationError() -> PatternError? {
        if length <= .zero { return PatternError(line: 0, reason: .lengthNotPositive) }
        if !PatternLimits.isWritable(length) { return PatternError(line: 0, reason: .fractionPartTooLarge(field: "length")) }
        if length > PatternLimits.maximumBeatValue { return PatternError(line: 0, reason: .beatValueTooLarge(field: "length")) }
        if notes.count > Pattern.maximumNoteCount { return PatternError(line: 0, reason: .tooManyNotes) }
        for (i, note) in notes.enumerated() {
            let line = i + 1
            if note.start < .zero { return PatternError(line: line, reason: .negativeBeat(field: "start")) }
            if note.start >= length { return PatternError(line: line, reason: .startNotBeforeLength) }
            if note.duration <= .zero { return PatternError(line: line, reason: .durationNotPositive) }
            if !PatternLimits.isWritable(note.start) { return PatternError(line: line, reason: .fractionPartTooLarge(field: "start")) }
            if !PatternLimits.isWritable(note.duration) { return PatternError(line: line, reason: .fractionPartTooLarge(field: "duration")) }
            if note.duration > PatternLimits.maximumBeatValue { return PatternError(line: line, reason: .beatValueTooLarge(field: "duration")) }
            if note.key > 127 { return PatternError(line: line, reason: .outOfRange(field: "key", range: "0-127", found: "\(note.key)")) }
            if note.velocity < 1 || note.velocity > 127 { return PatternError(line: line, reason: .outOfRange(field: "velocity", range: "1-127", found: "\(note.velocity)")) }
            if note.channel < 1 || note.channel > 16 { return PatternError(line: line, reason: .outOfRange(field: "channel", range: "1-16", found: "\(note.channel)")) }
        }
        return nil
    }
}

/// The numeric limits of the pattern format.
public enum PatternLimits {
    /// Largest beat value (1,000,000).
    public static var maximumBeatValue: BeatRational { BeatRational(1_000_000) }
    /// Most digits after a decimal point.
    public static var maximumDecimalDigits: Int { 9 }
    /// A fraction's numerator and denominator are below this (2^31).
    public static var fractionPartLimit: Int64 { 1 << 31 }

    /// Whether the text format can spell `value` exactly: as a decimal of at
    /// most nine places, or as a fraction with parts below 2^31. (A pattern
    /// built in code must pass this, or its saved text would not load.)
    public static func isWritable(_ value: BeatRational) -> Bool {
        if 1_000_000_000 % value.denominator == 0 { return true }
        return value.numerator.magnitude < UInt64(fractionPartLimit) && value.denominator < fractionPartLimit
    }
}

// Hashing needs a random seed, which in Embedded Swift would tie the plugin to
// a C library with arc4random_buf (glibc 2.36); only tests and tools hash these.
#if !hasFeature(Embedded)
extension PatternNote: Hashable {}
extension Pattern: Hashable {}
#endif
