import TactusEngine

/// The pattern being edited: its lanes and notes, made from pattern text
/// and written back as text that keeps what the person wrote.
///
/// **Several patterns** (version 3): the document edits one of them
/// (`patternIndex`, chosen when it is made); its lanes and notes are the
/// only statements an edit touches. The other patterns, `seed`, `switch`,
/// `trigger`, `song`, `play` and every comment stay byte for byte, so a
/// `PatternChange` between two texts names only lines of that pattern.
///
/// **What the text keeps.** `text()` writes every line as it was read (its
/// spacing, `;`-separated statements, trailing `# comment`, CR LF line ends
/// and a byte-order mark), changing only what an edit changed:
/// - a moved, resized or re-velocitied note keeps its line and its comment;
///   only the fields whose values changed are rewritten, in the writer's
///   spelling (`PatternWriter.beatText`; a key written as a note name stays
///   a note name);
/// - a deleted note's statement goes; its line goes with it unless the line
///   holds other statements or a comment. A comment whose note was deleted
///   stays, on a line of its own, and `notice` says so;
/// - an added note is written as the writer writes notes, after the last
///   note of its lane (after the lane's `lane` line, or version 1's `length`
///   line, when the lane has none): on a line of its own, or, when that
///   place is on a line of several statements (a one-line pattern as
///   jalv.gtk3's text field holds), as one more `;` statement of that line;
/// - a changed loop length rewrites only the length field of its `length`
///   or `lane` statement (every lane option stays as written).
///
/// The text always parses, to exactly `pattern()`: every edit is checked
/// against the pattern format's rules (`Pattern.validationError()`, the
/// parser's rules), and a refused edit changes nothing.
///
/// **Order.** `notes` is in text order (the order of their statements), which
/// breaks ties between notes that start together (timing contract §5); an
/// edit never reorders notes.
///
/// Value type: a copy is a snapshot (undo keeps copies). Off the audio thread
/// (the UI thread); allocates. Costs: loading and `text()` O(text length);
/// looking a note up by id O(log n); changing notes O(k log n) for k notes
/// plus the check, O(k) in version 1 and O(n + notes over the lanes' common
/// cycle) in version 2; adding or removing notes O(n + lines).
public struct EditorDocument {
    /// 1 or 2: how the pattern edited is laid out (version 1: one `length`;
    /// version 2, and each pattern of version 3: lanes).
    public private(set) var version: Int
    /// 1, 2 or 3, as the text's header says.
    public private(set) var textVersion: Int
    /// `seed S` of a version-2 or version-3 text (0 otherwise); kept as written.
    public private(set) var seed: UInt32
    /// The lanes in text order (of the pattern edited, in version 3); in
    /// version 1 one lane named `main` of the text's `length`. Only a lane's
    /// `length` changes (`setLength`); its name, channel, swing and follow
    /// stay as written.
    public private(set) var lanes: [PatternLane]
    /// Every note in text order (all lanes of the pattern edited).
    public private(set) var notes: [EditorNote]
    /// The lanes' controller points (version 3, §10) in text order. The
    /// controller strip edits them (`addController`, `moveController`,
    /// `setControllerRamp`, `removeController`): an edit rewrites only the
    /// fields it changes in the point's own statement; every other point's
    /// line stays as written.
    public private(set) var controllers: [ControllerPoint]
    /// A sentence for a person about what the last edit did to the text's
    /// comments (a comment left on a line of its own when its note was
    /// deleted), or about a text whose layout could not be kept; nil when
    /// there is nothing to say. Each edit replaces it.
    public internal(set) var notice: [UInt8]?

    // MARK: Several patterns (version 3)

    /// The pattern edited: an index into `patternNames` (0 for a text of one pattern).
    public private(set) var patternIndex: Int = 0
    /// The text's patterns by name, in text order (`main` for a text of one pattern).
    public private(set) var patternNames: [[UInt8]] = [NamedPattern.mainName]
    /// The text's song, if it has one (kept as written; the editor edits no song).
    public private(set) var song: Song?
    /// The text's `switch` line (or its defaults): `at` is the default `WHEN` of a request.
    public private(set) var switchRule = SwitchRule()
    /// Whether the text has `pattern` lines (only the edited pattern's lanes and notes are the editor's).
    public private(set) var hasPatternLines = false
    /// What the other patterns hold, for the limits that count every pattern
    /// (pattern format, "Limits (version 3)"): their notes, the notes over
    /// their common cycles, and each pattern's cycle (the song's length).
    var otherNoteCount = 0
    var otherCycleNoteCount = 0
    /// The controller events over the other patterns' cycles.
    var otherControllerEventCount = 0
    /// Each pattern's cycle `C` (§9.1), in text order.
    public private(set) var cycles: [BeatRational] = []

    var layout: SourceLayout
    /// The id the next added note gets: above every id handed out so far.
    public internal(set) var nextID: UInt32

