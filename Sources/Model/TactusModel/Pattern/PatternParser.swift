import TactusEngine
/// Reads the pattern text format, versions 1 and 2 (`docs/pattern-format.md`):
/// statements end at a line feed or a `;`; a key is a number or a note name.
///
/// Strict: anything the format does not allow rejects the whole text with the
/// line number and the reason. Tolerated encoding artefacts: a UTF-8 byte-order
/// mark at the start and CR LF line ends. Runs off the audio thread (it
/// allocates the notes array); O(n) in the text length.
public enum PatternParser {
    /// Parses `text`.
    public static func parse(_ text: String) throws(PatternError) -> Pattern {
        try parse(bytes: Array(text.utf8))
    }

    /// Parses UTF-8 `bytes`.
    public static func parse(bytes: [UInt8]) throws(PatternError) -> Pattern {
        try bytes.withUnsafeBufferPointer { (b) throws(PatternError) -> Pattern in try parse(bytes: b) }
    }

    /// Parses UTF-8 `bytes`.
    public static func parse(bytes: UnsafeBufferPointer<UInt8>) throws(PatternError) -> Pattern {
        if let badLine = UTF8Check.firstInvalidLine(bytes) {
            throw PatternError(line: badLine, reason: .invalidUTF8)
        }
        var reader = StatementReader(bytes: bytes)
        var version = 0
        var length: BeatRational?
        var lengthLine = 0
        var notes: [PatternNote] = []
        var noteLines: [Int] = []
        var lanes: [PatternLane] = []
        var laneLines: [Int] = []
        var seed: UInt32 = 0
        var seedLine = 0
        var fields = FieldList()

        while reader.nextStatement(into: &fields) {
            let line = reader.sourceLine(firstField: fields.field(0))
            if version == 0 {
                guard fields.field(0, is: "tactus-pattern") else { throw PatternError(line: line, reason: .missingHeader) }
                guard fields.count == 2 else {
                    throw PatternError(line: line, reason: .wrongFieldCount(statement: "tactus-pattern", expected: "1 field (the version)", found: fields.count - 1))
                }
                if fields.field(1, is: "1") {
                    version = 1
                } else if fields.field(1, is: "2") {
                    version = 2
                } else {
                    throw PatternError(line: line, field: fields.field(1), reason: .unsupportedVersion(fields.quoted(1)))
                }
                continue
            }
            // Statement words are compared as bytes: the format is ASCII, and
            // String comparison would pull Unicode tables into the plugin.
            if fields.field(0, is: "tactus-pattern") {
                throw PatternError(line: line, reason: .duplicateHeader)
            } else if fields.field(0, is: "length") {
                guard version == 1 else { throw PatternError(line: line, reason: .lengthInVersion2) }
                guard fields.count == 2 else {
                    throw PatternError(line: line, reason: .wrongFieldCount(statement: "length", expected: "1 field (beats)", found: fields.count - 1))
                }
                if length != nil { throw PatternError(line: line, reason: .duplicateLength(firstLine: lengthLine)) }
                let value = try beatValue(fields.field(1), name: "length", line: line)
                guard value > .zero else { throw PatternError(line: line, field: fields.field(1), reason: .lengthNotPositive) }
                length = value
                lengthLine = line.number
            } else if fields.field(0, is: "note") {
                var count = fields.count
                var probability = BeatRational(1)
                if count > 1, fields.field(count - 1, hasPrefix: "prob=") {
                    guard version == 2 else { throw PatternError(line: line, field: fields.field(count - 1), reason: .needsVersion2("prob=")) }
                    probability = try beatValue(fields.field(count - 1, droppingPrefix: 5), name: "probability", line: line)
                    guard probability > .zero, probability <= BeatRational(1) else {
                        throw PatternError(line: line, field: fields.field(count - 1), reason: .probabilityOutOfRange)
                    }
                    count -= 1
                }
                guard count == 5 || count == 6 else {
                    let expected = version == 2 ? "START DURATION KEY VELOCITY [CHANNEL] [prob=P]" : "START DURATION KEY VELOCITY [CHANNEL]"
                    throw PatternError(line: line, reason: .wrongFieldCount(statement: "note", expected: expected, found: fields.count - 1))
                }
                if version == 2 && lanes.isEmpty { throw PatternError(line: line, reason: .noteOutsideLane) }
                guard notes.count < Pattern.maximumNoteCount else { throw PatternError(line: line, reason: .tooManyNotes) }
                let start = try beatValue(fields.field(1), name: "start", line: line)
                let duration = try beatValue(fields.field(2), name: "duration", line: line)
                guard duration > .zero else { throw PatternError(line: line, field: fields.field(2), reason: .durationNotPositive) }
                let key = try key(fields.field(3), name: "key", line: line)
                let velocity = try integer(fields.field(4), name: "velocity", range: 1...127, rangeText: "1-127", line: line)
                var channel = Int64(lanes.last?.channel ?? 1)
                if count == 6 {
                    channel = try integer(fields.field(5), name: "channel", range: 1...16, rangeText: "1-16", line: line)
                }
                if let lane = lanes.last, start >= lane.length {
                    throw PatternError(line: line, field: fields.field(1), reason: .startNotBeforeLaneLength)
                }
                notes.append(
                    PatternNote(
                        start: start, duration: duration, key: UInt8(key), velocity: UInt8(velocity), channel: UInt8(channel),
                        probability: probability, lane: max(lanes.count - 1, 0)))
                noteLines.append(line.number)
            } else if fields.field(0, is: "seed") {
                guard version == 2 else { throw PatternError(line: line, reason: .needsVersion2("seed")) }
                guard fields.count == 2 else {
                    throw PatternError(line: line, reason: .wrongFieldCount(statement: "seed", expected: "1 field (an integer 0-4294967295)", found: fields.count - 1))
                }
                if seedLine > 0 { throw PatternError(line: line, reason: .duplicateSeed(firstLine: seedLine)) }
                seed = UInt32(try integer(fields.field(1), name: "seed", range: 0...4_294_967_295, rangeText: "0-4294967295", line: line))
                seedLine = line.number
            } else if fields.field(0, is: "lane") {
                guard version == 2 else { throw PatternError(line: line, reason: .needsVersion2("lane")) }
                let lane = try laneStatement(fields, line: line)
                guard lanes.count < Pattern.maximumLaneCount else { throw PatternError(line: line, reason: .tooManyLanes) }
                if let first = lanes.firstIndex(where: { $0.name == lane.name }) {
                    throw PatternError(line: line, reason: .duplicateLane(name: QuotedText.quoted(lane.name), firstLine: laneLines[first]))
                }
                lanes.append(lane)
                laneLines.append(line.number)
            } else {
                throw PatternError(line: line, reason: version == 2 ? .unknownStatementVersion2(fields.quoted(0)) : .unknownStatement(fields.quoted(0)))
            }
        }
        guard version > 0 else { throw PatternError(line: max(reader.lineNumber, 1), reason: .missingHeader) }
        if version == 2 {
            guard !lanes.isEmpty else { throw PatternError(line: reader.lineNumber + 1, reason: .missingLane) }
            let (cycle, _) = LaneCycle.commonCycle(lanes.map { $0.length })
            let pattern = Pattern(lanes: lanes, notes: notes, seed: seed, commonCycle: cycle ?? BeatRational(1))
            if let problem = LaneCycle.check(pattern) {
                let problemLine =
                    problem.laneIndex >= 0 ? laneLines[problem.laneIndex]
                    : problem.noteIndex >= 0 ? noteLines[problem.noteIndex] : reader.lineNumber + 1
                throw PatternError(line: problemLine, reason: problem.reason)
            }
            return pattern
        }
        guard let length else { throw PatternError(line: reader.lineNumber + 1, reason: .missingLength) }
        for i in notes.indices where notes[i].start >= length {
            throw PatternError(line: noteLines[i], reason: .startNotBeforeLength)
        }
        return Pattern(length: length, notes: notes)
    }

