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
        let snapshot = assemble(
            notes: notes, exactEnds: exactEnds, lanes: lanes, hasChoices: hasChoices, length: pattern.length,
            text: bytes, source: source, tag: tag)
        if pattern.usesControllers {
            attachControllers(of: pattern, to: snapshot, noteOrder: order.map { cycleNotes[$0].writtenIndex })
        }
        return snapshot
    }

    /// §10: the cycle's controller events, one chase group per lane and
    /// controller, and each note's locks (`noteOrder`: the written note of
    /// each snapshot note, in start order). Off the audio thread.
    static func attachControllers(of pattern: Pattern, to snapshot: PatternSnapshot, noteOrder: [Int]) {
        let events = ControllerCycle.events(pattern) ?? []
        var controls: [ScheduledControl] = []
        controls.reserveCapacity(events.count)
        for e in events {
            var status: UInt8 = 0xB0
            var data1: UInt8 = 0
            var data2: UInt8 = 0
            var value = UInt16(max(e.value, 0))
            var index = 0
            switch e.kind {
            case .control(let n):
                data1 = n
                data2 = UInt8(e.value)
                index = Int(n)
            case .bend:
                value = UInt16(Int(e.value) + 8192)
                status = 0xE0
                data1 = UInt8(value & 127)
                data2 = UInt8(value >> 7)
                index = ControllerMemory.bendIndex
            case .pressure:
                status = 0xD0
                data1 = UInt8(e.value)
                index = ControllerMemory.pressureIndex
            case .program:
                status = 0xC0
                data1 = UInt8(e.value)
                index = ControllerMemory.programIndex
            }
            controls.append(ScheduledControl(
                beat: e.beat.position, status: status | (e.channel - 1), data1: data1, data2: data2, lane: UInt8(e.lane),
                memory: UInt16(ControllerMemory.slot(channel: e.channel, index: index)), value: value))
        }
        // Chase groups: the events of each lane and controller, in beat order;
        // the groups in §10.6's order (program changes and bank selects first).
        let byController = controls.indices.sorted { a, b in
            let x = controls[a]
            let y = controls[b]
            let kx = ControllerCycle.programOrder(events[a])
            let ky = ControllerCycle.programOrder(events[b])
            if kx != ky { return kx < ky }
            if x.lane != y.lane { return x.lane < y.lane }
            if x.memory != y.memory { return x.memory < y.memory }
            return a < b
        }
        var groups: [ControlChaseGroup] = []
        for (n, i) in byController.enumerated() {
            if n == 0 || controls[byController[n - 1]].lane != controls[i].lane || controls[byController[n - 1]].memory != controls[i].memory {
                groups.append(ControlChaseGroup(lane: controls[i].lane, first: Int32(n), count: 0))
            }
            groups[groups.count - 1].count += 1
        }
        var noteLocks: [UInt32] = []
        var locks: [UInt16] = []
        if pattern.notes.contains(where: { !$0.locks.isEmpty }) {
            // One list per written note; the copies of a note in the cycle share it.
            var ranges: [UInt32] = []
            ranges.reserveCapacity(pattern.notes.count)
            for note in pattern.notes {
                ranges.append(UInt32(locks.count) << 8 | UInt32(note.locks.count))
                for lock in note.locks { locks.append(UInt16(lock.controller) << 8 | UInt16(lock.value)) }
            }
            noteLocks = noteOrder.map { ranges[$0] }
        }
        snapshot.attachControls(controls, chaseGroups: groups, chaseEntries: byController.map { Int32($0) }, noteLocks: noteLocks, locks: locks)
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
