import TactusEngine

/// The pattern text as the editor keeps it, so that writing it back changes
/// only what was edited: every line with its statements (the parts between
/// `;`), its comment and its line end, each statement's bytes as written.
///
/// A statement the editor never changes (the header, `seed`, blanks) is kept
/// byte for byte. A `note`, `length` or `lane` statement remembers the values
/// it was written with and where its fields are, so that an edit replaces
/// only the fields whose values changed (`SourceSegment.rendered`). Off the
/// audio thread; scanning is O(text length).
struct SourceLayout {
    /// The text started with a UTF-8 byte-order mark (written back).
    var byteOrderMark: Bool
    var lines: [LayoutLine]
    /// The line end for lines the editor adds: CR LF when the text's first
    /// line ends so, LF otherwise.
    var newline: LineEnd

    /// The layout of `text`, which parsed as `pattern`; notes get ids from
    /// `firstID` in text order. Nil when the scan does not find the parsed
    /// statements (a bug: the caller then lays out the writer's text).
    ///
    /// In a version-3 text with `pattern` lines (`inPattern`: the index of
    /// the pattern edited), only that pattern's `lane` and `note` statements
    /// are the editor's; every other statement (the other patterns, `seed`,
    /// `switch`, `trigger`, `song`, `play`) is kept byte for byte.
    static func scan(_ text: [UInt8], pattern: Pattern, firstID: UInt32, inPattern: Int? = nil) -> SourceLayout? {
        var start = 0
        let bom = text.count >= 3 && text[0] == 0xEF && text[1] == 0xBB && text[2] == 0xBF
        if bom { start = 3 }
        var lines: [LayoutLine] = []
        var noteIndex = 0
        var laneIndex = 0
        var lengthCount = 0
        var controllerCount = 0
        // The pattern the statements belong to (version 3 with `pattern` lines; -1 outside any).
        var current = inPattern == nil ? 0 : -1
        let edited = inPattern ?? 0
        while start < text.count {
            var end = start
            while end < text.count, text[end] != UInt8(ascii: "\n") { end += 1 }
            var contentEnd = end
            var lineEnd = LineEnd.none
            if end < text.count {
                lineEnd = .lf
                if contentEnd > start, text[contentEnd - 1] == UInt8(ascii: "\r") {
                    contentEnd -= 1
                    lineEnd = .crlf
                }
            }
            let content = Array(text[start..<contentEnd])
            let commentAt = PatternParser.commentStart(in: content)
            var line = LayoutLine(segments: [], comment: Array(content[commentAt...]), end: lineEnd)
            var segmentStart = 0
            var i = 0
            while i <= commentAt {
                if i == commentAt || content[i] == UInt8(ascii: ";") {
                    let raw = Array(content[segmentStart..<i])
                    let fields = SourceSegment.fieldRanges(raw)
                    var role = SegmentRole.verbatim
                    if let first = fields.first, inPattern != nil, SourceSegment.field(raw, first, is: "pattern") {
                        current += 1
                    } else if let first = fields.first, inPattern != nil, SourceSegment.field(raw, first, is: "song") {
                        current = -1
                    } else if let first = fields.first, current == edited {
                        if SourceSegment.field(raw, first, is: "note") {
                            guard noteIndex < pattern.notes.count, fields.count >= 5 else { return nil }
                            role = .note(WrittenNote(raw, fields: fields, id: firstID &+ UInt32(noteIndex), written: pattern.notes[noteIndex]))
                            noteIndex += 1
                        } else if SourceSegment.field(raw, first, is: "length") {
                            guard pattern.version == 1, fields.count == 2 else { return nil }
                            role = .length(WrittenLength(lane: 0, written: pattern.length, field: fields[1]))
                            lengthCount += 1
                        } else if SourceSegment.isControllerWord(raw, first) {
                            role = .controller
                            controllerCount += 1
                        } else if SourceSegment.field(raw, first, is: "lane") {
                            guard laneIndex < pattern.laneList.count, fields.count >= 4 else { return nil }
                            role = .length(WrittenLength(lane: laneIndex, written: pattern.laneList[laneIndex].length, field: fields[3]))
                            laneIndex += 1
                        }
                    }
                    line.segments.append(SourceSegment(raw: raw, role: role))
                    segmentStart = i + 1
                }
                i += 1
            }
            lines.append(line)
            start = end + 1
        }
        guard noteIndex == pattern.notes.count, laneIndex == pattern.laneList.count, controllerCount == pattern.controllers.count,
            pattern.version == 2 || lengthCount == 1
        else { return nil }
        let newline = lines.first.map { $0.end == .crlf } == true ? LineEnd.crlf : LineEnd.lf
        return SourceLayout(byteOrderMark: bom, lines: lines, newline: newline)
    }

    /// Where the statement of note `id` is: its line and segment. O(lines).
    func position(ofNote id: UInt32) -> (line: Int, segment: Int)? {
        for (l, line) in lines.enumerated() {
            for (s, segment) in line.segments.enumerated() {
                if case .note(let w) = segment.role, w.id == id { return (l, s) }
            }
        }
        return nil
    }