    /// `lane NAME length L [channel C] [swing R G] [follow ROOT [in C]]`.
    static func laneStatement(_ fields: FieldList, line: SourceLine) throws(PatternError) -> PatternLane {
        guard fields.count >= 4, fields.field(2, is: "length") else {
            throw PatternError(
                line: line,
                reason: .wrongFieldCount(
                    statement: "lane", expected: "NAME length L [channel C] [swing R G] [follow ROOT [in C]]", found: fields.count - 1))
        }
        let name = Array(fields.field(1))
        guard name.count <= 32, name.allSatisfy({ b in
            (b >= 0x30 && b <= 0x39) || (b | 0x20 >= 0x61 && b | 0x20 <= 0x7A) || b == UInt8(ascii: "-") || b == UInt8(ascii: "_")
        }) else {
            throw PatternError(line: line, field: fields.field(1), reason: .badLaneName(QuotedText.quoted(name)))
        }
        let length = try beatValue(fields.field(3), name: "length", line: line)
        guard length > .zero else { throw PatternError(line: line, field: fields.field(3), reason: .lengthNotPositive) }
        var lane = PatternLane(name: name, length: length)
        var seenChannel = false
        var seenSwing = false
        var seenFollow = false
        var i = 4
        func missing() -> PatternError {
            PatternError(
                line: line,
                reason: .wrongFieldCount(
                    statement: "lane", expected: "NAME length L [channel C] [swing R G] [follow ROOT [in C]]", found: fields.count - 1))
        }
        while i < fields.count {
            if fields.field(i, is: "channel") {
                if seenChannel { throw PatternError(line: line, field: fields.field(i), reason: .duplicateLaneOption("channel")) }
                guard i + 1 < fields.count else { throw missing() }
                lane.channel = UInt8(try integer(fields.field(i + 1), name: "channel", range: 1...16, rangeText: "1-16", line: line))
                seenChannel = true
                i += 2
            } else if fields.field(i, is: "swing") {
                if seenSwing { throw PatternError(line: line, field: fields.field(i), reason: .duplicateLaneOption("swing")) }
                guard i + 2 < fields.count else { throw missing() }
                let ratio = try beatValue(fields.field(i + 1), name: "swing ratio", line: line)
                guard ratio > .zero, ratio < BeatRational(1) else { throw PatternError(line: line, field: fields.field(i + 1), reason: .swingRatioOutOfRange) }
                let grid = try beatValue(fields.field(i + 2), name: "swing grid", line: line)
                guard grid > .zero else { throw PatternError(line: line, field: fields.field(i + 2), reason: .swingGridNotPositive) }
                lane.swingRatio = ratio
                lane.swingGrid = grid
                seenSwing = true
                i += 3
            } else if fields.field(i, is: "follow") {
                if seenFollow { throw PatternError(line: line, field: fields.field(i), reason: .duplicateLaneOption("follow")) }
                guard i + 1 < fields.count else { throw missing() }
                lane.followRoot = UInt8(try key(fields.field(i + 1), name: "root", line: line))
                i += 2
                if i < fields.count, fields.field(i, is: "in") {
                    guard i + 1 < fields.count else { throw missing() }
                    lane.followChannel = UInt8(try integer(fields.field(i + 1), name: "input channel", range: 1...16, rangeText: "1-16", line: line))
                    i += 2
                }
                seenFollow = true
            } else {
                throw PatternError(line: line, field: fields.field(i), reason: .unknownLaneOption(fields.quoted(i)))
            }
        }
        return lane
    }

