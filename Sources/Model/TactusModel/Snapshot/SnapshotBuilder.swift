import TactusEngine

/// The one builder of the engine's snapshot: a valid `Pattern` turned into the
/// sorted, ranked arrays the renderer reads, then assembled by the engine.
extension PatternSnapshot {
    /// Builds a snapshot of `pattern`; `text` is the text to report when
    /// asked for the pattern (state save, `patch:Get`), the writer's output if nil;
    /// `source` names where it came from (a file path), if anywhere.
    /// The pattern must be valid (`Pattern.validationError() == nil`).
    /// A version-3 `text` of several patterns, whose first is `pattern`,
    /// gives the snapshot of all of them (`make(arrangement:)`), so that
    /// every surface that holds a pattern and its text plays the text whole.
    public static func make(_ pattern: Pattern, text: [UInt8]? = nil, source: [UInt8]? = nil, tag: UInt64 = 0) -> PatternSnapshot {
        if let text, PatternParser.declaresVersion3(text), let arrangement = try? PatternParser.arrangement(bytes: text),
            arrangement.patterns[0].pattern == pattern
        {
            return make(arrangement: arrangement, text: text, source: source, tag: tag)
        }
        return make(single: pattern, text: text, source: source, tag: tag)
    }

    /// The snapshot of one pattern (version 1 or 2, or pattern 1 of a text).
    static func make(single pattern: Pattern, text: [UInt8]?, source: [UInt8]?, tag: UInt64) -> PatternSnapshot {
        // Version 2: one loop of the lanes' common cycle (contract §7.1, LaneCycle).
        var problem: LaneCycle.Problem?
        let cycleNotes = LaneCycle.expand(pattern, problem: &problem)
        precondition(problem == nil, "PatternSnapshot.make needs a valid pattern")
        let n = cycleNotes.count
        // By start, then by the written note's line (§5 rule 5; copies of one note never share a start).
        let order = cycleNotes.indices.sorted { a, b in
            let sa = cycleNotes[a].start
            let sb = cycleNotes[b].start
            return sa != sb ? sa < sb : cycleNotes[a].writtenIndex < cycleNotes[b].writtenIndex
        }
        let ends = cycleNotes.map { ExactBeatSum($0.start, $0.duration) }
        // Exact ranks of the ends: the merge rule of §5 compares them.
        let byEnd = cycleNotes.indices.sorted { ends[$0] < ends[$1] }
        var rank = [Int32](repeating: 0, count: n)
        var r: Int32 = 0
        for (i, index) in byEnd.enumerated() {
            if i > 0 && ends[byEnd[i - 1]] < ends[index] { r += 1 }
            rank[index] = r
        }
        var notes = [ScheduledNote]()
        notes.reserveCapacity(n)
        var exactEnds = [ExactBeatSum]()
        exactEnds.reserveCapacity(n)
        var groupFirst = 0
        var hasChoices = false
        for (i, index) in order.enumerated() {
            let note = cycleNotes[index]
            if i > 0 && cycleNotes[order[i - 1]].start != note.start { groupFirst = i }
            let start = note.start.position
            if note.chanceLimit != UInt64.max { hasChoices = true }
            notes.append(ScheduledNote(
                start: start, end: ends[index].position, endRank: rank[index],
                groupFirst: Int32(groupFirst), groupNext: Int32(n),
                slot: UInt16(note.channel - 1) * 128 + UInt16(note.key), velocity: note.velocity,
                lane: UInt8(note.lane), passInCycle: note.passInCycle, passesPerCycle: note.passesPerCycle,
                chanceLimit: note.chanceLimit, chanceKey: note.chanceKey))
            exactEnds.append(ends[index])
        }
        let laneList = pattern.lanes
        var lanes = [ScheduledLane]()
        lanes.reserveCapacity(laneList.count)
        for lane in laneList {
            if lane.followRoot != nil { hasChoices = true }
            lanes.append(ScheduledLane(followRoot: lane.followRoot.map { Int16($0) } ?? -1, followChannel: lane.followChannel))
        }
        var next = n
        for i in stride(from: n - 1, through: 0, by: -1) {
            notes[i].groupNext = Int32(next)
            if notes[i].groupFirst == Int32(i) { next = i }
        }
        let bytes = text ?? Array(PatternWriter.text(for: pattern).utf8)
        return assemble(
            notes: notes, exactEnds: exactEnds, lanes: lanes, hasChoices: hasChoices, length: pattern.length,
            text: bytes, source: source, tag: tag)
    }

    /// Builds a snapshot of every pattern of `arrangement` (§9): pattern 1 is
    /// the snapshot itself, which owns the others and holds the text's
    /// switch, triggers and song. `text` as in `make(_:text:source:tag:)`
    /// (the writer's text of the whole arrangement if nil). The arrangement
    /// must be valid (as the parser returns it). Off the audio thread.
    public static func make(arrangement: Arrangement, text: [UInt8]? = nil, source: [UInt8]? = nil, tag: UInt64 = 0) -> PatternSnapshot {
        let bytes = text ?? Array(PatternWriter.text(for: arrangement).utf8)
        let first = make(single: arrangement.patterns[0].pattern, text: bytes, source: source, tag: tag)
        guard arrangement.version == 3 || arrangement.needsVersion3 else { return first }
        let others = arrangement.patterns.dropFirst().map { make(single: $0.pattern, text: [], source: nil, tag: tag) }
        let info = arrangement.patterns.map { p in
            ScenePart(
                nameHash: TextHash.of(p.name), program: p.program.map { Int16($0.program) } ?? -1,
                bankMSB: p.program?.bankMSB.map { Int16($0) } ?? -1, bankLSB: p.program?.bankLSB.map { Int16($0) } ?? -1,
                channelIndex: (p.program?.channel ?? 1) - 1)
        }
        let rule = arrangement.switchRule
        let grid = rule.at.engineGrid
        let t = arrangement.triggers
        let triggers = TriggerSettings(
            programChannel: t.programChannel.map { Int8($0) } ?? -1, noteKey: t.noteKey.map { Int16($0) } ?? -1,
            noteChannel: t.noteChannel, controller: t.controller.map { Int16($0) } ?? -1, controllerChannel: t.controllerChannel)
        var steps: [SongStep] = []
        var length = BeatRational.zero
        var ending = SongEnding.loop
        if let song = arrangement.song {
            let cycles = arrangement.patterns.map { $0.pattern.length }
            let starts = Song.starts(of: song.entries, cycles: cycles)
            steps = zip(song.entries, starts).map { SongStep(part: Int32($0.pattern), start: $1) }
            length = arrangement.songLength ?? .zero
            switch song.end {
            case .loop: ending = .loop
            case .stop: ending = .stop
            case .hold: ending = .hold
            }
        }
        first.attachScenes(
            parts: others, info: info,
            switchSettings: SwitchSettings(grid: grid, keepsPhase: rule.keepsPhase, notesRing: rule.notesRing, grace: rule.grace.position),
            triggers: triggers, song: steps, songLength: length, songEnding: ending)
        return first
    }
}

extension SwitchGrid {
    /// The engine's form of the grid (`SwitchSettings.Grid`).
    public var engineGrid: SwitchSettings.Grid {
        switch self {
        case .now: return .now
        case .beat: return .beat
        case .bar: return .bar
        case .bars(let n): return .bars(Int64(n))
        case .end: return .end
        }
    }
}
