/// One note as the audio thread reads it: exact positions pre-split, its
/// output slot, and the precomputed orders the renderer needs.
public struct ScheduledNote: Sendable, BitwiseCopyable {
    /// Start within the loop.
    public var start: BeatPosition
    /// Start + duration (may lie beyond the loop).
    public var end: BeatPosition
    /// Rank of `end` among all notes' ends, computed exactly (ties share a rank).
    public var endRank: Int32
    /// Index of the first note with the same start (notes are sorted by start).
    public var groupFirst: Int32
    /// Index of the first note with a later start (or the note count).
    public var groupNext: Int32
    /// `(channel - 1) * 128 + key`: one of the 2048 note slots of the tracker.
    public var slot: UInt16
    public var velocity: UInt8
    /// Index of its lane (text order; 0 in version 1).
    public var lane: UInt8
    /// Which pass of its lane within one cycle of the snapshot's loop.
    public var passInCycle: Int64
    /// Passes its lane makes in one cycle (pass `k` of the cycle is lane pass `k × this + passInCycle`).
    public var passesPerCycle: Int64
    /// §7.4: plays when the pass's hash is at most this (`UInt64.max`: always).
    public var chanceLimit: UInt64
    /// §7.4: the hash of everything but the pass.
    public var chanceKey: UInt64

    @_noLocks
    public init(
        start: BeatPosition, end: BeatPosition, endRank: Int32, groupFirst: Int32, groupNext: Int32, slot: UInt16, velocity: UInt8,
        lane: UInt8, passInCycle: Int64, passesPerCycle: Int64, chanceLimit: UInt64, chanceKey: UInt64
    ) {
        self.start = start
        self.end = end
        self.endRank = endRank
        self.groupFirst = groupFirst
        self.groupNext = groupNext
        self.slot = slot
        self.velocity = velocity
        self.lane = lane
        self.passInCycle = passInCycle
        self.passesPerCycle = passesPerCycle
        self.chanceLimit = chanceLimit
        self.chanceKey = chanceKey
    }
}

/// What the renderer needs of a lane: its key-follow settings (§7.5).
public struct ScheduledLane: Sendable, BitwiseCopyable {
    /// The written root, or -1 when the lane does not follow.
    public var followRoot: Int16
    /// The input channel 1-16 listened to, 0 for any.
    public var followChannel: UInt8

    @_noLocks
    public init(followRoot: Int16, followChannel: UInt8) {
        self.followRoot = followRoot
        self.followChannel = followChannel
    }
}

/// The storage behind a `PatternSnapshot`.
struct SnapshotStorage {
    var noteCount: Int
    var lengthNumerator: Int64
    var lengthDenominator: Int64
    var lengthBeats: Double
    var notes: UnsafeMutablePointer<ScheduledNote>
    var laneCount: Int
    var lanes: UnsafeMutablePointer<ScheduledLane>
    /// Whether any note has a chance below 1 or any lane follows (cheap tests skip the rest).
    var hasChoices: Bool
    /// Each note's end, exact, in the order of `notes` (read only by the
    /// same-frame merge across loop passes, so kept apart from the hot array).
    var exactEnds: UnsafeMutablePointer<ExactBeatSum>
    var text: UnsafeMutablePointer<UInt8>
    var textCount: Int
    /// `TextHash.of(text)`, computed when built (the editor names texts by it).
    var textHash: UInt64
    /// Where the text came from (a file path), if anywhere; `sourceCount` < 0 when none.
    var source: UnsafeMutablePointer<UInt8>
    var sourceCount: Int
    /// A number its maker gives it, to name it in logs (an address can be reused once freed).
    var tag: UInt64
    /// §9: the patterns of the text. Part 0 is the snapshot itself; `parts[i - 1]` is part `i`.
    var partCount: Int = 1
    var parts: UnsafeMutablePointer<PatternSnapshot>? = nil
    /// Each part's name hash and program, `partCount` of them (nil: one part without a program).
    var partInfo: UnsafeMutablePointer<ScenePart>? = nil
    var switchSettings = SwitchSettings()
    var triggers = TriggerSettings()
    /// §9.5: the song's entries (nil without a song), their total length and what follows.
    var songSteps: UnsafeMutablePointer<SongStep>? = nil
    var songCount: Int = 0
    var songLength: BeatRational = .zero
    var songEnding: SongEnding = .loop
    /// §10: the controller events of the cycle in beat order (then text order).
    var controlCount: Int = 0
    var controls: UnsafeMutablePointer<ScheduledControl>? = nil
    /// §10.4: one group per lane and controller; `chaseEntries` index `controls`.
    var chaseGroupCount: Int = 0
    var chaseGroups: UnsafeMutablePointer<ControlChaseGroup>? = nil
    var chaseEntries: UnsafeMutablePointer<Int32>? = nil
    /// §10.5: per note (start order), `first << 8 | count` into `locks`; nil without locks.
    var noteLocks: UnsafeMutablePointer<UInt32>? = nil
    /// `controller << 8 | value`.
    var locks: UnsafeMutablePointer<UInt16>? = nil
}