    /// A beat value: `7`, `3.5`, `1/3` (exact).
    static func beatValue(_ field: UnsafeBufferPointer<UInt8>, name: String, line: SourceLine) throws(PatternError) -> BeatRational {
        var digits = field[...]
        var negative = false
        if let first = digits.first, first == UInt8(ascii: "-") {
            negative = true
            digits = digits.dropFirst()
        }
        guard let parsed = BeatLiteral(digits) else {
            throw PatternError(line: line, field: field, reason: .invalidNumber(field: name, text: QuotedText.quoted(Array(field))))
        }
        switch parsed {
        case .tooManyDecimals: throw PatternError(line: line, field: field, reason: .tooManyDecimalDigits(field: name))
        case .partTooLarge: throw PatternError(line: line, field: field, reason: .fractionPartTooLarge(field: name))
        case .zeroDenominator: throw PatternError(line: line, field: field, reason: .zeroDenominator(field: name))
        case .tooLarge: throw PatternError(line: line, field: field, reason: negative ? .negativeBeat(field: name) : .beatValueTooLarge(field: name))
        case .value(let value):
            if negative { throw PatternError(line: line, field: field, reason: .negativeBeat(field: name)) }
            guard value <= PatternLimits.maximumBeatValue else { throw PatternError(line: line, field: field, reason: .beatValueTooLarge(field: name)) }
            return value
        }
    }

