/// A position in the endless sequence of a pattern's controller events
/// (§10): control `index` (in beat order) of cycle pass `loop`, at beat
/// `loop × length + beat`. The renderer keeps one on the next control not
/// yet sent, as it keeps an `OnsetCursor` on the next onset: advancing is
/// O(1), finding the first of a window O(log n). Allocation-free.
public struct ControlCursor: Sendable, BitwiseCopyable, Equatable {
    public private(set) var loop: Int64
    public private(set) var index: Int
    public private(set) var loopStart: BeatPosition

    /// The global beat of this event (before the origin, §9.1).
    @_noLocks @inline(__always)
    public func beat(in snapshot: PatternSnapshot) -> BeatPosition {
        loopStart + snapshot.control(index).beat
    }

    /// Moves to the next event; false at the end of representable time.
    @_noLocks @inline(__always)
    public mutating func advance(in snapshot: PatternSnapshot) -> Bool {
        if index + 1 < snapshot.controlCount {
            index += 1
            return true
        }
        guard let start = snapshot.loopStart(loop &+ 1) else { return false }
        loop &+= 1
        index = 0
        loopStart = start
        return true
    }

    /// The event before this one, or nil.
    @_noLocks
    public func previous(in snapshot: PatternSnapshot) -> ControlCursor? {
        var c = self
        if index > 0 {
            c.index -= 1
            return c
        }
        guard let start = snapshot.loopStart(loop &- 1) else { return nil }
        c.loop = loop &- 1
        c.loopStart = start
        c.index = snapshot.controlCount - 1
        return c
    }

    /// The first event at or after `beat`, nearly: exact but for the
    /// rounding of a split position at a pass boundary (the renderer settles
    /// the edge with its own rule). O(log n).
    @_noLocks
    public static func first(atOrAfter beat: BeatPosition, in snapshot: PatternSnapshot) -> ControlCursor? {
        guard snapshot.controlCount > 0, var k = snapshot.approximateLoopIndex(containing: beat), var start = snapshot.loopStart(k) else {
            return nil
        }
        if beat < start {
            guard let s = snapshot.loopStart(k &- 1) else { return nil }
            k &-= 1
            start = s
        }
        var cursor = ControlCursor(loop: k, index: snapshot.firstControl(atOrAfterPhase: beat - start), loopStart: start)
        if cursor.index >= snapshot.controlCount {
            cursor.index = snapshot.controlCount - 1
            guard cursor.advance(in: snapshot) else { return nil }
        }
        return cursor
    }

    /// Where the last event of chase group `group` at or before `beat` lies
    /// (§10.4), nearly: exact but for the rounding of a split position (the
    /// renderer settles the edge with §3's frame rule, as it sends events).
    /// The group's last event of the previous pass when this pass has none
    /// yet. Nil for an empty group. O(log n).
    @_noLocks
    public static func chasePlace(group: ControlChaseGroup, atOrBefore beat: BeatPosition, in snapshot: PatternSnapshot) -> ChasePlace? {
        guard group.count > 0, let k = snapshot.approximateLoopIndex(containing: beat), let start = snapshot.loopStart(k) else { return nil }
        var phase = beat - start
        // The pass estimate may be one off at a pass boundary: the phase then lies just outside the cycle.
        if phase < .zero { phase = .zero }
        var low = 0
        var high = Int(group.count)
        while low < high {
            let mid = (low + high) >> 1
            if phase < snapshot.control(snapshot.chaseEntry(Int(group.first) + mid)).beat { high = mid } else { low = mid + 1 }
        }
        // `low` events are at or before the phase; none: the last of the pass before.
        let place = ChasePlace(loop: k, position: low, loopStart: start)
        return place.previous(group: group, in: snapshot)
    }
}

/// A place in the endless sequence of one chase group's events (§10.4):
/// its event `position` (beat order) in cycle pass `loop`. Stepping is O(1).
public struct ChasePlace: Sendable, BitwiseCopyable {
    public let loop: Int64
    public let position: Int
    public let loopStart: BeatPosition

    @_noLocks @inline(__always)
    init(loop: Int64, position: Int, loopStart: BeatPosition) {
        self.loop = loop
        self.position = position
        self.loopStart = loopStart
    }

    /// The index of its control in the snapshot.
    @_noLocks @inline(__always)
    public func control(group: ControlChaseGroup, in snapshot: PatternSnapshot) -> Int {
        snapshot.chaseEntry(Int(group.first) + position)
    }

    /// The global beat of its event (before the origin, §9.1).
    @_noLocks @inline(__always)
    public func beat(group: ControlChaseGroup, in snapshot: PatternSnapshot) -> BeatPosition {
        loopStart + snapshot.control(control(group: group, in: snapshot)).beat
    }

    /// The group's next event, or nil at the end of representable time.
    @_noLocks
    public func next(group: ControlChaseGroup, in snapshot: PatternSnapshot) -> ChasePlace? {
        if position + 1 < Int(group.count) { return ChasePlace(loop: loop, position: position + 1, loopStart: loopStart) }
        guard let start = snapshot.loopStart(loop &+ 1) else { return nil }
        return ChasePlace(loop: loop &+ 1, position: 0, loopStart: start)
    }

    /// The group's event before this one (`position` may be one past the last:
    /// the pass's last event), or nil at the start of representable time.
    @_noLocks
    public func previous(group: ControlChaseGroup, in snapshot: PatternSnapshot) -> ChasePlace? {
        if position > 0 { return ChasePlace(loop: loop, position: position - 1, loopStart: loopStart) }
        guard let start = snapshot.loopStart(loop &- 1) else { return nil }
        return ChasePlace(loop: loop &- 1, position: Int(group.count) - 1, loopStart: start)
    }
}