/// An immutable, audio-thread-ready form of a pattern.
///
/// Built off the audio thread (TactusModel's `make` sorts, O(n log n), and
/// `assemble` allocates), then
/// handed to the audio thread by value: a snapshot is one pointer, so passing
/// it through a lock-free queue or storing it costs no reference counting.
/// Notes are sorted by start, then by their line in the text, so the onsets in
/// any beat window are found in O(log n + k), however many times the loop
/// wraps inside the window.
///
/// Ownership is by convention: exactly one party owns a snapshot at a time
/// (the builder, a queue, the renderer, the reclaimer), and only the owner may
/// `destroy()` it, which must not happen on the audio thread.
public struct PatternSnapshot: @unchecked Sendable, BitwiseCopyable, Equatable {
    let storage: UnsafeMutablePointer<SnapshotStorage>

    /// The most lanes a pattern may have (the renderer keeps one transposition per lane).
    public static var maximumLaneCount: Int { @_noLocks get { 64 } }

    /// Assembles a snapshot from what the builder computed (TactusModel's
    /// `PatternSnapshot.make(_:text:source:tag:)`, the one builder): `notes` in
    /// start order with `exactEnds` their ends in the same order, `lanes` in text
    /// order, `text` to report when asked for the pattern, `source` where it came
    /// from (a file path), if anywhere. Copies them into one allocation per
    /// array. Construction time only: allocates, never on the audio thread.
    public static func assemble(
        notes noteList: [ScheduledNote], exactEnds endList: [ExactBeatSum], lanes laneList: [ScheduledLane],
        hasChoices: Bool, length: BeatRational, text bytes: [UInt8], source: [UInt8]?, tag: UInt64
    ) -> PatternSnapshot {
        let n = noteList.count
        let notes = UnsafeMutablePointer<ScheduledNote>.allocate(capacity: max(n, 1))
        let exactEnds = UnsafeMutablePointer<ExactBeatSum>.allocate(capacity: max(n, 1))
        for i in 0..<n {
            notes[i] = noteList[i]
            (exactEnds + i).initialize(to: endList[i])
        }
        let lanes = UnsafeMutablePointer<ScheduledLane>.allocate(capacity: laneList.count)
        for (i, lane) in laneList.enumerated() { lanes[i] = lane }
        let textStorage = UnsafeMutablePointer<UInt8>.allocate(capacity: max(bytes.count, 1))
        bytes.withUnsafeBufferPointer { textStorage.initialize(from: $0.baseAddress!, count: bytes.count) }
        let sourceStorage = UnsafeMutablePointer<UInt8>.allocate(capacity: max(source?.count ?? 0, 1))
        if let source {
            source.withUnsafeBufferPointer { if let b = $0.baseAddress { sourceStorage.initialize(from: b, count: source.count) } }
        }
        let storage = UnsafeMutablePointer<SnapshotStorage>.allocate(capacity: 1)
        storage.initialize(to: SnapshotStorage(
            noteCount: n, lengthNumerator: length.numerator,
            lengthDenominator: length.denominator, lengthBeats: length.approximateValue,
            notes: notes, laneCount: laneList.count, lanes: lanes, hasChoices: hasChoices, exactEnds: exactEnds, text: textStorage, textCount: bytes.count,
            textHash: TextHash.of(bytes), source: sourceStorage,
            sourceCount: source?.count ?? -1, tag: tag))
        return PatternSnapshot(storage: storage)
    }

