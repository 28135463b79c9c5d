/// Timing contract §10 in the renderer: a lane's controller points and ramp
/// samples sent at their frames, only when they differ from the last value
/// sent (§10.3), the chase at a start, a jump, a switch or a new text
/// (§10.4), and the locks of notes with their restores (§10.5), in §10.6's
/// order: every note-off of a frame, then the restores, the chase and the
/// controllers, then the locks of the notes that start, then their note-ons.
///
/// Audio thread: allocation-free, lock-free, `@_noLocks`. Sending costs
/// O(1) per event due; a chase costs a binary search per lane and controller.
extension BlockRenderer {
    /// §10.3, §10.6: sends `value` for memory slot `memory` at `frame`, when
    /// it differs from the last value sent and the output has room beyond
    /// the note-offs owed (else it is dropped, counted, and not remembered).
    @_noLocks
    mutating func sendControl(memory: Int, value: UInt16, atFrame frame: Int64, restore: Bool, output: inout MIDIEventBuffer) {
        let v = Int32(value)
        guard controllers.lastSent[memory] != v else { return }
        guard output.count + stagingCount + tracker.count + 1 <= output.capacity else {
            statistics.droppedNoteOns &+= 1
            return
        }
        controllers.beforeRestore[memory] = controllers.lastSent[memory]
        controllers.lastOutput[memory] = Int32(output.count)
        controllers.lastOutputFrame[memory] = frame
        controllers.lastWasRestore[memory] = restore
        controllers.lastSent[memory] = v
        _ = output.append(ScheduledControl.message(memory: memory, value: value, offset: frame &- blockStartFrame))
    }

    /// §10.1, §10.2: sends the controller event under the cursor at `frame` and advances the cursor.
    @_noLocks
    mutating func playControl(at frame: Int64, output: inout MIDIEventBuffer) {
        guard var c = controllers.cursor, let p = scene.playing else { return }
        defer { controllers.cursor = c.advance(in: p) ? c : nil }
        sendLaneControl(p.control(c.index), atFrame: frame, output: &output)
    }

    /// A lane's value (an event or a chase): not from a muted lane (§7.6);
    /// followed but not sent while a lock holds its controller (§10.5).
    @_noLocks
    mutating func sendLaneControl(_ e: ScheduledControl, atFrame frame: Int64, output: inout MIDIEventBuffer) {
        if !portMutesRead { readPortMutes() }
        if (parameterMutes | portMutes) & (1 << UInt64(e.lane)) != 0 { return }
        let lockSlot = ControllerState.lockSlot(memory: Int(e.memory))
        if lockSlot >= 0 && controllers.holds[lockSlot] > 0 { return }
        sendControl(memory: Int(e.memory), value: e.value, atFrame: frame, restore: false, output: &output)
    }

    /// §10.4: each controller of each unmuted lane of the playing pattern
    /// sends the value uninterrupted play would have sent last at or before
    /// `frame`.
    @_noLocks
    mutating func chaseControls(at frame: Int64, output: inout MIDIEventBuffer) {
        controllers.chaseFrame = Int64.max
        guard let p = scene.playing, p.chaseGroupCount > 0 else { return }
        for g in 0..<p.chaseGroupCount {
            guard let i = chaseIndex(group: p.chaseGroup(g), atOrBeforeFrame: frame, in: p) else { continue }
            sendLaneControl(p.control(i), atFrame: frame, output: &output)
        }
    }

    /// The control of chase group `group` that uninterrupted play would have
    /// sent last at or before `frame` (§10.4, reading (x)): the last event
    /// that §3's frame rule, under the update in force, puts at or before
    /// `frame`, the rule that sends it. Nil while stopped or for an empty
    /// group. O(log n): a binary search, then a few frames settle the edge.
    @_noLocks
    func chaseIndex(group: ControlChaseGroup, atOrBeforeFrame frame: Int64, in p: PatternSnapshot) -> Int? {
        guard clock.isRolling else { return nil }
        let origin = scene.origin
        guard var place = ControlCursor.chasePlace(group: group, atOrBefore: clock.beat(atFrame: frame) - origin, in: p) else { return nil }
        var steps = 0
        while steps < OnsetCursor.fixUpLimit, let next = place.next(group: group, in: p),
            clock.frame(of: next.beat(group: group, in: p) + origin) <= frame
        {
            place = next
            steps += 1
        }
        while steps < 2 * OnsetCursor.fixUpLimit, clock.frame(of: place.beat(group: group, in: p) + origin) > frame {
            guard let previous = place.previous(group: group, in: p) else { return nil }
            place = previous
            steps += 1
        }
        return place.control(group: group, in: p)
    }