    /// Numbers the notes this document adds after every id `other` has given,
    /// so that ids stay unique across an undo history (a step taken back must
    /// not hand out an id a later step used). O(1).
    public mutating func continueIDs(after other: EditorDocument) {
        nextID = Swift.max(nextID, other.nextID)
    }
    /// Indices into `notes`, ordered by note id (ids grow as notes are
    /// added, so an added note's index goes at the end).
    var idOrder: [Int]

    /// Reads pattern text (`PatternParser.arrangement(bytes:)`) to edit its
    /// pattern number `pattern + 1` (clamped to the patterns there are; a
    /// text of one pattern has only 0); notes get ids `firstID`,
    /// `firstID + 1`, ... in text order.
    public init(parsing text: [UInt8], pattern: Int = 0, firstID: UInt32 = 1) throws(PatternError) {
        self.init(text: text, arrangement: try PatternParser.arrangement(bytes: text), pattern: pattern, firstID: firstID)
    }

    /// Reads pattern text to edit the pattern named `name` (the first when
    /// no pattern has that name).
    public init(parsing text: [UInt8], patternNamed name: [UInt8], firstID: UInt32 = 1) throws(PatternError) {
        let arrangement = try PatternParser.arrangement(bytes: text)
        self.init(text: text, arrangement: arrangement, pattern: arrangement.index(ofPattern: name) ?? 0, firstID: firstID)
    }

    /// `text`, which parsed as `arrangement`, editing its pattern `pattern`.
    init(text: [UInt8], arrangement: Arrangement, pattern index: Int, firstID: UInt32) {
        let chosen = Swift.min(Swift.max(index, 0), arrangement.patterns.count - 1)
        let pattern = arrangement.patterns[chosen].pattern
        version = pattern.version
        textVersion = arrangement.version
        seed = pattern.seed
        lanes = pattern.lanes
        controllers = pattern.controllers
        notes = []
        notes.reserveCapacity(pattern.notes.count)
        for (i, note) in pattern.notes.enumerated() { notes.append(EditorNote(id: firstID &+ UInt32(i), note)) }
        nextID = firstID &+ UInt32(pattern.notes.count)
        idOrder = Array(notes.indices)
        notice = nil
        patternIndex = chosen
        patternNames = arrangement.patterns.map { $0.name }
        song = arrangement.song
        switchRule = arrangement.switchRule
        hasPatternLines = arrangement.hasPatternLines
        cycles = arrangement.patterns.map { $0.pattern.length }
        if arrangement.patterns.count > 1 {
            for (i, other) in arrangement.patterns.enumerated() where i != chosen {
                otherNoteCount += other.pattern.notes.count
                otherCycleNoteCount += LaneCycle.cycleNoteCount(other.pattern)
                otherControllerEventCount += ControllerCycle.eventCount(other.pattern)
            }
        }
        let scope = arrangement.hasPatternLines ? chosen : nil
        if let kept = SourceLayout.scan(text, pattern: pattern, firstID: firstID, inPattern: scope) {
            layout = kept
        } else if !arrangement.needsVersion3 {
            // Not expected (the scan follows the parser's rules); should it
            // happen, the writer's text takes the place of the person's.
            let written = Array(PatternWriter.text(for: pattern).utf8)
            layout = SourceLayout.scan(written, pattern: pattern, firstID: firstID)!
            notice = Array("the pattern was rewritten in Tactus's own layout: its comments and spacing could not be kept".utf8)
        } else {
            // Not expected either; the whole text as the writer writes it, its patterns kept.
            let written = Array(PatternWriter.text(for: arrangement).utf8)
            layout = SourceLayout.scan(written, pattern: pattern, firstID: firstID, inPattern: scope)!
            notice = Array("the patterns were rewritten in Tactus's own layout: their comments and spacing could not be kept".utf8)
        }
    }

    /// Reads pattern text (to edit its first pattern), or says why it is not a pattern.
    public static func load(_ text: [UInt8], pattern: Int = 0, firstID: UInt32 = 1) -> Result<EditorDocument, PatternError> {
        do {
            return .success(try EditorDocument(parsing: text, pattern: pattern, firstID: firstID))
        } catch {
            return .failure(error)
        }
    }

    // MARK: Reading

    /// The index in `notes` of the note with this id. O(log n).
    public func index(ofNote id: UInt32) -> Int? {
        var low = 0
        var high = idOrder.count
        while low < high {
            let mid = (low + high) / 2
            let candidate = notes[idOrder[mid]].id
            if candidate == id { return idOrder[mid] }
            if candidate < id { low = mid + 1 } else { high = mid }
        }
        return nil
    }

    /// The note with this id. O(log n).
    public func note(_ id: UInt32) -> EditorNote? {
        index(ofNote: id).map { notes[$0] }
    }

    /// The notes of one lane, in text order. O(n).
    public func notes(inLane lane: Int) -> [EditorNote] {
        notes.filter { $0.lane == lane }
    }