    /// Gives a snapshot (part 0, pattern 1) the other patterns of its text,
    /// which it then owns, and the text's switch, triggers and song (§9).
    /// Construction time only (allocates), before the snapshot is handed on.
    public func attachScenes(
        parts others: [PatternSnapshot], info: [ScenePart], switchSettings: SwitchSettings, triggers: TriggerSettings,
        song: [SongStep], songLength: BeatRational, songEnding: SongEnding
    ) {
        precondition(info.count == others.count + 1, "one ScenePart per pattern")
        let parts = UnsafeMutablePointer<PatternSnapshot>.allocate(capacity: max(others.count, 1))
        for (i, part) in others.enumerated() { (parts + i).initialize(to: part) }
        let partInfo = UnsafeMutablePointer<ScenePart>.allocate(capacity: info.count)
        for (i, part) in info.enumerated() { partInfo[i] = part }
        storage.pointee.partCount = info.count
        storage.pointee.parts = parts
        storage.pointee.partInfo = partInfo
        storage.pointee.switchSettings = switchSettings
        storage.pointee.triggers = triggers
        if !song.isEmpty {
            let steps = UnsafeMutablePointer<SongStep>.allocate(capacity: song.count)
            for (i, step) in song.enumerated() { steps[i] = step }
            storage.pointee.songSteps = steps
            storage.pointee.songCount = song.count
            storage.pointee.songLength = songLength
            storage.pointee.songEnding = songEnding
        }
    }

    /// Gives the snapshot its controller events (§10), its chase groups and
    /// its notes' locks (`noteLocks` one per note in start order, empty
    /// without locks). Construction time only (allocates).
    public func attachControls(
        _ list: [ScheduledControl], chaseGroups groups: [ControlChaseGroup], chaseEntries entries: [Int32], noteLocks: [UInt32], locks: [UInt16]
    ) {
        func copy<T>(_ a: [T]) -> UnsafeMutablePointer<T>? {
            guard !a.isEmpty else { return nil }
            let p = UnsafeMutablePointer<T>.allocate(capacity: a.count)
            for (i, x) in a.enumerated() { (p + i).initialize(to: x) }
            return p
        }
        storage.pointee.controlCount = list.count
        storage.pointee.controls = copy(list)
        storage.pointee.chaseGroupCount = groups.count
        storage.pointee.chaseGroups = copy(groups)
        storage.pointee.chaseEntries = copy(entries)
        storage.pointee.noteLocks = copy(noteLocks)
        storage.pointee.locks = copy(locks)
    }

    /// §10: the number of controller events in one cycle.
    public var controlCount: Int { @_noLocks get { storage.pointee.controlCount } }

    /// §10: event `index` in beat order.
    @_noLocks @inline(__always)
    public func control(_ index: Int) -> ScheduledControl { storage.pointee.controls![index] }

    /// §10.4: the number of chase groups (lane and controller pairs).
    public var chaseGroupCount: Int { @_noLocks get { storage.pointee.chaseGroupCount } }

    @_noLocks @inline(__always)
    public func chaseGroup(_ index: Int) -> ControlChaseGroup { storage.pointee.chaseGroups![index] }