    /// Passes the controller events due before `end` without sending them
    /// (the output is full or the block's work is spent), counted as dropped.
    @_noLocks
    mutating func skipControls(before end: Int64) {
        statistics.droppedNoteOns &+= 1
        guard let c = controllers.cursor, let p = scene.playing else { return }
        if let target = firstControl(.atOrAfterFrame(end), in: p), c.loop < target.loop || (c.loop == target.loop && c.index < target.index) {
            controllers.cursor = target
        } else {
            var next = c
            controllers.cursor = next.advance(in: p) ? next : nil
        }
    }

    /// The frame of the next controller work: a pending chase, or the event under the cursor.
    @_noLocks @inline(__always)
    func nextControlFrame(notBefore floor: Int64) -> (frame: Int64, chase: Bool) {
        if controllers.chaseFrame != Int64.max { return (controllers.chaseFrame < floor ? floor : controllers.chaseFrame, true) }
        guard clock.isRolling, let c = controllers.cursor, let p = scene.playing else { return (Int64.max, false) }
        let f = clock.frame(of: c.beat(in: p) + scene.origin)
        return (f < floor ? floor : f, false)
    }

    /// Seeks the controller cursor as `seek` seeks the onsets, and makes a
    /// chase due there (§10.4): a start, a jump, a switch, a new text.
    @_noLocks
    mutating func seekControls(_ bound: OnsetBound) {
        guard let p = scene.playing, p.controlCount > 0 else {
            controllers.cursor = nil
            controllers.chaseFrame = Int64.max
            return
        }
        controllers.cursor = firstControl(bound, in: p)
        var frame = renderedFrame
        if case .atOrAfterFrame(let f) = bound, f > frame { frame = f }
        controllers.chaseFrame = frame
        quietUntil = Int64.min
    }

    /// The first controller event satisfying `bound` under the current clock. O(log n).
    @_noLocks
    func firstControl(_ bound: OnsetBound, in p: PatternSnapshot) -> ControlCursor? {
        let approximateBeat: BeatPosition
        switch bound {
        case .atOrAfterUpdate: approximateBeat = clock.anchorBeat
        case .atOrAfterFrame(let frame): approximateBeat = clock.beat(atFrame: frame &- 1)
        case .atOrAfterBeat(let beat): approximateBeat = beat
        }
        let origin = scene.origin
        guard var c = ControlCursor.first(atOrAfter: approximateBeat - origin, in: p) else { return nil }
        // Settle the edge with the rule emission uses (as `firstOnset` does).
        var steps = 0
        while !satisfies(c.beat(in: p) + origin, bound), steps < 2 * OnsetCursor.fixUpLimit {
            guard c.advance(in: p) else { return nil }
            steps += 1
        }
        while steps < 4 * OnsetCursor.fixUpLimit, let previous = c.previous(in: p), satisfies(previous.beat(in: p) + origin, bound) {
            c = previous
            steps += 1
        }
        return c
    }

    /// §10.5: the number of locks of note `index` of `p` (0 without).
    @_noLocks @inline(__always)
    func lockCount(ofNote index: Int, in p: PatternSnapshot) -> Int {
        p.hasLocks ? Int(p.lockRange(ofNote: index) & 255) : 0
    }

    /// §10.5: the locks of note `index` of `p`, which starts in note slot
    /// `slot` at `frame` (after the controllers of that frame, before its
    /// note-on). A restore of the same controller at this frame is taken back.
    @_noLocks
    mutating func startLocks(ofNote index: Int, slot: Int, in p: PatternSnapshot, atFrame frame: Int64, output: inout MIDIEventBuffer) {
        let range = p.lockRange(ofNote: index)
        let first = Int(range >> 8)
        let count = Int(range & 255)
        let channel = slot >> 7
        for j in 0..<count {
            let lock = p.lock(first + j)
            let controller = Int(lock >> 8)
            let memory = channel * ControllerMemory.slotsPerChannel + controller
            let lockSlot = channel * 120 + controller
            let retracted = takeBackRestore(memory: memory, atFrame: frame, output: &output)
            if controllers.holds[lockSlot] == 0 && !retracted { controllers.beforeLock[lockSlot] = controllers.lastSent[memory] }
            let word = 2 * slot + controller / 64
            let bit = UInt64(1) << UInt64(controller % 64)
            if controllers.slotLocks[word] & bit == 0 {
                controllers.slotLocks[word] |= bit
                controllers.holds[lockSlot] &+= 1
            }
            controllers.anyLock = true
            sendControl(memory: memory, value: UInt16(lock & 255), atFrame: frame, restore: false, output: &output)
        }
    }