    /// The latest start among a lane's notes, nil when it has none: a lane's
    /// length must stay above it. O(n).
    public func lastStart(inLane lane: Int) -> BeatRational? {
        var last: BeatRational?
        for note in notes where note.lane == lane {
            if last.map({ note.start > $0 }) ?? true { last = note.start }
        }
        return last
    }

    /// The pattern the text spells. O(n).
    public func pattern() -> Pattern {
        let patternNotes = notes.map { $0.patternNote }
        if version == 1 { return Pattern(length: lanes[0].length, notes: patternNotes) }
        let cycle = LaneCycle.commonCycle(lanes.map { $0.length }).cycle ?? BeatRational(1)
        return Pattern(lanes: lanes, notes: patternNotes, seed: seed, commonCycle: cycle, controllers: controllers)
    }

    /// The channel a lane's notes get when they name none: the lane's
    /// (version 2), 1 in version 1.
    public func defaultChannel(ofLane lane: Int) -> UInt8 {
        version >= 2 && lanes.indices.contains(lane) ? lanes[lane].channel : 1
    }

    /// The pattern text: what was read, with the edits made (see the type's
    /// description). It parses to `pattern()`. O(text length + n).
    public func text() -> [UInt8] {
        var out: [UInt8] = []
        if layout.byteOrderMark { out += [0xEF, 0xBB, 0xBF] }
        let lastLine = layout.lines.count - 1
        for (l, line) in layout.lines.enumerated() {
            for (s, segment) in line.segments.enumerated() {
                if s > 0 { out.append(UInt8(ascii: ";")) }
                switch segment.role {
                case .verbatim, .controller:
                    out += segment.raw
                case .note(let w):
                    if let i = index(ofNote: w.id) {
                        out += SourceSegment.rendered(segment.raw, w, notes[i])
                    } else {
                        out += segment.raw
                    }
                case .length(let w):
                    out += SourceSegment.rendered(segment.raw, w, lanes[w.lane].length)
                }
            }
            out += line.comment
            switch line.end {
            case .lf: out.append(UInt8(ascii: "\n"))
            case .crlf: out += [UInt8(ascii: "\r"), UInt8(ascii: "\n")]
            case .none:
                if l < lastLine {
                    if layout.newline == .crlf { out.append(UInt8(ascii: "\r")) }
                    out.append(UInt8(ascii: "\n"))
                }
            }
        }
        return out
    }

    // MARK: Editing

    /// Adds a note to `lane` (channel: the lane's default when nil;
    /// `probability` other than 1 only in version 2) and returns its id. The
    /// note goes after the lane's last note in text order.
    @discardableResult
    public mutating func addNote(
        lane: Int, start: BeatRational, duration: BeatRational, key: UInt8, velocity: UInt8, channel: UInt8? = nil,
        probability: BeatRational = BeatRational(1)
    ) -> Result<UInt32, EditRejection> {
        guard lanes.indices.contains(lane) else { return .failure(.noSuchLane(lane)) }
        guard notes.count + otherNoteCount < Pattern.maximumNoteCount else {
            return .failure(.breaksFormat(PatternError(line: 0, reason: .tooManyNotes)))
        }
        let laneChannel = defaultChannel(ofLane: lane)
        let note = EditorNote(
            id: nextID,
            PatternNote(
                start: start, duration: duration, key: key, velocity: velocity, channel: channel ?? laneChannel,
                probability: probability, lane: lane))
        var candidate = self
        candidate.insert(note)
        if let problem = candidate.problem(with: [note]) { return .failure(problem) }
        candidate.notice = nil
        self = candidate
        return .success(note.id)
    }

