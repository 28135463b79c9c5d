import TactusEngine
/// Why a pattern text was rejected, with the line it was found on.
///
/// A rejected pattern is rejected whole; whoever asked keeps the pattern in use.
/// `message` is the sentence shown to a person: `line 4: velocity must be 1-127, found 0`.
public struct PatternError: Error, Sendable {
    /// 1-based line number; 0 when the problem is not on one line (a pattern built in code).
    public var line: Int
    /// 1-based column, in bytes from the line's start, of the field (or the
    /// statement) that is wrong; 0 when there is none (a missing statement, a
    /// check made at the end). Errors compare by line and reason only.
    public var column: Int
    public var reason: Reason

    public init(line: Int, column: Int = 0, reason: Reason) {
        self.line = line
        self.column = column
        self.reason = reason
    }

    /// `LINE:COLUMN: reason` (or `LINE: reason`), as `tactus check` prints it after the file name.
    public var location: String {
        column > 0 ? "\(line):\(column)" : "\(line)"
    }

    /// Every way a pattern can be wrong.
    public enum Reason: Sendable {
        /// The first statement is not `tactus-pattern`.
        case missingHeader
        /// `tactus-pattern N` with an N this reader does not know.
        case unsupportedVersion(String)
        /// A second `tactus-pattern` line.
        case duplicateHeader
        /// A statement that is not `length` or `note`.
        case unknownStatement(String)
        /// A statement with too few or too many fields.
        case wrongFieldCount(statement: String, expected: String, found: Int)
        /// A beat value that is not a number of the allowed form.
        case invalidNumber(field: String, text: String)
        /// A beat value below zero.
        case negativeBeat(field: String)
        /// A beat value above 1,000,000.
        case beatValueTooLarge(field: String)
        /// More than nine digits after the decimal point.
        case tooManyDecimalDigits(field: String)
        /// A fraction's numerator or denominator of 2^31 or more.
        case fractionPartTooLarge(field: String)
        /// A fraction with denominator zero.
        case zeroDenominator(field: String)
        /// An integer field outside its range.
        case outOfRange(field: String, range: String, found: String)
        /// An integer field (key, velocity, channel) written as something else (`60.0`, `1/2`).
        case notAnInteger(field: String, text: String)
        /// A key that is neither a number nor a note name (`H4`, `c4`).
        case notAKey(String)
        /// A note name outside C-1 to G9 (`G#9`, `Cb-1`).
        case noteNameOutOfRange(String)
        /// `length 0`.
        case lengthNotPositive
        /// A second `length`; `firstLine` is where the first one was.
        case duplicateLength(firstLine: Int)
        /// No `length` statement at all.
        case missingLength
        /// A note whose start is not below the loop length.
        case startNotBeforeLength
        /// A note with duration 0.
        case durationNotPositive
        /// More than 65,536 notes.
        case tooManyNotes
        /// Bytes that are not UTF-8.
        case invalidUTF8
        // Version 2 (pattern format, "Version 2").
        /// A statement of a version-2 file that is not `seed`, `lane` or `note`.
        case unknownStatementVersion2(String)
        /// `length` in a version-2 file.
        case lengthInVersion2
        /// A version-2 `note` before any `lane`.
        case noteOutsideLane
        /// A version-2 pattern without a `lane`.
        case missingLane
        /// A lane name that is not 1-32 of `A-Z a-z 0-9 - _`.
        case badLaneName(String)
        /// A second lane of the same name.
        case duplicateLane(name: String, firstLine: Int)
        /// An option after `lane NAME length L` that is not one of the three.
        case unknownLaneOption(String)
        /// A lane option given twice.
        case duplicateLaneOption(String)
        /// `swing R G` with R outside (0, 1).
        case swingRatioOutOfRange
        /// `swing R G` with G = 0.
        case swingGridNotPositive
        /// A second `seed`.
        case duplicateSeed(firstLine: Int)
        /// `prob=P` outside (0, 1].
        case probabilityOutOfRange
        /// `seed`, `lane` or `prob=` in a version-1 file.
        case needsVersion2(String)
        /// A version-2 note whose start is not below its lane's length.
        case startNotBeforeLaneLength
        /// More than 64 lanes.
        case tooManyLanes
        /// The lanes' common cycle is beyond 1,000,000 beats.
        case cycleTooLong(lane: String, length: String)
        /// The lanes hold more than 1,048,576 notes over their common cycle.
        case tooManyCycleNotes(cycle: String)
        /// A note's (swung) start or end in the common cycle needs parts of 2^62 or more.
        case swingTooFine
        // Version 3 (pattern format, "Version 3").
        /// A statement of version 3 (`pattern`, `switch`, `trigger`, `song`, `play`) in a version-1 or -2 text.
        case needsVersion3(String)
        /// A statement of a version-3 text that is none of its statements.
        case unknownStatementVersion3(String)
        /// `seed`, `switch` or `trigger` after the first `pattern`.
        case mustPrecedePatterns(String)
        /// A pattern, lane, note or global statement after `song`.
        case mustPrecedeSong(String)
        /// A second `switch` or `song` (`seed` keeps `duplicateSeed`).
        case duplicateStatement(String, firstLine: Int)
        /// A word after `switch` that is none of its options.
        case unknownSwitchOption(String)
        /// A switch option given twice.
        case duplicateSwitchOption(String)
        /// `switch at X` with X not a grid.
        case badSwitchGrid(String)
        /// `switch phase X` or `switch notes X` with X not one of its two words.
        case badSwitchChoice(option: String, choices: String, found: String)
        /// `trigger X` with X not program, note or cc (or a missing or extra field).
        case badTrigger(String)
        /// A trigger kind given twice.
        case duplicateTrigger(String, firstLine: Int)
        /// A pattern name that is not 1-32 of `A-Z a-z 0-9 - _`.
        case badPatternName(String)
        /// A second pattern of the same name.
        case duplicatePattern(name: String, firstLine: Int)
        /// A word after `pattern NAME` that is none of its options.
        case unknownPatternOption(String)
        /// A pattern option given twice.
        case duplicatePatternOption(String)
        /// A pattern without a lane.
        case patternWithoutLane(String)
        /// A lane before the first `pattern` of a text with patterns.
        case laneOutsidePattern
        /// A version-3 note before any lane.
        case noteBeforeLane
        /// `song X` with X not loop, stop or hold.
        case badSongEnd(String)
        /// `play` before `song`.
        case playBeforeSong
        /// A song without `play` lines.
        case songWithoutEntry
        /// `play NAME` naming no pattern.
        case unknownPlayPattern(String)
        /// More than 512 patterns.
        case tooManyPatterns
        /// More than 64 lanes in one pattern of a text with patterns.
        case tooManyLanesInPattern(String)
        /// More than 65,536 song entries.
        case tooManySongEntries
        /// A version-2 cycle limit broken by one pattern of a text with patterns.
        case inPattern(name: String, problem: PatternCycleProblem)
        /// More than 4,194,304 notes over the cycles of all patterns.
        case tooManyTotalCycleNotes
        /// A song of more than 2^32 beats.
        case songTooLong
        /// A song whose length needs a denominator of 2^31 or more.
        case songDenominatorTooLarge
        // Controllers (version 3, contract §10).
        /// `cc N` with N 120-127 (channel mode messages) or above.
        case controllerOutOfRange(found: String)
        /// `program AT VALUE ramp`.
        case programRamp
        /// A controller point whose start is not below its lane's length.
        case pointStartNotBeforeLaneLength
        /// Two points of one controller (kind and channel) in a lane at one beat.
        case duplicatePoint(controller: String, channel: UInt8, beat: String, firstLine: Int)
        /// A controller point before any lane.
        case controllerBeforeLane
        /// `ramp-step 0`.
        case rampStepNotPositive
        /// A note field `ccN=V` that is not one.
        case badLock(String)
        /// Two locks of one controller on a note.
        case duplicateLock(controller: UInt8)
        /// More than 65,536 controller points in a text.
        case tooManyControllerPoints
        /// More than 1,048,576 controller events over a pattern's common cycle.
        case tooManyCycleControllerEvents(cycle: String)
        /// More than 4,194,304 controller events over the cycles of all patterns.
        case tooManyTotalCycleControllerEvents
        /// The editor (piano roll, `tactus jack` prompt) asked to edit a version-3 text of several patterns, a switch, a trigger or a song.
        case editingNeedsOnePattern(patterns: Int)
    }

