import TactusEngine
/// Reads the pattern text format, versions 1, 2 and 3 (`docs/pattern-format.md`):
/// statements end at a line feed or a `;`; a key is a number or a note name.
///
/// Strict: anything the format does not allow rejects the whole text with the
/// line number and the reason. Tolerated encoding artefacts: a UTF-8 byte-order
/// mark at the start and CR LF line ends. Runs off the audio thread (it
/// allocates the notes array); O(n) in the text length.
public enum PatternParser {
    /// Parses `text`; a text of several patterns (version 3) gives its first.
    public static func parse(_ text: String) throws(PatternError) -> Pattern {
        try parse(bytes: Array(text.utf8))
    }

    /// Parses UTF-8 `bytes`; a text of several patterns (version 3) gives its first.
    public static func parse(bytes: [UInt8]) throws(PatternError) -> Pattern {
        try bytes.withUnsafeBufferPointer { (b) throws(PatternError) -> Pattern in try parse(bytes: b) }
    }

    /// Parses UTF-8 `bytes`; a text of several patterns (version 3) gives its first.
    public static func parse(bytes: UnsafeBufferPointer<UInt8>) throws(PatternError) -> Pattern {
        try arrangement(bytes: bytes).patterns[0].pattern
    }

    /// Parses `text` whole: every pattern, the switch, the triggers, the song.
    public static func arrangement(_ text: String) throws(PatternError) -> Arrangement {
        try arrangement(bytes: Array(text.utf8))
    }

    /// Parses UTF-8 `bytes` whole.
    public static func arrangement(bytes: [UInt8]) throws(PatternError) -> Arrangement {
        try bytes.withUnsafeBufferPointer { (b) throws(PatternError) -> Arrangement in try arrangement(bytes: b) }
    }

    /// Whether the text's first statement is `tactus-pattern 3` (a cheap
    /// look before a whole parse). O(the first statement).
    public static func declaresVersion3(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { b in
            var reader = StatementReader(bytes: b)
            var fields = FieldList()
            guard reader.nextStatement(into: &fields) else { return false }
            return fields.count == 2 && fields.field(0, is: "tactus-pattern") && fields.field(1, is: "3")
        }
    }

    /// One pattern of a version-3 text while it is read.
    struct PatternDraft {
        var name: [UInt8]
        var line: Int
        var program: PatternProgram?
        var lanes: [PatternLane] = []
        var laneLines: [Int] = []
        var notes: [PatternNote] = []
        var noteLines: [Int] = []
        var controllers: [ControllerPoint] = []
        var controllerLines: [Int] = []
    }