    /// Removes the notes with these ids (ids not found are ignored) and
    /// returns how many went. O(n + lines + k log k).
    @discardableResult
    public mutating func removeNotes(_ ids: [UInt32]) -> Int {
        let gone = ids.sorted()
        func isGone(_ id: UInt32) -> Bool {
            var low = 0
            var high = gone.count
            while low < high {
                let mid = (low + high) / 2
                if gone[mid] == id { return true }
                if gone[mid] < id { low = mid + 1 } else { high = mid }
            }
            return false
        }
        let before = notes.count
        var newIndex = [Int](repeating: -1, count: notes.count)
        var kept: [EditorNote] = []
        kept.reserveCapacity(notes.count)
        for (i, note) in notes.enumerated() where !isGone(note.id) {
            newIndex[i] = kept.count
            kept.append(note)
        }
        guard kept.count < before else { return 0 }
        var order: [Int] = []
        order.reserveCapacity(kept.count)
        for i in idOrder where newIndex[i] >= 0 { order.append(newIndex[i]) }
        notes = kept
        idOrder = order

        var lines: [LayoutLine] = []
        lines.reserveCapacity(layout.lines.count)
        var orphanedCommentLines: [Int] = []
        for var line in layout.lines {
            let count = line.segments.count
            var trailingBlanks: [UInt8] = []
            if let last = line.segments.last {
                var i = last.raw.count
                while i > 0, StatementReader.isBlank(last.raw[i - 1]) { i -= 1 }
                trailingBlanks = Array(last.raw[i...])
            }
            let lastWasGone = line.segments.last.map { segment in
                if case .note(let w) = segment.role { return isGone(w.id) }
                return false
            } ?? false
            line.segments.removeAll { segment in
                if case .note(let w) = segment.role { return isGone(w.id) }
                return false
            }
            if lastWasGone, let last = line.segments.indices.last,
                !(line.segments[last].raw.last.map(StatementReader.isBlank) ?? false) {
                // The blanks before the line's comment stay before it.
                line.segments[last].raw += trailingBlanks
            }
            if line.segments.count < count {
                let hasStatement = line.statementCount > 0
                if !hasStatement && line.comment.isEmpty { continue }
                if !hasStatement {
                    // Only the comment is left: keep it, on a line of its own.
                    line.segments = []
                    orphanedCommentLines.append(lines.count + 1)
                }
            }
            lines.append(line)
        }
        layout.lines = lines
        notice = EditorDocument.orphanNotice(orphanedCommentLines)
        return before - kept.count
    }

    /// Removes one note; false when there is none with this id.
    @discardableResult
    public mutating func removeNote(_ id: UInt32) -> Bool { removeNotes([id]) == 1 }

    /// Replaces notes by id with these values (start, duration, key,
    /// velocity, channel, probability; a note keeps its lane), all or
    /// nothing: when one breaks a rule, none changes.
    @discardableResult
    public mutating func update(_ changed: [EditorNote]) -> Result<Void, EditRejection> {
        var candidate = notes
        var checked: [EditorNote] = []
        checked.reserveCapacity(changed.count)
        for var note in changed {
            guard let i = index(ofNote: note.id) else { return .failure(.noSuchNote(note.id)) }
            note.lane = candidate[i].lane
            note.locks = candidate[i].locks
            candidate[i] = note
            checked.append(note)
        }
        let old = notes
        notes = candidate
        if let problem = problem(with: checked) {
            notes = old
            return .failure(problem)
        }
        notice = nil
        return .success(())
    }

    /// Moves a note to `start` (beats in its lane) and `key`.
    @discardableResult
    public mutating func moveNote(_ id: UInt32, start: BeatRational, key: UInt8) -> Result<Void, EditRejection> {
        guard var note = note(id) else { return .failure(.noSuchNote(id)) }
        note.start = start
        note.key = key
        return update([note])
    }

    /// Gives a note a new duration (beats, `> 0`).
    @discardableResult
    public mutating func resizeNote(_ id: UInt32, duration: BeatRational) -> Result<Void, EditRejection> {
        guard var note = note(id) else { return .failure(.noSuchNote(id)) }
        note.duration = duration
        return update([note])
    }

    /// Gives a note a new velocity (1-127).
    @discardableResult
    public mutating func setVelocity(_ id: UInt32, _ velocity: UInt8) -> Result<Void, EditRejection> {
        guard var note = note(id) else { return .failure(.noSuchNote(id)) }
        note.velocity = velocity
        return update([note])
    }

    /// Sets a lane's loop length (version 1: the pattern's `length`). Refused
    /// when a note of the lane starts at or after it (`notesAtOrAfterLength`),
    /// and in version 2 when the lanes' common cycle would break the
    /// format's limits.
    @discardableResult
    public mutating func setLength(ofLane lane: Int, to length: BeatRational) -> Result<Void, EditRejection> {
        guard lanes.indices.contains(lane) else { return .failure(.noSuchLane(lane)) }
        if length <= .zero { return .failure(.breaksFormat(PatternError(line: 0, reason: .lengthNotPositive))) }
        if length > PatternLimits.maximumBeatValue {
            return .failure(.breaksFormat(PatternError(line: 0, reason: .beatValueTooLarge(field: "length"))))
        }
        if !PatternLimits.isWritable(length) {
            return .failure(.breaksFormat(PatternError(line: 0, reason: .fractionPartTooLarge(field: "length"))))
        }
        var past = 0
        for note in notes where note.lane == lane && note.start >= length { past += 1 }
        if past > 0 { return .failure(.notesAtOrAfterLength(count: past)) }
        let old = lanes[lane].length
        lanes[lane].length = length
        if version >= 2, let problem = pattern().validationError() ?? arrangementProblem() {
            lanes[lane].length = old
            return .failure(.breaksFormat(EditorDocument.withoutLine(problem)))
        }
        notice = nil
        return .success(())
    }

    // MARK: Lanes and seed

