/// A position in the endless sequence of a pattern's onsets: note `index`
/// (in start order) of loop pass `loop`, at global beat `loop × length + start`.
///
/// The renderer keeps one as "the next onset not yet played"; advancing is
/// O(1), and `first(atOrAfter:in:)` finds the first onset of any beat window
/// in O(log n), however many loop passes lie before it. Value type; every
/// method is allocation-free and safe on the audio thread. A cursor belongs
/// to the snapshot it was made from.
public struct OnsetCursor: Sendable, BitwiseCopyable, Equatable {
    /// Loop pass (may be negative: the pattern is aligned to global beat 0).
    public private(set) var loop: Int64
    /// Note index in start order, `0 ..< noteCount`.
    public private(set) var index: Int
    /// `loop × length`, split.
    public private(set) var loopStart: BeatPosition

    /// The cursor at note `index` of pass `loop`; nil for an empty pattern or
    /// a pass beyond any real session.
    @_noLocks
    public init?(loop: Int64, index: Int, in snapshot: PatternSnapshot) {
        guard snapshot.noteCount > 0, let start = snapshot.loopStart(loop) else { return nil }
        self.loop = loop
        self.index = index
        self.loopStart = start
        if index >= snapshot.noteCount {
            guard nextPass(in: snapshot) else { return nil }
        }
    }

    /// The global beat of this onset.
    @_noLocks @inline(__always)
    public func beat(in snapshot: PatternSnapshot) -> BeatPosition {
        loopStart + snapshot.note(index).start
    }

    /// Moves to the next onset; false (and unchanged) at the end of representable time.
    @_noLocks @inline(__always)
    public mutating func advance(in snapshot: PatternSnapshot) -> Bool {
        if index + 1 < snapshot.noteCount {
            index += 1
            return true
        }
        return nextPass(in: snapshot)
    }

    /// Moves to the first onset at a later beat than this one (skips notes
    /// that start together with this one).
    @_noLocks
    public mutating func advanceGroup(in snapshot: PatternSnapshot) -> Bool {
        let next = Int(snapshot.note(index).groupNext)
        if next < snapshot.noteCount {
            index = next
            return true
        }
        return nextPass(in: snapshot)
    }

    /// The first onset of the group before this one's group, or nil.
    @_noLocks
    public func previousGroup(in snapshot: PatternSnapshot) -> OnsetCursor? {
        let first = Int(snapshot.note(index).groupFirst)
        if first > 0 {
            var c = self
            c.index = Int(snapshot.note(first - 1).groupFirst)
            return c
        }
        guard let start = snapshot.loopStart(loop &- 1) else { return nil }
        var c = self
        c.loop = loop &- 1
        c.loopStart = start
        c.index = Int(snapshot.note(snapshot.noteCount - 1).groupFirst)
        return c
    }

    @_noLocks
    mutating func nextPass(in snapshot: PatternSnapshot) -> Bool {
        guard let start = snapshot.loopStart(loop &+ 1) else { return false }
        loop &+= 1
        index = 0
        loopStart = start
        return true
    }

    /// The first onset at or after `beat`. O(log n).
    @_noLocks
    public static func first(atOrAfter beat: BeatPosition, in snapshot: PatternSnapshot) -> OnsetCursor? {
        guard var cursor = approximate(atOrAfter: beat, in: snapshot) else { return nil }
        // The approximate search is off by at most a group or two near a
        // pass boundary; settle the edge with exact comparisons.
        var steps = 0
        while cursor.beat(in: snapshot) < beat, steps < OnsetCursor.fixUpLimit {
            guard cursor.advanceGroup(in: snapshot) else { return nil }
            steps += 1
        }
        while steps < 2 * OnsetCursor.fixUpLimit, let previous = cursor.previousGroup(in: snapshot),
            !(previous.beat(in: snapshot) < beat)
        {
            cursor = previous
            steps += 1
        }
        return cursor
    }

    /// Where an exact search starts: the answer, but for a pass boundary the
    /// loop index was rounded across, or the rounding of `loopStart + start`.
    @_noLocks
    static func approximate(atOrAfter beat: BeatPosition, in snapshot: PatternSnapshot) -> OnsetCursor? {
        guard snapshot.noteCount > 0, let k = snapshot.approximateLoopIndex(containing: beat),
            let start = snapshot.loopStart(k)
        else { return nil }
        return OnsetCursor(loop: k, index: snapshot.firstNote(atOrAfterPhase: beat - start), in: snapshot)
    }

    /// Bound on the exact fix-up steps of a search (each is one group).
    static var fixUpLimit: Int { 64 }

    /// Number of onsets from `earlier` to `self` (saturating; 0 if `self` is not later).
    @_noLocks
    public func onsetCount(since earlier: OnsetCursor, in snapshot: PatternSnapshot) -> Int64 {
        let (passes, overflow) = (loop &- earlier.loop).multipliedReportingOverflow(by: Int64(snapshot.noteCount))
        if overflow { return loop > earlier.loop ? Int64.max : 0 }
        let count = passes &+ Int64(index) &- Int64(earlier.index)
        return count > 0 ? count : 0
    }

    /// Order in the onset sequence.
    @_noLocks @inline(__always)
    public func isBefore(_ other: OnsetCursor) -> Bool {
        loop != other.loop ? loop < other.loop : index < other.index
    }
}