    /// A restore of `memory` sent at `frame` as the last message of its
    /// controller is taken out of the output (§10.5: a restore due where a
    /// lock of the same controller starts is not sent). True when it was.
    @_noLocks
    mutating func takeBackRestore(memory: Int, atFrame frame: Int64, output: inout MIDIEventBuffer) -> Bool {
        guard controllers.lastWasRestore[memory], controllers.lastOutputFrame[memory] == frame else { return false }
        controllers.lastWasRestore[memory] = false
        let wanted = ScheduledControl.message(memory: memory, value: UInt16(truncatingIfNeeded: controllers.lastSent[memory]), offset: frame &- blockStartFrame)
        // Another message taken back since may have moved it one place down.
        var i = Int(controllers.lastOutput[memory])
        var tries = 0
        while i >= 0, i < output.count, output[i] != wanted, tries < 8 {
            i -= 1
            tries += 1
        }
        guard i >= 0, i < output.count, output[i] == wanted else { return false }
        output.remove(at: i)
        controllers.lastSent[memory] = controllers.beforeRestore[memory]
        return true
    }

    /// §10.5: the note in `slot` ended (its note-off is out): each
    /// controller it locked is released, and its restore is due when no
    /// other note holds it. §10.6: restores go out after every note-off of
    /// their frame (`sendRestores`), in note-off order, each note's by
    /// controller number.
    @_noLocks
    mutating func releaseLocks(slot: Int, atFrame frame: Int64, output: inout MIDIEventBuffer) {
        guard controllers.anyLock else { return }
        if controllers.pendingRestoreCount > 0 && controllers.pendingRestoreFrame != frame { sendRestores(output: &output) }
        let channel = slot >> 7
        for half in 0..<2 {
            var bits = controllers.slotLocks[2 * slot + half]
            guard bits != 0 else { continue }
            controllers.slotLocks[2 * slot + half] = 0
            while bits != 0 {
                let controller = half * 64 + bits.trailingZeroBitCount
                bits &= bits &- 1
                let lockSlot = channel * 120 + controller
                guard controllers.holds[lockSlot] > 0 else { continue }
                controllers.holds[lockSlot] -= 1
                guard controllers.holds[lockSlot] == 0, controllers.pendingRestoreCount < ControllerState.lockSlotCount else { continue }
                controllers.pendingRestores[controllers.pendingRestoreCount] = UInt16(lockSlot)
                controllers.pendingRestoreCount += 1
                controllers.pendingRestoreFrame = frame
            }
        }
    }

    /// §10.5, §10.6: the restores due (`releaseLocks`), once the note-offs of
    /// their frame are out: each sends the lanes' value, or the one sent
    /// before the lock. Call it before anything after the note-offs of a
    /// frame goes out. O(restores due).
    @_noLocks @inline(__always)
    mutating func sendRestoresIfDue(output: inout MIDIEventBuffer) {
        if controllers.pendingRestoreCount > 0 { sendRestores(output: &output) }
    }

    @_noLocks @inline(never)
    mutating func sendRestores(output: inout MIDIEventBuffer) {
        let frame = controllers.pendingRestoreFrame
        for i in 0..<controllers.pendingRestoreCount {
            let lockSlot = Int(controllers.pendingRestores[i])
            // A lock that started since holds it again: no restore (not reached: locks start after this).
            guard controllers.holds[lockSlot] == 0 else { continue }
            let memory = lockSlot / 120 * ControllerMemory.slotsPerChannel + lockSlot % 120
            let lanes = lanesValue(memory: memory, atFrame: frame)
            let value = lanes >= 0 ? lanes : controllers.beforeLock[lockSlot]
            if value >= 0 { sendControl(memory: memory, value: UInt16(value), atFrame: frame, restore: true, output: &output) }
        }
        controllers.pendingRestoreCount = 0
    }

    /// The value the unmuted lanes of the playing pattern would have sent
    /// last for `memory` at or before `frame` (its events at that frame
    /// included, as a chase's), the last lane in text order deciding; -1
    /// when no lane has points for it. O(groups + log n).
    @_noLocks
    func lanesValue(memory: Int, atFrame frame: Int64) -> Int32 {
        guard clock.isRolling, let p = scene.playing, p.chaseGroupCount > 0 else { return -1 }
        let mutes = parameterMutes | portMutes
        var value: Int32 = -1
        for g in 0..<p.chaseGroupCount {
            let group = p.chaseGroup(g)
            guard group.count > 0, Int(p.control(p.chaseEntry(Int(group.first))).memory) == memory,
                mutes & (1 << UInt64(group.lane)) == 0,
                let i = chaseIndex(group: group, atOrBeforeFrame: frame, in: p)
            else { continue }
            value = Int32(p.control(i).value)
        }
        return value
    }

    /// Ends every sounding note (their note-offs go out at once) and every
    /// lock without a restore (§10.5).
    @_noLocks
    mutating func cutAllNotes() {
        tracker.cutAll()
        controllers.endLocks()
    }

    /// Forgets the next onset and the next controller event (a stop, before a seek).
    @_noLocks
    mutating func clearCursors() {
        cursor = nil
        controllers.cursor = nil
        controllers.chaseFrame = Int64.max
    }
}