    /// The cycle limits of version 2, as one pattern of a version-3 text breaks them.
    public enum PatternCycleProblem: Sendable {
        case cycleTooLong(lane: String, length: String)
        case tooManyCycleNotes(cycle: String)
        case swingTooFine
        case tooManyCycleControllerEvents(cycle: String)
    }

    /// The reason as a sentence, without the line number.
    public var reasonText: String {
        switch reason {
        case .missingHeader: return "the first statement must be 'tactus-pattern 1', 'tactus-pattern 2' or 'tactus-pattern 3'"
        case .unsupportedVersion(let v): return "unsupported pattern format version '\(v)' (this reader knows versions 1, 2 and 3)"
        case .duplicateHeader: return "'tactus-pattern' may appear only once, as the first statement"
        case .unknownStatement(let word): return "unknown statement '\(word)' (expected 'length' or 'note')"
        case .wrongFieldCount(let statement, let expected, let found):
            return "'\(statement)' takes \(expected), found \(found)"
        case .invalidNumber(let field, let text):
            return "\(field) '\(text)' is not a number (write an integer, a decimal like 3.5, or a fraction like 1/3)"
        case .negativeBeat(let field): return "\(field) must not be negative"
        case .beatValueTooLarge(let field): return "\(field) is larger than 1000000 beats"
        case .tooManyDecimalDigits(let field): return "\(field) has more than 9 digits after the decimal point"
        case .fractionPartTooLarge(let field): return "\(field) has a numerator or denominator of 2^31 or more"
        case .zeroDenominator(let field): return "\(field) has a zero denominator"
        case .outOfRange(let field, let range, let found): return "\(field) must be \(range), found \(found)"
        case .notAnInteger(let field, let text): return "\(field) '\(text)' must be a whole number"
        case .notAKey(let text): return "key '\(text)' is not a MIDI note number 0-127 or a note name like C4, F#2 or Bb3"
        case .noteNameOutOfRange(let text): return "key '\(text)' is outside C-1 to G9 (MIDI notes 0-127)"
        case .lengthNotPositive: return "length must be greater than 0"
        case .duplicateLength(let first): return "length is given twice (first on line \(first))"
        case .missingLength: return "the pattern has no 'length' statement"
        case .startNotBeforeLength: return "note start must be less than the pattern length"
        case .durationNotPositive: return "note duration must be greater than 0"
        case .tooManyNotes: return "the pattern has more than 65536 notes"
        case .invalidUTF8: return "the text is not valid UTF-8"
        case .unknownStatementVersion2(let word): return "unknown statement '\(word)' (expected 'seed', 'lane' or 'note')"
        case .lengthInVersion2: return "'length' belongs to version 1 (in version 2 each 'lane' has its own length)"
        case .noteOutsideLane: return "a note in version 2 must follow a 'lane' line"
        case .missingLane: return "the pattern has no 'lane' statement"
        case .badLaneName(let name): return "lane name '\(name)' must be 1-32 letters, digits, '-' or '_'"
        case .duplicateLane(let name, let first): return "lane '\(name)' is defined twice (first on line \(first))"
        case .unknownLaneOption(let word): return "unknown lane option '\(word)' (expected 'channel', 'swing' or 'follow')"
        case .duplicateLaneOption(let word): return "lane option '\(word)' is given twice"
        case .swingRatioOutOfRange: return "swing ratio must be greater than 0 and less than 1"
        case .swingGridNotPositive: return "swing grid must be greater than 0"
        case .duplicateSeed(let first): return "seed is given twice (first on line \(first))"
        case .probabilityOutOfRange: return "probability must be greater than 0 and at most 1"
        case .needsVersion2(let word): return "'\(word)' needs 'tactus-pattern 2'"
        case .startNotBeforeLaneLength: return "note start must be less than the lane length"
        case .tooManyLanes: return "the pattern has more than 64 lanes"
        case .cycleTooLong(let lane, let length): return PatternError.cycleTooLongText(lane: lane, length: length)
        case .tooManyCycleNotes(let cycle): return PatternError.tooManyCycleNotesText(cycle: cycle)
        case .swingTooFine: return PatternError.swingTooFineText
        case .needsVersion3(let word): return "'\(word)' needs 'tactus-pattern 3'"
        case .unknownStatementVersion3(let word):
            return "unknown statement '\(word)' (expected 'seed', 'switch', 'trigger', 'pattern', 'lane', 'note', 'cc', 'bend', 'pressure', 'program', 'song' or 'play')"
        case .mustPrecedePatterns(let word): return "'\(word)' must come before the first 'pattern'"
        case .mustPrecedeSong(let word): return "'\(word)' must come before 'song'"
        case .duplicateStatement(let word, let first): return "\(word) is given twice (first on line \(first))"
        case .unknownSwitchOption(let word): return "unknown switch option '\(word)' (expected 'at', 'phase', 'notes' or 'grace')"
        case .duplicateSwitchOption(let word): return "switch option '\(word)' is given twice"
        case .badSwitchGrid(let found): return "'at' takes now, beat, bar, bars N or end, found '\(found)'"
        case .badSwitchChoice(let option, let choices, let found): return "'\(option)' takes \(choices), found '\(found)'"
        case .badTrigger(let found): return "'trigger' takes program, note KEY or cc N, then [in C], found '\(found)'"
        case .duplicateTrigger(let kind, let first): return "trigger '\(kind)' is given twice (first on line \(first))"
        case .badPatternName(let name): return "pattern name '\(name)' must be 1-32 letters, digits, '-' or '_'"
        case .duplicatePattern(let name, let first): return "pattern '\(name)' is defined twice (first on line \(first))"
        case .unknownPatternOption(let word): return "unknown pattern option '\(word)' (expected 'program' or 'channel')"
        case .duplicatePatternOption(let word): return "pattern option '\(word)' is given twice"
        case .patternWithoutLane(let name): return "pattern '\(name)' has no lane"
        case .laneOutsidePattern: return "a lane in a text with patterns must follow a 'pattern' line"
        case .noteBeforeLane: return "a note must follow a 'lane' line"
        case .badSongEnd(let found): return "'song' takes loop, stop or hold, found '\(found)'"
        case .playBeforeSong: return "'play' must follow 'song'"
        case .songWithoutEntry: return "the song has no 'play' entry"
        case .unknownPlayPattern(let name): return "'play' names no pattern '\(name)'"
        case .tooManyPatterns: return "the text has more than 512 patterns"
        case .tooManyLanesInPattern(let name): return "pattern '\(name)' has more than 64 lanes"
        case .tooManySongEntries: return "the song has more than 65536 entries"
        case .inPattern(let name, let problem):
            let text: String
            switch problem {
            case .cycleTooLong(let lane, let length): text = PatternError.cycleTooLongText(lane: lane, length: length)
            case .tooManyCycleNotes(let cycle): text = PatternError.tooManyCycleNotesText(cycle: cycle)
            case .swingTooFine: text = PatternError.swingTooFineText
            case .tooManyCycleControllerEvents(let cycle): text = PatternError.tooManyCycleControllerEventsText(cycle: cycle)
            }
            return "pattern '\(name)': \(text)"
        case .tooManyTotalCycleNotes: return "the patterns hold more than 4194304 notes over their cycles"
        case .songTooLong: return "the song is longer than 4294967296 beats"
        case .songDenominatorTooLarge: return "the song's length needs a denominator of 2^31 or more"
        case .controllerOutOfRange(let found): return "controller must be 0-119 (120-127 are channel mode messages), found \(found)"
        case .programRamp: return "a program change cannot ramp"
        case .pointStartNotBeforeLaneLength: return "point start must be less than the lane length"
        case .duplicatePoint(let controller, let channel, let beat, let first):
            return "\(controller) on channel \(channel) has two points at beat \(beat)" + (first > 0 ? " (first on line \(first))" : "")
        case .controllerBeforeLane: return "a controller point must follow a 'lane' line"
        case .rampStepNotPositive: return "ramp-step must be greater than 0"
        case .badLock(let text): return "lock '\(text)' must be ccN=V with N 0-119 and V 0-127"
        case .duplicateLock(let n): return "lock of controller \(n) is given twice on this note"
        case .tooManyControllerPoints: return "the text has more than 65536 controller points"
        case .tooManyCycleControllerEvents(let cycle): return PatternError.tooManyCycleControllerEventsText(cycle: cycle)
        case .tooManyTotalCycleControllerEvents: return "the patterns send more than 4194304 controller events over their cycles"
        case .editingNeedsOnePattern(let n):
            return "the editor edits one pattern; this text has \(n) \(n == 1 ? "pattern" : "patterns") with a switch, triggers or a song (version 3): it plays, edit it as text"
        }
    }