    /// A key: a MIDI note number 0-127, or a note name (`C4`, `F#2`, `Bb3`, `C-1`).
    static func key(_ field: UnsafeBufferPointer<UInt8>, name: String, line: SourceLine) throws(PatternError) -> Int64 {
        // A field that starts with a letter is a note name; anything else
        // (`60`, `60.0`, `-1`, `+60`) is read as a number, with its errors.
        guard let first = field.first, (first | 0x20) >= UInt8(ascii: "a"), (first | 0x20) <= UInt8(ascii: "z") else {
            return try integer(field, name: name, range: 0...127, rangeText: "0-127", line: line)
        }
        switch NoteName.read(field) {
        case .key(let key): return Int64(key)
        case .outOfRange: throw PatternError(line: line, field: field, reason: .noteNameOutOfRange(QuotedText.quoted(Array(field))))
        case .notANoteName: throw PatternError(line: line, field: field, reason: .notAKey(QuotedText.quoted(Array(field))))
        }
    }

    /// A whole number within `range`.
    static func integer(_ field: UnsafeBufferPointer<UInt8>, name: String, range: ClosedRange<Int64>, rangeText: String, line: SourceLine) throws(PatternError) -> Int64 {
        // (Quoted only for a message: every note has two or three integers.)
        var digits = field[...]
        var negative = false
        if let first = digits.first, first == UInt8(ascii: "-") {
            negative = true
            digits = digits.dropFirst()
        }
        guard !digits.isEmpty, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            throw PatternError(line: line, field: field, reason: .notAnInteger(field: name, text: QuotedText.quoted(Array(field))))
        }
        var value: Int64 = 0
        for d in digits {
            value = value * 10 + Int64(d - 0x30)
            if value > 10_000_000_000 { break }
        }
        guard !negative, range.contains(value) else {
            throw PatternError(line: line, field: field, reason: .outOfRange(field: name, range: rangeText, found: QuotedText.quoted(Array(field))))
        }
        return value
    }
}

/// Where a statement is: its line, and where that line starts in the text,
/// so that an error can name the column of the field that is wrong.
struct SourceLine {
    var number: Int
    var lineStart: UnsafePointer<UInt8>?
    var statementColumn: Int

    /// The 1-based column of `field` (a slice of the text on this line).
    func column(of field: UnsafeBufferPointer<UInt8>) -> Int {
        guard let base = field.baseAddress, let lineStart else { return statementColumn }
        return base - lineStart + 1
    }
}

extension PatternError {
    /// An error about the statement as a whole: the column of its first field.
    init(line: SourceLine, reason: Reason) {
        self.init(line: line.number, column: line.statementColumn, reason: reason)
    }

    /// An error about one field.
    init(line: SourceLine, field: UnsafeBufferPointer<UInt8>, reason: Reason) {
        self.init(line: line.number, column: line.column(of: field), reason: reason)
    }
}

/// The three spellings of a beat value, parsed exactly.
enum BeatLiteral {
    case value(BeatRational)
    case tooLarge
    case tooManyDecimals
    case partTooLarge
    case zeroDenominator