    /// Adds `lane` (a name no lane has) on a line of its own at the end of
    /// the text, or gives the lane of that name these values, its statement
    /// rewritten in place (its comment and the blanks around it kept; a note
    /// of the lane that named no channel names its own when the lane's
    /// channel changes, so that every note keeps its channel).
    /// A version-1 text becomes version 2 first: its header says 2 and its
    /// `length L` becomes `lane main length L`. Returns the lane's index.
    /// The whole text is checked by the parser; a refused edit changes
    /// nothing. The notes get new ids, from `nextID` on. O(text length).
    public mutating func setLane(_ lane: PatternLane) -> Result<Int, PatternError> {
        let existing = lanes.firstIndex { $0.name == lane.name }
        var lane = lane
        // A lane's `ramp-step` (version 3) is not an option the prompt and the piano roll set: it stays.
        if let existing, lane.rampStep == PatternLane.defaultRampStep { lane.rampStep = lanes[existing].rampStep }
        if hasPatternLines, existing == nil {
            // A new lane goes at the end of the text: in a text of patterns, after another pattern or the song.
            return .failure(PatternError(line: 1, reason: .editingNeedsOnePattern(patterns: patternNames.count)))
        }
        var layout = version2Layout(channelOfLane: existing.map { ($0, lane.channel) })
        let statement = Array(PatternWriter.laneStatement(lane).utf8)
        // (`version2Layout` keeps every line and statement where it was.)
        if let existing, let (l, s) = self.layout.position(ofLengthOfLane: existing) {
            layout.lines[l].segments[s] = SourceSegment(raw: EditorDocument.replacingStatement(layout.lines[l].segments[s].raw, with: statement), role: .verbatim)
        } else {
            layout.appendLine(statement)
        }
        return adopt(layout).map { lanes.firstIndex { $0.name == lane.name } ?? 0 }
    }

    /// Sets `seed S`: rewrites the seed statement's value in place, or adds
    /// `seed S` after the header (not when S is 0, the value without one).
    /// A version-1 text becomes version 2 first (see `setLane`). The notes
    /// get new ids, from `nextID` on. O(text length).
    public mutating func setSeed(_ seed: UInt32) -> Result<Void, PatternError> {
        var layout = version2Layout()
        let value = Array("\(seed)".utf8)
        if let (l, s) = layout.position(ofStatement: "seed") {
            var raw = layout.lines[l].segments[s].raw
            let fields = SourceSegment.fieldRanges(raw)
            if fields.count == 2 { raw.replaceSubrange(fields[1], with: value) }
            layout.lines[l].segments[s] = SourceSegment(raw: raw, role: .verbatim)
        } else if seed != 0, let (l, s) = layout.position(ofStatement: "tactus-pattern") {
            let statement = Array("seed ".utf8) + value
            if layout.lines[l].statementCount > 1 {
                layout.lines[l].segments.insert(SourceSegment(raw: [UInt8(ascii: " ")] + statement, role: .verbatim), at: s + 1)
            } else {
                layout.lines.insert(LayoutLine(segments: [SourceSegment(raw: statement, role: .verbatim)], comment: [], end: layout.newline), at: l + 1)
                if layout.lines[l].end == .none {
                    layout.lines[l].end = layout.newline
                    layout.lines[l + 1].end = .none
                }
            }
        }
        return adopt(layout).map { _ in () }
    }

    /// The layout with every value as the document holds it now, and a
    /// version-1 text's header and `length` statement spelled as version 2's;
    /// with `channelOfLane` (a lane, its new channel), that lane's notes
    /// written without a channel get theirs when it is not the new one.
    private func version2Layout(channelOfLane: (lane: Int, channel: UInt8)? = nil) -> SourceLayout {
        var out = layout
        for l in out.lines.indices {
            for s in out.lines[l].segments.indices {
                let segment = out.lines[l].segments[s]
                switch segment.role {
                case .verbatim, .controller: continue
                case .note(let w):
                    guard let i = index(ofNote: w.id) else { continue }
                    var raw = SourceSegment.rendered(segment.raw, w, notes[i])
                    if let (lane, channel) = channelOfLane, notes[i].lane == lane, notes[i].channel != channel {
                        // `note START DURATION KEY VELOCITY [CHANNEL] [prob=P] [ccN=V ...]`: a number after the velocity is the channel.
                        let fields = SourceSegment.fieldRanges(raw)
                        let namesChannel = WrittenNote(raw, fields: fields, id: 0, written: notes[i].patternNote).channel != nil
                        if !namesChannel { raw.insert(contentsOf: [UInt8(ascii: " ")] + Array("\(notes[i].channel)".utf8), at: fields[4].upperBound) }
                    }
                    out.lines[l].segments[s] = SourceSegment(raw: raw, role: .verbatim)
                case .length(let w):
                    var raw = SourceSegment.rendered(segment.raw, w, lanes[w.lane].length)
                    if version == 1, let first = SourceSegment.fieldRanges(raw).first {
                        raw.replaceSubrange(first, with: Array("lane main length".utf8))
                    }
                    out.lines[l].segments[s] = SourceSegment(raw: raw, role: .verbatim)
                }
            }
        }
        if version == 1, let (l, s) = out.position(ofStatement: "tactus-pattern") {
            var raw = out.lines[l].segments[s].raw
            let fields = SourceSegment.fieldRanges(raw)
            if fields.count == 2 { raw.replaceSubrange(fields[1], with: [UInt8(ascii: "2")]) }
            out.lines[l].segments[s].raw = raw
        }
        return out
    }