    static func cycleTooLongText(lane: String, length: String) -> String {
        "the lanes realign only after more than 1000000 beats (lane '\(lane)' of length \(length) does not fit the others)"
    }

    static func tooManyCycleNotesText(cycle: String) -> String {
        "the lanes hold more than 1048576 notes over their common cycle of \(cycle) beats"
    }

    static func tooManyCycleControllerEventsText(cycle: String) -> String {
        "the lanes send more than 1048576 controller events over their common cycle of \(cycle) beats"
    }

    static var swingTooFineText: String {
        "this note's swung position in the lanes' common cycle needs a numerator or denominator of 2^62 or more"
    }

    /// `line N: reason`, or just the reason when there is no line.
    public var message: String {
        line > 0 ? "line \(line): \(reasonText)" : reasonText
    }
}

// Comparing reasons compares their String payloads, which in Embedded Swift
// would link Unicode normalization tables into the plugin; only tests need it.
#if !hasFeature(Embedded)
extension PatternError: Equatable {
    /// By line and reason: the column is a pointer for people, not part of what went wrong.
    public static func == (a: PatternError, b: PatternError) -> Bool { a.line == b.line && a.reason == b.reason }
}
extension PatternError.Reason: Equatable {}
extension PatternError.PatternCycleProblem: Equatable {}
#endif