    /// nil when the bytes are not a number of any allowed form.
    init?(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) {
        var intPart: Int64 = 0
        var intDigits = 0
        var i = bytes.startIndex
        // Saturate early: anything past 2^40 is out of every limit anyway.
        let cap: Int64 = 1 << 40
        while i < bytes.endIndex, bytes[i] >= 0x30, bytes[i] <= 0x39 {
            if intPart < cap { intPart = intPart * 10 + Int64(bytes[i] - 0x30) }
            intDigits += 1
            i += 1
        }
        guard intDigits > 0 else { return nil }
        if i == bytes.endIndex {
            self = intPart > 1_000_000 ? .tooLarge : .value(BeatRational(intPart))
            return
        }
        let separator = bytes[i]
        i += 1
        var second: Int64 = 0
        var secondDigits = 0
        while i < bytes.endIndex, bytes[i] >= 0x30, bytes[i] <= 0x39 {
            if second < cap { second = second * 10 + Int64(bytes[i] - 0x30) }
            secondDigits += 1
            i += 1
        }
        guard i == bytes.endIndex, secondDigits > 0 else { return nil }
        if separator == UInt8(ascii: ".") {
            guard secondDigits <= PatternLimits.maximumDecimalDigits else { self = .tooManyDecimals; return }
            guard intPart <= 1_000_000 else { self = .tooLarge; return }
            var scale: Int64 = 1
            for _ in 0..<secondDigits { scale *= 10 }
            self = .value(BeatRational(numerator: intPart * scale + second, denominator: scale)!)
        } else if separator == UInt8(ascii: "/") {
            guard intPart < PatternLimits.fractionPartLimit, second < PatternLimits.fractionPartLimit else { self = .partTooLarge; return }
            guard second != 0 else { self = .zeroDenominator; return }
            self = .value(BeatRational(numerator: intPart, denominator: second)!)
        } else {
            return nil
        }
    }
}

/// Splits pattern text into statements: lines (and `;`-separated parts of
/// lines) without comments, cut into fields.
package struct StatementReader {
    let bytes: UnsafeBufferPointer<UInt8>
    var position: Int
    /// 1-based number of the line of the statement last returned.
    private(set) var lineNumber = 0
    /// Where the current line ends (its LF, or the end of the text); -1 between lines.
    private var lineEnd = -1
    /// Where the current line starts (after a byte-order mark on line 1).
    private var lineStart = 0

    /// The current line, for errors: its number, its start, and the column of `firstField`.
    func sourceLine(firstField: UnsafeBufferPointer<UInt8>) -> SourceLine {
        let start = bytes.baseAddress.map { $0 + lineStart }
        var line = SourceLine(number: lineNumber, lineStart: start, statementColumn: 0)
        line.statementColumn = line.column(of: firstField)
        return line
    }

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        // A UTF-8 byte-order mark is an editor's artefact, not content.
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { position = 3 } else { position = 0 }
    }

    /// Fills `fields` with the next non-empty statement; false at the end of the text.
    mutating func nextStatement(into fields: inout FieldList) -> Bool {
        while true {
            if lineEnd < 0 {
                guard position < bytes.count else { return false }
                lineNumber += 1
                lineStart = position
                var end = position
                while end < bytes.count, bytes[end] != UInt8(ascii: "\n") { end += 1 }
                lineEnd = end
            }
            let statementStart = position
            var stop = statementStart
            while stop < lineEnd, bytes[stop] != UInt8(ascii: ";"),
                !StatementReader.startsComment(bytes, at: stop, statementStart: statementStart) {
                stop += 1
            }
            if stop < lineEnd, bytes[stop] == UInt8(ascii: ";") {
                position = stop + 1
            } else {
                position = lineEnd + 1
                lineEnd = -1
            }
            fields.removeAll(base: bytes)
            var i = statementStart
            while i < stop {
                while i < stop, StatementReader.isBlank(bytes[i]) { i += 1 }
                let fieldStart = i
                while i < stop, !StatementReader.isBlank(bytes[i]) { i += 1 }
                if i > fieldStart { fields.append(start: fieldStart, end: i) }
            }
            if fields.count > 0 { return true }
        }
    }

    /// Whether the `#` at `i` starts a comment: every `#` does, except one
    /// right after a field's first character when that is a note letter
    /// (`F#3`), which is a sharp.
    package static func startsComment(_ bytes: UnsafeBufferPointer<UInt8>, at i: Int, statementStart: Int) -> Bool {
        guard bytes[i] == UInt8(ascii: "#") else { return false }
        guard i > statementStart, NoteName.isLetter(bytes[i - 1]) else { return true }
        return !(i - 1 == statementStart || isBlank(bytes[i - 2]))
    }

    package static func isBlank(_ b: UInt8) -> Bool {
        b == UInt8(ascii: " ") || b == UInt8(ascii: "\t") || b == UInt8(ascii: "\r")
    }
}