    /// Where the statement of controller point `k` (in text order) is. O(lines).
    func position(ofController k: Int) -> (line: Int, segment: Int)? {
        var n = 0
        for (l, line) in lines.enumerated() {
            for (s, segment) in line.segments.enumerated() {
                guard case .controller = segment.role else { continue }
                if n == k { return (l, s) }
                n += 1
            }
        }
        return nil
    }

    /// How many controller points stand on the lines before line `line`. O(lines).
    func controllerCount(before line: Int) -> Int {
        var n = 0
        for l in lines[..<line] {
            for segment in l.segments { if case .controller = segment.role { n += 1 } }
        }
        return n
    }

    /// The last line holding a statement of lane `lane` of the pattern
    /// edited (its `lane` line, a note, a controller point). O(lines + n).
    func lastLine(ofLane lane: Int, document: EditorDocument) -> Int? {
        var last: Int?
        var k = 0
        for (l, line) in lines.enumerated() {
            for segment in line.segments {
                switch segment.role {
                case .verbatim: break
                case .length(let w): if w.lane == lane { last = l }
                case .note(let w): if document.note(w.id)?.lane == lane { last = l }
                case .controller:
                    if k < document.controllers.count, document.controllers[k].lane == lane { last = l }
                    k += 1
                }
            }
        }
        return last
    }

    /// Where the statement giving lane `lane` its length is (`length` in
    /// version 1, the `lane` line in version 2). O(lines).
    func position(ofLengthOfLane lane: Int) -> (line: Int, segment: Int)? {
        for (l, line) in lines.enumerated() {
            for (s, segment) in line.segments.enumerated() {
                if case .length(let w) = segment.role, w.lane == lane { return (l, s) }
            }
        }
        return nil
    }
}

extension SourceLayout {
    /// Where the first statement starting with `word` is (`tactus-pattern`,
    /// `seed`). O(text length).
    func position(ofStatement word: StaticString) -> (line: Int, segment: Int)? {
        for (l, line) in lines.enumerated() {
            for (s, segment) in line.segments.enumerated() {
                if let first = SourceSegment.fieldRanges(segment.raw).first, SourceSegment.field(segment.raw, first, is: word) { return (l, s) }
            }
        }
        return nil
    }

    /// Adds a line holding `statement` at the end of the text (the last line
    /// gets a line end if it had none; the new one then has none).
    mutating func appendLine(_ statement: [UInt8]) {
        var end = newline
        if let last = lines.indices.last, lines[last].end == .none {
            lines[last].end = newline
            end = .none
        }
        lines.append(LayoutLine(segments: [SourceSegment(raw: statement, role: .verbatim)], comment: [], end: end))
    }
}

/// How a line ends: LF, CR LF, or not at all (the last line of a text
/// without a final line feed).
enum LineEnd: Equatable {
    case lf
    case crlf
    case none
}

/// One line: its statements joined by `;`, then its comment.
struct LayoutLine {
    /// The parts between `;` (blanks included), in order; a blank or
    /// comment-only line has one blank segment, or none once the editor has
    /// taken a note away from a commented line.
    var segments: [SourceSegment]
    /// From the `#` that starts the comment to the end of the line (a CR of
    /// CR LF excluded); empty when the line has none.
    var comment: [UInt8]
    var end: LineEnd

    /// How many of its segments hold a statement (not just blanks).
    var statementCount: Int {
        var n = 0
        for s in segments where !SourceSegment.fieldRanges(s.raw).isEmpty { n += 1 }
        return n
    }
}

/// One statement as written, and what the editor knows about it.
struct SourceSegment {
    /// The bytes as written, with the blanks around the statement.
    var raw: [UInt8]
    var role: SegmentRole

    /// The ranges of the blank-separated fields of `raw` (blanks: space, tab, CR).
    static func fieldRanges(_ raw: [UInt8]) -> [Range<Int>] {
        var out: [Range<Int>] = []
        var i = 0
        while i < raw.count {
            while i < raw.count, StatementReader.isBlank(raw[i]) { i += 1 }
            let start = i
            while i < raw.count, !StatementReader.isBlank(raw[i]) { i += 1 }
            if i > start { out.append(start..<i) }
        }
        return out
    }

    static func field(_ raw: [UInt8], _ range: Range<Int>, hasPrefix prefix: StaticString) -> Bool {
        guard range.count >= prefix.utf8CodeUnitCount else { return false }
        for j in 0..<prefix.utf8CodeUnitCount where raw[range.lowerBound + j] != prefix.utf8Start[j] { return false }
        return true
    }

    /// Whether the field is a controller point's word: `cc`, `bend`, `pressure`, `program`.
    static func isControllerWord(_ raw: [UInt8], _ range: Range<Int>) -> Bool {
        field(raw, range, is: "cc") || field(raw, range, is: "bend") || field(raw, range, is: "pressure") || field(raw, range, is: "program")
    }