    /// Entry `index` of the chase groups: an index into the controls.
    @_noLocks @inline(__always)
    public func chaseEntry(_ index: Int) -> Int { Int(storage.pointee.chaseEntries![index]) }

    /// §10.5: whether some note has a lock.
    public var hasLocks: Bool { @_noLocks get { storage.pointee.noteLocks != nil } }

    /// §10.5: note `index`'s locks, `first << 8 | count` into `lock(_:)`.
    @_noLocks @inline(__always)
    public func lockRange(ofNote index: Int) -> UInt32 { storage.pointee.noteLocks![index] }

    /// §10.5: lock `index`, `controller << 8 | value`.
    @_noLocks @inline(__always)
    public func lock(_ index: Int) -> UInt16 { storage.pointee.locks![index] }

    /// The first control whose beat is at or after `phase` beats into the
    /// cycle, comparing split values as onsets do. O(log n).
    @_noLocks
    public func firstControl(atOrAfterPhase phase: BeatPosition) -> Int {
        var low = 0
        var high = storage.pointee.controlCount
        guard let controls = storage.pointee.controls else { return 0 }
        while low < high {
            let mid = (low + high) >> 1
            if controls[mid].beat < phase { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// §9: the number of patterns (1 for a text of version 1 or 2).
    public var partCount: Int { @_noLocks get { storage.pointee.partCount } }

    /// §9: pattern `index + 1` (`0 ..< partCount`): the snapshot itself for 0.
    @_noLocks
    public func part(_ index: Int) -> PatternSnapshot {
        index == 0 ? self : storage.pointee.parts![index - 1]
    }

    /// §9: pattern `index + 1`'s name hash and program.
    @_noLocks
    public func partInfo(_ index: Int) -> ScenePart {
        if let info = storage.pointee.partInfo { return info[index] }
        return ScenePart(nameHash: 0, program: -1, bankMSB: -1, bankLSB: -1, channelIndex: 0)
    }

    /// §9.2: the text's `switch` line.
    public var switchSettings: SwitchSettings { @_noLocks get { storage.pointee.switchSettings } }

    /// §9.6: the text's `trigger` lines.
    public var triggers: TriggerSettings { @_noLocks get { storage.pointee.triggers } }

    /// §9.5: the song's entry count (0 without a song).
    public var songCount: Int { @_noLocks get { storage.pointee.songCount } }

    /// §9.5: entry `index`.
    @_noLocks
    public func songStep(_ index: Int) -> SongStep { storage.pointee.songSteps![index] }

    /// §9.5: `S`, the sum of the entries, exact.
    public var songLength: BeatRational { @_noLocks get { storage.pointee.songLength } }

    /// §9.5: where entry `index` of repetition `m` starts, `m × S + S_index`,
    /// from the exact rationals, rounded once into a position (so the same
    /// entry start is the same position however it is reached, and the
    /// 10^9th repetition of a triplet-length song is where it should be:
    /// reading (w)). Saturates far beyond the contract's ±2^32 beats. O(1).
    @_noLocks
    public func songBeat(entry index: Int, repetition m: Int64) -> BeatPosition {
        let length = storage.pointee.songLength
        let start = storage.pointee.songSteps![index].start
        // |m × S| beyond 2^62 beats saturates (the numerators stay below 2^126).
        let scaled = Int128(m) * Int128(length.numerator)
        guard scaled.magnitude < UInt128(1) << 93 else {
            return BeatPosition(whole: m > 0 ? Int64.max / 2 : Int64.min / 2, fraction: 0)
        }
        let den = Int128(length.denominator) * Int128(start.denominator)
        let num = scaled * Int128(start.denominator) + Int128(start.numerator) * Int128(length.denominator)
        let (q, r) = BeatRational.floorDivide(num, den)
        guard q > Int128(Int64.min / 4), q < Int128(Int64.max / 4) else {
            return BeatPosition(whole: q > 0 ? Int64.max / 2 : Int64.min / 2, fraction: 0)
        }
        return BeatPosition(whole: Int64(q), fraction: Double(Int64(r)) / Double(Int64(den)))
    }

    /// §9.5: what follows the last entry.
    public var songEnding: SongEnding { @_noLocks get { storage.pointee.songEnding } }

    /// Frees the snapshot. Never on the audio thread; never twice.
    public func destroy() {
        if let parts = storage.pointee.parts {
            for i in 0..<(storage.pointee.partCount - 1) { parts[i].destroy() }
            parts.deallocate()
        }
        storage.pointee.partInfo?.deallocate()
        storage.pointee.songSteps?.deallocate()
        storage.pointee.controls?.deallocate()
        storage.pointee.chaseGroups?.deallocate()
        storage.pointee.chaseEntries?.deallocate()
        storage.pointee.noteLocks?.deallocate()
        storage.pointee.locks?.deallocate()
        storage.pointee.notes.deallocate()
        storage.pointee.lanes.deallocate()
        storage.pointee.exactEnds.deallocate()
        storage.pointee.text.deallocate()
        storage.pointee.source.deallocate()
        storage.deallocate()
    }

    /// Number of notes.
    public var noteCount: Int {
        @_noLocks get { storage.pointee.noteCount }
    }

    /// Number of lanes (1 for a version-1 pattern).
    public var laneCount: Int {
        @_noLocks get { storage.pointee.laneCount }
    }

    /// Lane `index`'s key-follow settings.
    @_noLocks @inline(__always)
    public func lane(_ index: Int) -> ScheduledLane { storage.pointee.lanes[index] }

    /// Whether some note has a chance below 1 or some lane follows the key.
    public var hasChoices: Bool {
        @_noLocks get { storage.pointee.hasChoices }
    }

    /// The loop length, exact (version 2: the lanes' common cycle).
    public var length: BeatRational {
        BeatRational(numerator: storage.pointee.lengthNumerator, denominator: storage.pointee.lengthDenominator)!
    }

    /// Note `index` in start order.
    @_noLocks @inline(__always)
    public func note(_ index: Int) -> ScheduledNote { storage.pointee.notes[index] }

    /// The pattern text this snapshot was made from, for saving and `patch:Get`.
    /// Valid while the snapshot lives; safe to read on any thread (immutable).
    public var text: UnsafeBufferPointer<UInt8> {
        @_noLocks get { UnsafeBufferPointer(start: storage.pointee.text, count: storage.pointee.textCount) }
    }

    /// `TextHash.of(text)`: the text's identity in the messages to and from the editor.
    public var textHash: UInt64 {
        @_noLocks get { storage.pointee.textHash }
    }

    /// Where the text came from (a file path), if it came from somewhere.
    public var source: UnsafeBufferPointer<UInt8>? {
        @_noLocks get {
            storage.pointee.sourceCount < 0 ? nil : UnsafeBufferPointer(start: storage.pointee.source, count: storage.pointee.sourceCount)
        }
    }

    /// The snapshot as an untyped pointer, to cross a C boundary (an LV2 worker
    /// message); `init(opaque:)` turns it back. Ownership travels with it.
    public var opaque: UnsafeMutableRawPointer {
        @_noLocks get { UnsafeMutableRawPointer(storage) }
    }

    /// The snapshot an `opaque` pointer came from.
    @_noLocks
    public init(opaque: UnsafeMutableRawPointer) {
        storage = opaque.assumingMemoryBound(to: SnapshotStorage.self)
    }

    init(storage: UnsafeMutablePointer<SnapshotStorage>) {
        self.storage = storage
    }

    /// `k × length` as a split position, exactly (whole part) and to double
    /// precision (fraction). nil when `k × length` is beyond any real session.
    @_noLocks
    public func loopStart(_ k: Int64) -> BeatPosition? {
        let num = Int128(k) * Int128(storage.pointee.lengthNumerator)
        let den = Int128(storage.pointee.lengthDenominator)
        var q = num / den
        var r = num - q * den
        if r < 0 { q -= 1; r += den }
        guard q > Int128(Int64.min / 4), q < Int128(Int64.max / 4) else { return nil }
        return BeatPosition(whole: Int64(q), fraction: Double(Int64(r)) / Double(storage.pointee.lengthDenominator))
    }

    /// Whether note `a`'s end in loop pass `loopA` lies strictly after note
    /// `b`'s end in pass `loopB`, decided exactly (the same-frame merge of §5
    /// across a loop boundary, where the split positions may round a tie
    /// either way). O(1), allocation-free.
    ///
    /// With `E = w + r/d` for each end (`d <= 2^62`) and `m × L = Q + R/q`
    /// (`q < 2^31`), the difference is `W + r_a/d_a + R/q - r_b/d_b` with
    /// `W = w_a - w_b + Q` and the fractions summing to within (-1, 2): only
    /// `W` of 0 or -1 needs the fractions, compared as two products of at
    /// most 2^156, to full width.
    @_noLocks
    public func endIsLater(_ a: Int, loop loopA: Int64, than b: Int, loop loopB: Int64) -> Bool {
        let ea = storage.pointee.exactEnds[a]
        let eb = storage.pointee.exactEnds[b]
        let q = Int128(storage.pointee.lengthDenominator)
        let shift = (Int128(loopA) - Int128(loopB)) * Int128(storage.pointee.lengthNumerator)
        var wholeShift = shift / q
        var remainder = shift - wholeShift * q
        if remainder < 0 { wholeShift -= 1; remainder += q }
        let w = Int128(ea.whole) - Int128(eb.whole) + wholeShift
        if w >= 1 { return true }
        if w <= -2 { return false }
        // r_a/d_a + R/q  >  r_b/d_b - W, both sides non-negative.
        let leftNumerator = UInt128(ea.remainder) * UInt128(q) + UInt128(remainder) * UInt128(ea.denominator)
        let leftDenominator = UInt128(ea.denominator) * UInt128(q)
        let rightNumerator = UInt128(Int128(eb.remainder) - w * Int128(eb.denominator))
        let rightDenominator = UInt128(eb.denominator)
        let lhs = leftNumerator.multipliedFullWidth(by: rightDenominator)
        let rhs = rightNumerator.multipliedFullWidth(by: leftDenominator)
        return lhs.high != rhs.high ? lhs.high > rhs.high : lhs.low > rhs.low
    }

    /// The loop pass containing `beat`: `floor(beat / length)`, to within one
    /// pass near a pass boundary (callers fix the edge exactly), or nil far
    /// beyond any real session.
    @_noLocks
    public func approximateLoopIndex(containing beat: BeatPosition) -> Int64? {
        let k = (Double(beat.whole) + beat.fraction) / storage.pointee.lengthBeats
        guard k > -2.0e18, k < 2.0e18 else { return nil }
        return BeatPosition.floorToInt64(k)
    }

    /// The first note index whose start is at or after `phase` beats into the
    /// loop, comparing the same split values onsets are computed from. O(log n).
    @_noLocks
    public func firstNote(atOrAfterPhase phase: BeatPosition) -> Int {
        var low = 0
        var high = storage.pointee.noteCount
        let notes = storage.pointee.notes
        while low < high {
            let mid = (low + high) >> 1
            if notes[mid].start < phase { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// The number its maker gave it (`make(_:text:source:tag:)`).
    public var tag: UInt64 {
        @_noLocks get { storage.pointee.tag }
    }

    /// A stable identity, for logs and tests.
    public var identity: UInt {
        UInt(bitPattern: storage)
    }
}