    // MARK: Controller points (version 3, §10)

    /// Adds a controller point (contract §10) to lane `point.lane` and
    /// returns its index in `controllers`: written as the writer writes it,
    /// on a line of its own after the lane's last statement (its notes, its
    /// points). A text of version 1 or 2 becomes `tactus-pattern 3` first (a
    /// version-1 `length` becomes `lane main`, as in `setLane`). The point is
    /// checked against the format's rules (its range, a point of the same
    /// controller at that beat, the cycle's controller events); a refused
    /// point changes nothing. Notes keep their ids. O(text length + n).
    @discardableResult
    public mutating func addController(_ point: ControllerPoint) -> Result<Int, PatternError> {
        guard lanes.indices.contains(point.lane) else { return .failure(PatternError(line: 0, reason: .controllerBeforeLane)) }
        if let problem = point.problem { return .failure(PatternError(line: 0, reason: problem)) }
        let statement = Array(PatternWriter.controllerStatement(point, defaultChannel: lanes[point.lane].channel).utf8)
        var candidate = self
        if textVersion < 3 {
            var layout = version2Layout()
            if let (l, s) = layout.position(ofStatement: "tactus-pattern") {
                var raw = layout.lines[l].segments[s].raw
                let fields = SourceSegment.fieldRanges(raw)
                if fields.count == 2 { raw.replaceSubrange(fields[1], with: [UInt8(ascii: "3")]) }
                layout.lines[l].segments[s].raw = raw
            }
            candidate.layout = layout
            if case .failure(let error) = candidate.adoptKeepingNoteIDs() { return .failure(error) }
        }
        let after = candidate.layout.lastLine(ofLane: point.lane, document: candidate) ?? (candidate.layout.lines.count - 1)
        var end = candidate.layout.newline
        if candidate.layout.lines[after].end == .none {
            candidate.layout.lines[after].end = candidate.layout.newline
            end = .none
        }
        candidate.layout.lines.insert(
            LayoutLine(segments: [SourceSegment(raw: statement, role: .controller)], comment: [], end: end), at: after + 1)
        let k = candidate.layout.controllerCount(before: after + 1)
        candidate.controllers.insert(point, at: k)
        if let problem = candidate.controllerProblem() { return .failure(problem) }
        candidate.notice = nil
        self = candidate
        return .success(k)
    }

    /// Gives controller point `index` a new beat and value (its kind,
    /// channel and `ramp` as they are): only those fields of its statement
    /// are rewritten, the rest of its line kept. Refused (nothing changes)
    /// when it breaks the format's rules. O(lines + n).
    public mutating func moveController(_ index: Int, start: BeatRational, value: Int16) -> Result<Void, PatternError> {
        guard controllers.indices.contains(index), let (l, s) = layout.position(ofController: index) else {
            return .failure(PatternError(line: 0, reason: .controllerBeforeLane))
        }
        var point = controllers[index]
        guard point.start != start || point.value != value else { return .success(()) }
        point.start = start
        point.value = value
        var raw = layout.lines[l].segments[s].raw
        let fields = SourceSegment.fieldRanges(raw)
        let at = point.kind.word == "cc" ? 2 : 1
        guard fields.count > at + 1 else { return .failure(PatternError(line: 0, reason: .controllerBeforeLane)) }
        // Right to left, so the first range stays valid.
        raw.replaceSubrange(fields[at + 1], with: Array("\(value)".utf8))
        raw.replaceSubrange(fields[at], with: EditorText.beat(start))
        return replaceController(index, with: point, raw: raw, at: (l, s))
    }

    /// Turns `ramp` on or off on controller point `index` (never on a
    /// `program`): the word is added after the statement's last field, or
    /// taken away with the blanks before it. O(lines + n).
    public mutating func setControllerRamp(_ index: Int, _ ramp: Bool) -> Result<Void, PatternError> {
        guard controllers.indices.contains(index), let (l, s) = layout.position(ofController: index) else {
            return .failure(PatternError(line: 0, reason: .controllerBeforeLane))
        }
        var point = controllers[index]
        guard point.ramp != ramp else { return .success(()) }
        if point.kind == .program { return .failure(PatternError(line: 0, reason: .programRamp)) }
        point.ramp = ramp
        var raw = layout.lines[l].segments[s].raw
        let fields = SourceSegment.fieldRanges(raw)
        if ramp {
            guard let last = fields.last else { return .failure(PatternError(line: 0, reason: .controllerBeforeLane)) }
            raw.insert(contentsOf: Array(" ramp".utf8), at: last.upperBound)
        } else {
            guard let field = fields.last(where: { SourceSegment.field(raw, $0, is: "ramp") }) else {
                return .failure(PatternError(line: 0, reason: .controllerBeforeLane))
            }
            var from = field.lowerBound
            while from > 0, StatementReader.isBlank(raw[from - 1]) { from -= 1 }
            raw.removeSubrange(from..<field.upperBound)
        }
        return replaceController(index, with: point, raw: raw, at: (l, s))
    }