    static func field(_ raw: [UInt8], _ range: Range<Int>, is word: StaticString) -> Bool {
        guard range.count == word.utf8CodeUnitCount else { return false }
        for j in 0..<range.count where raw[range.lowerBound + j] != word.utf8Start[j] { return false }
        return true
    }
}

/// What a statement is to the editor.
enum SegmentRole {
    /// Kept byte for byte: the header, `seed`, blanks, empty statements.
    case verbatim
    /// A `note` statement.
    case note(WrittenNote)
    /// The statement holding a lane's length: `length` (version 1) or `lane` (version 2).
    case length(WrittenLength)
    /// A controller point (`cc`, `bend`, `pressure`, `program`) of the
    /// pattern edited: the k-th of them in the text is `controllers[k]`.
    /// Kept byte for byte until an edit of that point rewrites it.
    case controller
}

/// A note statement: the note's id, the values its text spells, and where
/// the fields the editor can change are (the channel and `prob=` when
/// written; locks and anything else stay as written).
struct WrittenNote {
    var id: UInt32
    var written: PatternNote
    var start: Range<Int>
    var duration: Range<Int>
    var key: Range<Int>
    var velocity: Range<Int>
    var channel: Range<Int>?
    var probability: Range<Int>?

    /// The note statement `raw`, cut into `fields` (at least five).
    init(_ raw: [UInt8], fields: [Range<Int>], id: UInt32, written: PatternNote) {
        self.id = id
        self.written = written
        start = fields[1]
        duration = fields[2]
        key = fields[3]
        velocity = fields[4]
        // The optional fields: a channel (a number), `prob=P`; locks stay as written.
        channel = fields.count > 5 && raw[fields[5].lowerBound] >= 0x30 && raw[fields[5].lowerBound] <= 0x39 ? fields[5] : nil
        probability = fields.dropFirst(5).first { SourceSegment.field(raw, $0, hasPrefix: "prob=") }
    }
}

/// A statement holding a lane's length, the value it spells and where.
struct WrittenLength {
    var lane: Int
    var written: BeatRational
    var field: Range<Int>
}

extension SourceSegment {
    /// The statement's bytes for `note`: the bytes as written, with each
    /// field whose value differs from the written one replaced by the
    /// writer's spelling (a key written as a note name stays a note name).
    static func rendered(_ raw: [UInt8], _ w: WrittenNote, _ note: EditorNote) -> [UInt8] {
        var out = raw
        // Right to left, so that the ranges still to replace stay valid:
        // `prob=` and the channel stand after the velocity (locks after them stay).
        let afterVelocity = (w.channel ?? w.velocity).upperBound
        if note.probability != w.written.probability {
            let text = Array(" prob=\(PatternWriter.beatText(note.probability))".utf8)
            if let field = w.probability {
                // Back to 1: the field goes, with the blanks before it.
                var from = field.lowerBound
                while from > 0, StatementReader.isBlank(out[from - 1]) { from -= 1 }
                out.replaceSubrange(from..<field.upperBound, with: note.probability == BeatRational(1) ? [] : text)
            } else {
                out.insert(contentsOf: text, at: afterVelocity)
            }
        }
        if note.channel != w.written.channel {
            if let field = w.channel {
                out.replaceSubrange(field, with: EditorText.decimal(note.channel))
            } else {
                out.insert(contentsOf: [UInt8(ascii: " ")] + EditorText.decimal(note.channel), at: w.velocity.upperBound)
            }
        }
        if note.velocity != w.written.velocity { out.replaceSubrange(w.velocity, with: EditorText.decimal(note.velocity)) }
        if note.key != w.written.key {
            let asName = NoteName.isLetter(raw[w.key.lowerBound])
            out.replaceSubrange(w.key, with: asName ? Array(NoteName.name(note.key).utf8) : EditorText.decimal(note.key))
        }
        if note.duration != w.written.duration { out.replaceSubrange(w.duration, with: EditorText.beat(note.duration)) }
        if note.start != w.written.start { out.replaceSubrange(w.start, with: EditorText.beat(note.start)) }
        return out
    }

    /// The statement's bytes with its length field spelling `length`.
    static func rendered(_ raw: [UInt8], _ w: WrittenLength, _ length: BeatRational) -> [UInt8] {
        guard length != w.written else { return raw }
        var out = raw
        out.replaceSubrange(w.field, with: EditorText.beat(length))
        return out
    }
}

/// The writer's spellings as bytes.
enum EditorText {
    static func beat(_ value: BeatRational) -> [UInt8] { Array(PatternWriter.beatText(value).utf8) }

    static func decimal(_ value: UInt8) -> [UInt8] { Array("\(value)".utf8) }

    /// The note's statement as `PatternWriter` writes it.
    static func note(_ note: EditorNote, defaultChannel: UInt8) -> [UInt8] {
        Array(PatternWriter.noteStatement(note.patternNote, defaultChannel: defaultChannel).utf8)
    }
}