    /// Parses UTF-8 `bytes` whole.
    public static func arrangement(bytes: UnsafeBufferPointer<UInt8>) throws(PatternError) -> Arrangement {
        if let badLine = UTF8Check.firstInvalidLine(bytes) {
            throw PatternError(line: badLine, reason: .invalidUTF8)
        }
        var reader = StatementReader(bytes: bytes)
        var version = 0
        var length: BeatRational?
        var lengthLine = 0
        // The pattern being read (version 1's notes, version 2's lanes, version 3's current pattern).
        var current = PatternDraft(name: NamedPattern.mainName, line: 0)
        var finished: [PatternDraft] = []
        var totalNotes = 0
        var totalPoints = 0
        var seed: UInt32 = 0
        var seedLine = 0
        // Version 3.
        var hasPatternLines = false
        var switchRule = SwitchRule()
        var switchLine = 0
        var triggers = PatternTriggers()
        var triggerLines = (program: 0, note: 0, cc: 0)
        var songEnd: Song.End?
        var songLine = 0
        var entries: [Song.Entry] = []
        var fields = FieldList()

        /// Ends the current pattern of a text with `pattern` lines at `line`.
        func finishPattern(at line: SourceLine) throws(PatternError) {
            guard !current.lanes.isEmpty else { throw PatternError(line: line, reason: .patternWithoutLane(QuotedText.quoted(current.name))) }
            finished.append(current)
        }

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
                } else if fields.field(1, is: "3") {
                    version = 3
                } else {
                    throw PatternError(line: line, field: fields.field(1), reason: .unsupportedVersion(fields.quoted(1)))
                }
                continue
            }
            // Statement words are compared as bytes: the format is ASCII, and
            // String comparison would pull Unicode tables into the plugin.
            let isVersion3Statement =
                fields.field(0, is: "pattern") || fields.field(0, is: "switch") || fields.field(0, is: "trigger")
                || fields.field(0, is: "song") || fields.field(0, is: "play") || isControllerStatement(fields)
            if isVersion3Statement && version < 3 {
                throw PatternError(line: line, reason: .needsVersion3(fields.quoted(0)))
            }
            // After `song`, only `play`.
            if songLine > 0, !fields.field(0, is: "play"), !fields.field(0, is: "song"), !fields.field(0, is: "tactus-pattern") {
                throw PatternError(line: line, reason: .mustPrecedeSong(fields.quoted(0)))
            }
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
                var locks: [ControllerLock] = []
                // Locks (`ccN=V`, version 3) end the statement; read in text order.
                while count > 1, isLockField(fields.field(count - 1)) { count -= 1 }
                for i in count..<fields.count {
                    guard version >= 3 else { throw PatternError(line: line, field: fields.field(i), reason: .needsVersion3(fields.quoted(i))) }
                    let lock = try lockField(fields.field(i), line: line)
                    if locks.contains(where: { $0.controller == lock.controller }) {
                        throw PatternError(line: line, field: fields.field(i), reason: .duplicateLock(controller: lock.controller))
                    }
                    locks.append(lock)
                }
                if count > 1, fields.field(count - 1, hasPrefix: "prob=") {
                    guard version >= 2 else { throw PatternError(line: line, field: fields.field(count - 1), reason: .needsVersion2("prob=")) }
                    probability = try beatValue(fields.field(count - 1, droppingPrefix: 5), name: "probability", line: line)
                    guard probability > .zero, probability <= BeatRational(1) else {
                        throw PatternError(line: line, field: fields.field(count - 1), reason: .probabilityOutOfRange)
                    }
                    count -= 1
                }
                guard count == 5 || count == 6 else {
                    let expected =
                        version >= 3 ? "START DURATION KEY VELOCITY [CHANNEL] [prob=P] [ccN=V ...]"
                        : version == 2 ? "START DURATION KEY VELOCITY [CHANNEL] [prob=P]" : "START DURATION KEY VELOCITY [CHANNEL]"
                    throw PatternError(line: line, reason: .wrongFieldCount(statement: "note", expected: expected, found: fields.count - 1))
                }
                if version >= 2 && current.lanes.isEmpty {
                    throw PatternError(line: line, reason: version == 3 ? .noteBeforeLane : .noteOutsideLane)
                }
                guard totalNotes < Pattern.maximumNoteCount else { throw PatternError(line: line, reason: .tooManyNotes) }
                let start = try beatValue(fields.field(1), name: "start", line: line)
                let duration = try beatValue(fields.field(2), name: "duration", line: line)
                guard duration > .zero else { throw PatternError(line: line, field: fields.field(2), reason: .durationNotPositive) }
                let key = try key(fields.field(3), name: "key", line: line)
                let velocity = try integer(fields.field(4), name: "velocity", range: 1...127, rangeText: "1-127", line: line)
                var channel = Int64(current.lanes.last?.channel ?? 1)
                if count == 6 {
                    channel = try integer(fields.field(5), name: "channel", range: 1...16, rangeText: "1-16", line: line)
                }
                if let lane = current.lanes.last, start >= lane.length {
                    throw PatternError(line: line, field: fields.field(1), reason: .startNotBeforeLaneLength)
                }
                current.notes.append(
                    PatternNote(
                        start: start, duration: duration, key: UInt8(key), velocity: UInt8(velocity), channel: UInt8(channel),
                        probability: probability, lane: max(current.lanes.count - 1, 0), locks: locks))
                current.noteLines.append(line.number)
                totalNotes += 1
            } else if isControllerStatement(fields) {
                guard let lane = current.lanes.last else { throw PatternError(line: line, reason: .controllerBeforeLane) }
                guard totalPoints < Pattern.maximumControllerPointCount else { throw PatternError(line: line, reason: .tooManyControllerPoints) }
                var point = try controllerStatement(fields, line: line, laneChannel: lane.channel)
                if point.start >= lane.length {
                    throw PatternError(line: line, field: fields.field(fields.field(0, is: "cc") ? 2 : 1), reason: .pointStartNotBeforeLaneLength)
                }
                point.lane = current.lanes.count - 1
                current.controllers.append(point)
                current.controllerLines.append(line.number)
                totalPoints += 1
            } else if fields.field(0, is: "seed") {
                guard version >= 2 else { throw PatternError(line: line, reason: .needsVersion2("seed")) }
                if hasPatternLines { throw PatternError(line: line, reason: .mustPrecedePatterns("seed")) }
                guard fields.count == 2 else {
                    throw PatternError(line: line, reason: .wrongFieldCount(statement: "seed", expected: "1 field (an integer 0-4294967295)", found: fields.count - 1))
                }
                if seedLine > 0 { throw PatternError(line: line, reason: .duplicateSeed(firstLine: seedLine)) }
                seed = UInt32(try integer(fields.field(1), name: "seed", range: 0...4_294_967_295, rangeText: "0-4294967295", line: line))
                seedLine = line.number
            } else if fields.field(0, is: "lane") {
                guard version >= 2 else { throw PatternError(line: line, reason: .needsVersion2("lane")) }
                let lane = try laneStatement(fields, line: line, version: version)
                guard current.lanes.count < Pattern.maximumLaneCount else {
                    throw PatternError(line: line, reason: hasPatternLines ? .tooManyLanesInPattern(QuotedText.quoted(current.name)) : .tooManyLanes)
                }
                if let first = current.lanes.firstIndex(where: { $0.name == lane.name }) {
                    throw PatternError(line: line, reason: .duplicateLane(name: QuotedText.quoted(lane.name), firstLine: current.laneLines[first]))
                }
                current.lanes.append(lane)
                current.laneLines.append(line.number)
            } else if fields.field(0, is: "switch") {
                if hasPatternLines { throw PatternError(line: line, reason: .mustPrecedePatterns("switch")) }
                if switchLine > 0 { throw PatternError(line: line, reason: .duplicateStatement("switch", firstLine: switchLine)) }
                switchRule = try switchStatement(fields, line: line)
                switchLine = line.number
            } else if fields.field(0, is: "trigger") {
                if hasPatternLines { throw PatternError(line: line, reason: .mustPrecedePatterns("trigger")) }
                try triggerStatement(fields, line: line, into: &triggers, lines: &triggerLines)
            } else if fields.field(0, is: "pattern") {
                if !hasPatternLines, let stray = current.laneLines.first {
                    throw PatternError(line: stray, reason: .laneOutsidePattern)
                }
                if !hasPatternLines, let stray = current.noteLines.first {
                    throw PatternError(line: stray, reason: .noteBeforeLane)
                }
                if hasPatternLines { try finishPattern(at: line) }
                guard finished.count < Arrangement.maximumPatternCount else { throw PatternError(line: line, reason: .tooManyPatterns) }
                let (name, program) = try patternStatement(fields, line: line)
                if let first = finished.first(where: { $0.name == name }) {
                    throw PatternError(line: line, reason: .duplicatePattern(name: QuotedText.quoted(name), firstLine: first.line))
                }
                hasPatternLines = true
                current = PatternDraft(name: name, line: line.number, program: program)
            } else if fields.field(0, is: "song") {
                if songLine > 0 { throw PatternError(line: line, reason: .duplicateStatement("song", firstLine: songLine)) }
                guard fields.count == 2 else {
                    throw PatternError(line: line, reason: .badSongEnd(fields.count > 2 ? fields.quoted(2) : ""))
                }
                if fields.field(1, is: "loop") { songEnd = .loop }
                else if fields.field(1, is: "stop") { songEnd = .stop }
                else if fields.field(1, is: "hold") { songEnd = .hold }
                else { throw PatternError(line: line, field: fields.field(1), reason: .badSongEnd(fields.quoted(1))) }
                if hasPatternLines { try finishPattern(at: line) } else if current.lanes.isEmpty {
                    throw PatternError(line: line, reason: .missingLane)
                }
                songLine = line.number
            } else if fields.field(0, is: "play") {
                guard songLine > 0 else { throw PatternError(line: line, reason: .playBeforeSong) }
                guard fields.count == 2 || fields.count == 3 else {
                    throw PatternError(line: line, reason: .wrongFieldCount(statement: "play", expected: "NAME [PASSES]", found: fields.count - 1))
                }
                guard entries.count < Song.maximumEntryCount else { throw PatternError(line: line, reason: .tooManySongEntries) }
                let name = Array(fields.field(1))
                let drafts = hasPatternLines ? finished : [current]
                guard let index = drafts.firstIndex(where: { $0.name == name }) else {
                    throw PatternError(line: line, field: fields.field(1), reason: .unknownPlayPattern(QuotedText.quoted(name)))
                }
                var passes: Int64 = 1
                if fields.count == 3 {
                    passes = try integer(fields.field(2), name: "passes", range: 1...Int64(Song.maximumPasses), rangeText: "1-9999", line: line)
                }
                entries.append(Song.Entry(pattern: index, passes: Int(passes)))
            } else {
                let reason: PatternError.Reason =
                    version == 3 ? .unknownStatementVersion3(fields.quoted(0))
                    : version == 2 ? .unknownStatementVersion2(fields.quoted(0)) : .unknownStatement(fields.quoted(0))
                throw PatternError(line: line, reason: reason)
            }
        }
        guard version > 0 else { throw PatternError(line: max(reader.lineNumber, 1), reason: .missingHeader) }
        let endLine = reader.lineNumber + 1
        if version == 1 {
            guard let length else { throw PatternError(line: endLine, reason: .missingLength) }
            for i in current.notes.indices where current.notes[i].start >= length {
                throw PatternError(line: current.noteLines[i], reason: .startNotBeforeLength)
            }
            return Arrangement(single: Pattern(length: length, notes: current.notes))
        }
        if songLine == 0 {
            if hasPatternLines {
                guard !current.lanes.isEmpty else { throw PatternError(line: endLine, reason: .patternWithoutLane(QuotedText.quoted(current.name))) }
                finished.append(current)
            }
        } else if entries.isEmpty {
            throw PatternError(line: endLine, reason: .songWithoutEntry)
        }
        if !hasPatternLines {
            guard !current.lanes.isEmpty else { throw PatternError(line: endLine, reason: .missingLane) }
            finished = [current]
        }
        var patterns: [NamedPattern] = []
        patterns.reserveCapacity(finished.count)
        var cycleNotes = 0
        var cycleEvents = 0
        for draft in finished {
            let (cycle, _) = LaneCycle.commonCycle(draft.lanes.map { $0.length })
            let pattern = Pattern(
                lanes: draft.lanes, notes: draft.notes, seed: seed, commonCycle: cycle ?? BeatRational(1), controllers: draft.controllers)
            if let problem = LaneCycle.check(pattern) {
                let problemLine =
                    problem.laneIndex >= 0 ? draft.laneLines[problem.laneIndex]
                    : problem.noteIndex >= 0 ? draft.noteLines[problem.noteIndex] : (hasPatternLines ? draft.line : endLine)
                throw PatternError(line: problemLine, reason: hasPatternLines ? inPattern(draft.name, problem.reason) : problem.reason)
            }
            cycleNotes += LaneCycle.cycleNoteCount(pattern)
            if cycleNotes > Arrangement.maximumTotalCycleNoteCount { throw PatternError(line: draft.line, reason: .tooManyTotalCycleNotes) }
            if !draft.controllers.isEmpty {
                if let (first, second) = ControllerCycle.firstDuplicate(draft.controllers) {
                    let p = draft.controllers[second]
                    throw PatternError(
                        line: draft.controllerLines[second],
                        reason: .duplicatePoint(
                            controller: p.kind.name, channel: p.channel, beat: PatternWriter.beatText(p.start), firstLine: draft.controllerLines[first]))
                }
                let events = ControllerCycle.eventCount(pattern)
                if events > ControllerCycle.maximumCycleEventCount {
                    let reason = PatternError.Reason.tooManyCycleControllerEvents(cycle: PatternWriter.beatText(pattern.length))
                    throw PatternError(line: hasPatternLines ? draft.line : endLine, reason: hasPatternLines ? inPattern(draft.name, reason) : reason)
                }
                cycleEvents += events
                if cycleEvents > ControllerCycle.maximumTotalCycleEventCount {
                    throw PatternError(line: draft.line, reason: .tooManyTotalCycleControllerEvents)
                }
            }
            patterns.append(NamedPattern(name: draft.name, pattern: pattern, program: draft.program))
        }
        var song: Song?
        if songLine > 0 {
            switch Song.length(of: entries, cycles: patterns.map { $0.pattern.length }) {
            case .beats: break
            case .tooLong: throw PatternError(line: songLine, reason: .songTooLong)
            case .denominatorTooLarge: throw PatternError(line: songLine, reason: .songDenominatorTooLarge)
            }
            song = Song(end: songEnd ?? .loop, entries: entries)
        }
        return Arrangement(
            version: version, patterns: patterns, hasPatternLines: hasPatternLines, switchRule: switchRule, triggers: triggers, song: song)
    }

    /// A version-2 cycle problem of one named pattern.
    static func inPattern(_ name: [UInt8], _ reason: PatternError.Reason) -> PatternError.Reason {
        let quoted = QuotedText.quoted(name)
        switch reason {
        case .cycleTooLong(let lane, let length): return .inPattern(name: quoted, problem: .cycleTooLong(lane: lane, length: length))
        case .tooManyCycleNotes(let cycle): return .inPattern(name: quoted, problem: .tooManyCycleNotes(cycle: cycle))
        case .swingTooFine: return .inPattern(name: quoted, problem: .swingTooFine)
        case .tooManyCycleControllerEvents(let cycle): return .inPattern(name: quoted, problem: .tooManyCycleControllerEvents(cycle: cycle))
        default: return reason
        }
    }

    /// `switch [at WHEN] [phase restart|keep] [notes cut|ring] [grace G]`.
    static func switchStatement(_ fields: FieldList, line: SourceLine) throws(PatternError) -> SwitchRule {
        var rule = SwitchRule()
        var seen = (at: false, phase: false, notes: false, grace: false)
        var i = 1
        /// `OPTION A|B` at field i: false for A, true for B.
        func choice(_ option: String, _ a: StaticString, _ b: StaticString, _ choices: String) throws(PatternError) -> Bool {
            guard i + 1 < fields.count else {
                throw PatternError(line: line, field: fields.field(i), reason: .badSwitchChoice(option: option, choices: choices, found: ""))
            }
            if fields.field(i + 1, is: a) { return false }
            if fields.field(i + 1, is: b) { return true }
            throw PatternError(line: line, field: fields.field(i + 1), reason: .badSwitchChoice(option: option, choices: choices, found: fields.quoted(i + 1)))
        }
        while i < fields.count {
            if fields.field(i, is: "at") {
                if seen.at { throw PatternError(line: line, field: fields.field(i), reason: .duplicateSwitchOption("at")) }
                seen.at = true
                guard i + 1 < fields.count else { throw PatternError(line: line, field: fields.field(i), reason: .badSwitchGrid("")) }
                if fields.field(i + 1, is: "now") { rule.at = .now }
                else if fields.field(i + 1, is: "beat") { rule.at = .beat }
                else if fields.field(i + 1, is: "bar") { rule.at = .bar }
                else if fields.field(i + 1, is: "end") { rule.at = .end }
                else if fields.field(i + 1, is: "bars") {
                    guard i + 2 < fields.count else { throw PatternError(line: line, field: fields.field(i + 1), reason: .badSwitchGrid("bars")) }
                    rule.at = .bars(Int(try integer(fields.field(i + 2), name: "bars", range: 1...64, rangeText: "1-64", line: line)))
                    i += 1
                } else {
                    throw PatternError(line: line, field: fields.field(i + 1), reason: .badSwitchGrid(fields.quoted(i + 1)))
                }
                i += 2
            } else if fields.field(i, is: "phase") {
                if seen.phase { throw PatternError(line: line, field: fields.field(i), reason: .duplicateSwitchOption("phase")) }
                seen.phase = true
                rule.keepsPhase = try choice("phase", "restart", "keep", "restart or keep")
                i += 2
            } else if fields.field(i, is: "notes") {
                if seen.notes { throw PatternError(line: line, field: fields.field(i), reason: .duplicateSwitchOption("notes")) }
                seen.notes = true
                rule.notesRing = try choice("notes", "cut", "ring", "cut or ring")
                i += 2
            } else if fields.field(i, is: "grace") {
                if seen.grace { throw PatternError(line: line, field: fields.field(i), reason: .duplicateSwitchOption("grace")) }
                seen.grace = true
                guard i + 1 < fields.count else {
                    throw PatternError(line: line, reason: .wrongFieldCount(statement: "switch", expected: "[at WHEN] [phase restart|keep] [notes cut|ring] [grace G]", found: fields.count - 1))
                }
                rule.grace = try beatValue(fields.field(i + 1), name: "grace", line: line)
                i += 2
            } else {
                throw PatternError(line: line, field: fields.field(i), reason: .unknownSwitchOption(fields.quoted(i)))
            }
        }
        return rule
    }

    /// `trigger program [in C]`, `trigger note KEY [in C]`, `trigger cc N [in C]`.
    static func triggerStatement(
        _ fields: FieldList, line: SourceLine, into triggers: inout PatternTriggers, lines: inout (program: Int, note: Int, cc: Int)
    ) throws(PatternError) {
        guard fields.count >= 2 else { throw PatternError(line: line, reason: .badTrigger("")) }
        var i = 2
        func channel() throws(PatternError) -> UInt8 {
            guard i < fields.count else { return 0 }
            guard fields.field(i, is: "in"), i + 2 == fields.count else { throw PatternError(line: line, field: fields.field(i), reason: .badTrigger(fields.quoted(i))) }
            return UInt8(try integer(fields.field(i + 1), name: "input channel", range: 1...16, rangeText: "1-16", line: line))
        }
        if fields.field(1, is: "program") {
            if lines.program > 0 { throw PatternError(line: line, reason: .duplicateTrigger("program", firstLine: lines.program)) }
            triggers.programChannel = try channel()
            lines.program = line.number
        } else if fields.field(1, is: "note") {
            if lines.note > 0 { throw PatternError(line: line, reason: .duplicateTrigger("note", firstLine: lines.note)) }
            guard fields.count >= 3 else { throw PatternError(line: line, field: fields.field(1), reason: .badTrigger("note")) }
            triggers.noteKey = UInt8(try key(fields.field(2), name: "key", line: line))
            i = 3
            triggers.noteChannel = try channel()
            lines.note = line.number
        } else if fields.field(1, is: "cc") {
            if lines.cc > 0 { throw PatternError(line: line, reason: .duplicateTrigger("cc", firstLine: lines.cc)) }
            guard fields.count >= 3 else { throw PatternError(line: line, field: fields.field(1), reason: .badTrigger("cc")) }
            triggers.controller = UInt8(try integer(fields.field(2), name: "controller", range: 0...119, rangeText: "0-119", line: line))
            i = 3
            triggers.controllerChannel = try channel()
            lines.cc = line.number
        } else {
            throw PatternError(line: line, field: fields.field(1), reason: .badTrigger(fields.quoted(1)))
        }
    }

    /// `pattern NAME [program P [bank MSB [LSB]]] [channel C]`.
    static func patternStatement(_ fields: FieldList, line: SourceLine) throws(PatternError) -> ([UInt8], PatternProgram?) {
        guard fields.count >= 2 else {
            throw PatternError(
                line: line, reason: .wrongFieldCount(statement: "pattern", expected: "NAME [program P [bank MSB [LSB]]] [channel C]", found: 0))
        }
        let name = Array(fields.field(1))
        guard isName(name) else { throw PatternError(line: line, field: fields.field(1), reason: .badPatternName(QuotedText.quoted(name))) }
        var program: PatternProgram?
        var channel: UInt8?
        var i = 2
        while i < fields.count {
            if fields.field(i, is: "program") {
                if program != nil { throw PatternError(line: line, field: fields.field(i), reason: .duplicatePatternOption("program")) }
                guard i + 1 < fields.count else { throw PatternError(line: line, field: fields.field(i), reason: .outOfRange(field: "program", range: "0-127", found: "")) }
                var p = PatternProgram(program: UInt8(try integer(fields.field(i + 1), name: "program", range: 0...127, rangeText: "0-127", line: line)))
                i += 2
                if i < fields.count, fields.field(i, is: "bank") {
                    guard i + 1 < fields.count else { throw PatternError(line: line, field: fields.field(i), reason: .outOfRange(field: "bank", range: "0-127", found: "")) }
                    p.bankMSB = UInt8(try integer(fields.field(i + 1), name: "bank", range: 0...127, rangeText: "0-127", line: line))
                    i += 2
                    if i < fields.count, let first = fields.field(i).first, first >= 0x30, first <= 0x39 {
                        p.bankLSB = UInt8(try integer(fields.field(i), name: "bank", range: 0...127, rangeText: "0-127", line: line))
                        i += 1
                    }
                }
                program = p
            } else if fields.field(i, is: "channel") {
                if channel != nil { throw PatternError(line: line, field: fields.field(i), reason: .duplicatePatternOption("channel")) }
                guard i + 1 < fields.count else { throw PatternError(line: line, field: fields.field(i), reason: .outOfRange(field: "channel", range: "1-16", found: "")) }
                channel = UInt8(try integer(fields.field(i + 1), name: "channel", range: 1...16, rangeText: "1-16", line: line))
                i += 2
            } else {
                throw PatternError(line: line, field: fields.field(i), reason: .unknownPatternOption(fields.quoted(i)))
            }
        }
        // `channel` names the program change's channel; without `program` it has nothing to say.
        if let channel { program?.channel = channel }
        return (name, program)
    }

    /// Whether `name` is 1-32 of `A-Z a-z 0-9 - _` (lane and pattern names).
    static func isName(_ name: [UInt8]) -> Bool {
        !name.isEmpty && name.count <= 32 && name.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b | 0x20 >= 0x61 && b | 0x20 <= 0x7A) || b == UInt8(ascii: "-") || b == UInt8(ascii: "_")
        }
    }

    /// Whether the statement is a controller point: `cc`, `bend`, `pressure`, `program`.
    static func isControllerStatement(_ fields: FieldList) -> Bool {
        fields.field(0, is: "cc") || fields.field(0, is: "bend") || fields.field(0, is: "pressure") || fields.field(0, is: "program")
    }

    /// Whether a note's field is meant as a lock: `cc` then a digit.
    static func isLockField(_ field: UnsafeBufferPointer<UInt8>) -> Bool {
        field.count > 2 && field[0] == UInt8(ascii: "c") && field[1] == UInt8(ascii: "c") && field.contains(UInt8(ascii: "="))
    }

    /// A lock `ccN=V` (N 0-119, V 0-127).
    static func lockField(_ field: UnsafeBufferPointer<UInt8>, line: SourceLine) throws(PatternError) -> ControllerLock {
        func number(_ part: Slice<UnsafeBufferPointer<UInt8>>, max: Int) -> Int? {
            guard !part.isEmpty, part.count <= 3, part.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
            var v = 0
            for d in part { v = v * 10 + Int(d - 0x30) }
            return v <= max ? v : nil
        }
        let equals = field.firstIndex(of: UInt8(ascii: "="))!
        guard let n = number(field[2..<equals], max: 119), let v = number(field[(equals + 1)...], max: 127) else {
            throw PatternError(line: line, field: field, reason: .badLock(QuotedText.quoted(Array(field))))
        }
        return ControllerLock(controller: UInt8(n), value: UInt8(v))
    }

    /// `cc N AT VALUE [CHANNEL] [ramp]`, `bend AT VALUE [CHANNEL] [ramp]`,
    /// `pressure AT VALUE [CHANNEL] [ramp]`, `program AT VALUE [CHANNEL]`;
    /// the point's lane is left for the caller.
    static func controllerStatement(_ fields: FieldList, line: SourceLine, laneChannel: UInt8) throws(PatternError) -> ControllerPoint {
        var count = fields.count
        var ramp = false
        if count > 1, fields.field(count - 1, is: "ramp") {
            ramp = true
            count -= 1
        }
        let isCC = fields.field(0, is: "cc")
        let isBend = fields.field(0, is: "bend")
        let isProgram = fields.field(0, is: "program")
        let first = isCC ? 2 : 1
        guard count == first + 2 || count == first + 3 else {
            let word = fields.quoted(0)
            let expected = isCC ? "N AT VALUE [CHANNEL] [ramp]" : isProgram ? "AT VALUE [CHANNEL]" : "AT VALUE [CHANNEL] [ramp]"
            throw PatternError(line: line, reason: .wrongFieldCount(statement: word, expected: expected, found: fields.count - 1))
        }
        if isProgram && ramp { throw PatternError(line: line, field: fields.field(fields.count - 1), reason: .programRamp) }
        var kind = ControllerKind.pressure
        if isCC {
            let n = try integer(fields.field(1), name: "controller", range: 0...127, rangeText: "0-119", line: line)
            guard n <= 119 else { throw PatternError(line: line, field: fields.field(1), reason: .controllerOutOfRange(found: fields.quoted(1))) }
            kind = .control(UInt8(n))
        } else if isBend {
            kind = .bend
        } else if isProgram {
            kind = .program
        }
        let start = try beatValue(fields.field(first), name: "start", line: line)
        let value: Int64
        if isBend {
            let field = fields.field(first + 1)
            let negative = field.first == UInt8(ascii: "-")
            let magnitude = try integer(
                negative ? UnsafeBufferPointer(rebasing: field[1...]) : field, name: "bend value", range: 0...10_000_000_000,
                rangeText: "-8192 to 8191", line: line)
            value = negative ? -magnitude : magnitude
            guard value >= -8192, value <= 8191 else {
                throw PatternError(line: line, field: field, reason: .outOfRange(field: "bend value", range: "-8192 to 8191", found: fields.quoted(first + 1)))
            }
        } else {
            let name = isCC ? "controller value" : isProgram ? "program value" : "pressure value"
            value = try integer(fields.field(first + 1), name: name, range: 0...127, rangeText: "0-127", line: line)
        }
        var channel = laneChannel
        if count == first + 3 {
            channel = UInt8(try integer(fields.field(first + 2), name: "channel", range: 1...16, rangeText: "1-16", line: line))
        }
        return ControllerPoint(start: start, kind: kind, value: Int16(value), channel: channel, ramp: ramp)
    }

    /// `lane NAME length L [channel C] [swing R G] [follow ROOT [in C]] [ramp-step S]`.
    static func laneStatement(_ fields: FieldList, line: SourceLine, version: Int) throws(PatternError) -> PatternLane {
        guard fields.count >= 4, fields.field(2, is: "length") else {
            throw PatternError(
                line: line,
                reason: .wrongFieldCount(
                    statement: "lane", expected: "NAME length L [channel C] [swing R G] [follow ROOT [in C]]", found: fields.count - 1))
        }
        let name = Array(fields.field(1))
        guard isName(name) else {
            throw PatternError(line: line, field: fields.field(1), reason: .badLaneName(QuotedText.quoted(name)))
        }
        let length = try beatValue(fields.field(3), name: "length", line: line)
        guard length > .zero else { throw PatternError(line: line, field: fields.field(3), reason: .lengthNotPositive) }
        var lane = PatternLane(name: name, length: length)
        var seenChannel = false
        var seenSwing = false
        var seenFollow = false
        var seenRampStep = false
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
            } else if fields.field(i, is: "ramp-step") {
                guard version >= 3 else { throw PatternError(line: line, field: fields.field(i), reason: .needsVersion3("ramp-step")) }
                if seenRampStep { throw PatternError(line: line, field: fields.field(i), reason: .duplicateLaneOption("ramp-step")) }
                guard i + 1 < fields.count else { throw missing() }
                let step = try beatValue(fields.field(i + 1), name: "ramp-step", line: line)
                guard step > .zero else { throw PatternError(line: line, field: fields.field(i + 1), reason: .rampStepNotPositive) }
                lane.rampStep = step
                seenRampStep = true
                i += 2
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