    /// Removes controller point `index`: its statement goes, and its line
    /// with it unless the line holds other statements or a comment (the
    /// comment then stays on a line of its own). O(lines + n).
    @discardableResult
    public mutating func removeController(_ index: Int) -> Bool {
        guard controllers.indices.contains(index), let (l, s) = layout.position(ofController: index) else { return false }
        var candidate = self
        candidate.controllers.remove(at: index)
        var line = candidate.layout.lines[l]
        line.segments.remove(at: s)
        if line.statementCount == 0 && line.comment.isEmpty {
            if line.end == .none, l > 0 { candidate.layout.lines[l - 1].end = .none }
            candidate.layout.lines.remove(at: l)
        } else {
            if line.statementCount == 0 { line.segments = [] }
            candidate.layout.lines[l] = line
        }
        // Taking a point away can only break the cycle limits of ramps around it (never expected).
        if candidate.controllerProblem() != nil { return false }
        candidate.notice = nil
        self = candidate
        return true
    }

    /// Puts `point` in place of controller `index`, its statement `raw`, when the rules take it.
    private mutating func replaceController(_ index: Int, with point: ControllerPoint, raw: [UInt8], at place: (Int, Int)) -> Result<Void, PatternError> {
        var candidate = self
        candidate.controllers[index] = point
        candidate.layout.lines[place.0].segments[place.1].raw = raw
        if let problem = candidate.controllerProblem() { return .failure(problem) }
        candidate.notice = nil
        self = candidate
        return .success(())
    }

    /// The first rule the pattern's controllers break (as the parser checks
    /// them: each point, duplicates, the cycle's controller events), nil
    /// when none. O(points log points + n).
    func controllerProblem() -> PatternError? {
        let mine = pattern()
        if let error = mine.validationError() ?? arrangementProblem() { return EditorDocument.withoutLine(error) }
        let events = ControllerCycle.eventCount(mine)
        if events > ControllerCycle.maximumCycleEventCount {
            return PatternError(line: 0, reason: .tooManyCycleControllerEvents(cycle: PatternWriter.beatText(mine.length)))
        }
        if events + otherControllerEventCount > ControllerCycle.maximumTotalCycleEventCount {
            return PatternError(line: 0, reason: .tooManyTotalCycleControllerEvents)
        }
        return nil
    }

    /// Becomes the document the layout's text spells, read again by the
    /// parser, each note keeping its id (the notes are the same, in the same
    /// order: only the header or controller lines changed).
    private mutating func adoptKeepingNoteIDs() -> Result<Void, PatternError> {
        let fresh: EditorDocument
        do {
            fresh = try EditorDocument(parsing: text(), pattern: patternIndex, firstID: 1)
        } catch {
            return .failure(error)
        }
        guard fresh.notes.count == notes.count else { return .failure(PatternError(line: 0, reason: .controllerBeforeLane)) }
        var next = fresh
        for i in next.notes.indices { next.notes[i] = EditorNote(id: notes[i].id, next.notes[i].patternNote) }
        next.idOrder = idOrder
        for l in next.layout.lines.indices {
            for s in next.layout.lines[l].segments.indices {
                if case .note(var w) = next.layout.lines[l].segments[s].role {
                    w.id = notes[Int(w.id) - 1].id
                    next.layout.lines[l].segments[s].role = .note(w)
                }
            }
        }
        next.nextID = nextID
        next.notice = notice
        self = next
        return .success(())
    }

    /// Becomes the document `layout` spells, when the parser takes it.
    private mutating func adopt(_ layout: SourceLayout) -> Result<Void, PatternError> {
        var candidate = self
        candidate.layout = layout
        do {
            self = try EditorDocument(parsing: candidate.text(), pattern: patternIndex, firstID: nextID)
            return .success(())
        } catch {
            return .failure(error)
        }
    }

    /// A statement's bytes with everything from its first field to its last
    /// replaced by `statement` (the blanks around it kept).
    private static func replacingStatement(_ raw: [UInt8], with statement: [UInt8]) -> [UInt8] {
        let fields = SourceSegment.fieldRanges(raw)
        guard let first = fields.first, let last = fields.last else { return statement }
        var out = raw
        out.replaceSubrange(first.lowerBound..<last.upperBound, with: statement)
        return out
    }

    // MARK: Internals