extension PatternParser {
    /// Where the comment in `line` starts (its `#`), or `line.count`: the
    /// pattern format's rule, for a prompt that reads the same text.
    public static func commentStart(in line: [UInt8]) -> Int {
        line.withUnsafeBufferPointer { b in
            var statementStart = 0
            for i in 0..<b.count {
                if b[i] == UInt8(ascii: ";") { statementStart = i + 1 }
                if StatementReader.startsComment(b, at: i, statementStart: statementStart) { return i }
            }
            return b.count
        }
    }
}

/// The fields of one statement, as ranges of the text.
struct FieldList {
    private var starts: [Int] = []
    private var ends: [Int] = []
    private var base = UnsafeBufferPointer<UInt8>(start: nil, count: 0)

    var count: Int { starts.count }

    mutating func removeAll(base: UnsafeBufferPointer<UInt8>) {
        self.base = base
        starts.removeAll(keepingCapacity: true)
        ends.removeAll(keepingCapacity: true)
    }

    mutating func append(start: Int, end: Int) {
        starts.append(start)
        ends.append(end)
    }

    func field(_ i: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: base[starts[i]..<ends[i]])
    }

    /// Field `i` as an error message quotes it (`QuotedText`).
    func quoted(_ i: Int) -> String { QuotedText.quoted(Array(field(i))) }

    /// Whether field `i` begins with `prefix` (byte for byte).
    func field(_ i: Int, hasPrefix prefix: StaticString) -> Bool {
        let f = field(i)
        guard f.count >= prefix.utf8CodeUnitCount else { return false }
        for j in 0..<prefix.utf8CodeUnitCount where f[j] != prefix.utf8Start[j] { return false }
        return true
    }

    /// Field `i` without its first `count` bytes.
    func field(_ i: Int, droppingPrefix count: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: base[(starts[i] + count)..<ends[i]])
    }

    /// Whether field `i` is exactly `word` (byte for byte).
    func field(_ i: Int, is word: StaticString) -> Bool {
        let f = field(i)
        guard f.count == word.utf8CodeUnitCount else { return false }
        for j in 0..<f.count where f[j] != word.utf8Start[j] { return false }
        return true
    }
}

/// UTF-8 validation that reports the line of the first bad sequence.
enum UTF8Check {
    static func firstInvalidLine(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var line = 1
        var i = 0
        let n = bytes.count
        while i < n {
            let b = bytes[i]
            if b == UInt8(ascii: "\n") { line += 1; i += 1; continue }
            if b < 0x80 { i += 1; continue }
            var need = 0
            var minimum: UInt32 = 0
            var value: UInt32 = 0
            if b & 0xE0 == 0xC0 { need = 1; minimum = 0x80; value = UInt32(b & 0x1F) }
            else if b & 0xF0 == 0xE0 { need = 2; minimum = 0x800; value = UInt32(b & 0x0F) }
            else if b & 0xF8 == 0xF0 { need = 3; minimum = 0x10000; value = UInt32(b & 0x07) }
            else { return line }
            guard i + need < n else { return line }
            for j in 1...need {
                let c = bytes[i + j]
                guard c & 0xC0 == 0x80 else { return line }
                value = value << 6 | UInt32(c & 0x3F)
            }
            if value < minimum || value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF) { return line }
            i += need + 1
        }
        return nil
    }
}