    /// The first rule broken once `changed` (already in `notes`) took their
    /// values: in version 1 only they are checked (the others were valid
    /// before and nothing they depend on changed); in version 2 the whole
    /// pattern, since the lanes' common cycle depends on every note.
    func problem(with changed: [EditorNote]) -> EditRejection? {
        let error: PatternError?
        if version == 1 {
            error = Pattern(length: lanes[0].length, notes: changed.map { $0.patternNote }).validationError()
        } else {
            error = pattern().validationError() ?? arrangementProblem()
        }
        return error.map { .breaksFormat(EditorDocument.withoutLine($0)) }
    }

    /// The first limit of a text of several patterns this pattern now breaks
    /// with the others (pattern format, "Limits (version 3)"): the notes
    /// over every pattern's cycle, the song's length. Nil for one pattern.
    /// O(n + notes over the cycle + song entries).
    func arrangementProblem() -> PatternError? {
        guard cycles.count > 1 || song != nil else { return nil }
        let mine = pattern()
        if otherCycleNoteCount + LaneCycle.cycleNoteCount(mine) > Arrangement.maximumTotalCycleNoteCount {
            return PatternError(line: 0, reason: .tooManyTotalCycleNotes)
        }
        guard let song, mine.length != cycles[patternIndex] else { return nil }
        var now = cycles
        now[patternIndex] = mine.length
        switch Song.length(of: song.entries, cycles: now) {
        case .beats: return nil
        case .tooLong: return PatternError(line: 0, reason: .songTooLong)
        case .denominatorTooLarge: return PatternError(line: 0, reason: .songDenominatorTooLarge)
        }
    }

    /// An error of a pattern built in code names a note's index as its line:
    /// meaningless to a person editing, so it goes.
    static func withoutLine(_ error: PatternError) -> PatternError {
        var e = error
        e.line = 0
        e.column = 0
        return e
    }

    /// Puts a new note (its id above every other) after its lane's last note,
    /// in `notes` and in the text.
    mutating func insert(_ note: EditorNote) {
        var anchorNote: Int?
        for (i, other) in notes.enumerated() where other.lane == note.lane { anchorNote = i }
        let index: Int
        let place: (line: Int, segment: Int)?
        if let a = anchorNote {
            index = a + 1
            place = layout.position(ofNote: notes[a].id)
        } else {
            var i = 0
            while i < notes.count, notes[i].lane < note.lane { i += 1 }
            index = i
            place = layout.position(ofLengthOfLane: note.lane)
        }
        notes.insert(note, at: index)
        for k in idOrder.indices where idOrder[k] >= index { idOrder[k] += 1 }
        idOrder.append(index)
        nextID = nextID &+ 1

        let canonical = EditorText.note(note, defaultChannel: defaultChannel(ofLane: note.lane))
        guard let (l, s) = place else {
            // Not expected: every lane has its length statement. At the end, then.
            layout.lines.append(EditorDocument.line(canonical, note: note, end: layout.newline))
            return
        }
        if layout.lines[l].statementCount > 1 {
            // A line of several statements: one more statement on it.
            var raw = [UInt8(ascii: " ")] + canonical
            var anchor = layout.lines[l].segments[s]
            if s == layout.lines[l].segments.count - 1 {
                // The blanks before the line's comment follow the new statement.
                var blanks: [UInt8] = []
                while let last = anchor.raw.last, StatementReader.isBlank(last) {
                    blanks.insert(last, at: 0)
                    anchor.raw.removeLast()
                }
                raw += blanks
                layout.lines[l].segments[s] = anchor
            }
            layout.lines[l].segments.insert(EditorDocument.segment(raw, note: note), at: s + 1)
        } else {
            var end = layout.lines[l].end
            if end == .none {
                // The text had no final line end: the anchor line gets one, the new line keeps none.
                layout.lines[l].end = layout.newline
                end = .none
            } else {
                end = layout.newline
            }
            layout.lines.insert(EditorDocument.line(canonical, note: note, end: end), at: l + 1)
        }
    }

    static func segment(_ raw: [UInt8], note: EditorNote) -> SourceSegment {
        let f = SourceSegment.fieldRanges(raw)
        return SourceSegment(
            raw: raw,
            role: .note(WrittenNote(raw, fields: f, id: note.id, written: note.patternNote)))
    }

    static func line(_ canonical: [UInt8], note: EditorNote, end: LineEnd) -> LayoutLine {
        LayoutLine(segments: [segment(canonical, note: note)], comment: [], end: end)
    }

    static func orphanNotice(_ lines: [Int]) -> [UInt8]? {
        guard let first = lines.first else { return nil }
        if lines.count == 1 {
            return Array("the comment on line \(first) stays, on a line of its own: its note was deleted".utf8)
        }
        return Array("\(lines.count) comments stay, each on a line of its own, from line \(first) on: their notes were deleted".utf8)
    }
}
