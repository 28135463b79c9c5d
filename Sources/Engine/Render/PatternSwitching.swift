/// Timing contract §9 in the renderer: requests for a pattern, the switch at
/// its boundary's frame, what a switch does (notes cut or ring, the bank and
/// program, the new origin), jumps and starts of play around a pending
/// switch, and the song. `SceneState` holds the state and its arithmetic;
/// this file performs it on the renderer's output, in §9.8's order.
///
/// Audio thread: allocation-free, lock-free, `@_noLocks`. A block performs
/// at most `switchBound` switches (a song of very short entries would
/// otherwise make a block's work unbounded); past it, the song's position
/// is located at the block's end without playing the entries in between.
extension BlockRenderer {
    /// Most switches one rendering segment performs (see above).
    static var switchBound: Int { 256 }

    // MARK: - Requests and the song control

    /// §9.2: a request for pattern `number` (1-based) at `offset`, on `grid`
    /// (the text's `switch` grid when nil). Ignored and counted when the
    /// pattern does not exist or a song plays.
    @_noLocks
    public mutating func request(pattern number: Int, grid: SwitchSettings.Grid? = nil, atOffset offset: Int, output: inout MIDIEventBuffer) {
        let frame = absoluteFrame(offset)
        renderUntil(frame, output: &output)
        guard let s = pattern, number >= 1, number <= s.partCount, !scene.songPlays else {
            statistics.ignoredRequests &+= 1
            return
        }
        let settings = s.switchSettings
        let r = clock.beat(atFrame: frame)
        let b = scene.boundary(request: r, grid: grid ?? settings.grid, grace: settings.grace, beatsPerBar: clock.beatsPerBar)
        let part = number - 1
        if !(r < b) && blockFrameCount > 0 {
            // `now`, a grace that takes the boundary just missed, or a request
            // on the boundary (also while stopped): the switch happens at `f`.
            scene.makePending(part: part, at: b, keepsPhase: settings.keepsPhase, rings: settings.notesRing)
            performSwitch(atFrame: frame, jumpTarget: nil, seekFrom: .atOrAfterFrame(frame), output: &output)
        } else {
            scene.makePending(part: part, at: b, keepsPhase: settings.keepsPhase, rings: settings.notesRing)
        }
    }

    /// §9.5: the `song` control. Turning it on is a switch at `offset` to the
    /// song's pattern at the beat in force; turning it off keeps what plays
    /// and drops what is pending.
    @_noLocks
    public mutating func setSongEnabled(_ on: Bool, atOffset offset: Int, output: inout MIDIEventBuffer) {
        // A block of no frames can send nothing: the control is read again at the next block's start.
        guard on != scene.songEnabled, blockFrameCount > 0 else { return }
        let frame = absoluteFrame(offset)
        renderUntil(frame, output: &output)
        scene.songEnabled = on
        guard let s = pattern, s.songCount > 0 else { return }
        if on {
            // A switch at that frame (§9.5): with `notes cut`, what sounds ends there.
            if !s.switchSettings.notesRing { tracker.cutAll() }
            relocateSong(atFrame: frame, beat: clock.beat(atFrame: frame), output: &output)
            // The entry plays on from there (what lies at that beat and later), as after a switch.
            if clock.isRolling { seek(.atOrAfterFrame(frame)) }
        } else {
            scene.hasPending = false
            scene.songEntryNumber = 0
        }
    }

    // MARK: - Switching

    /// §9.3: performs every pending switch whose frame lies before `end`,
    /// rendering what comes before each at its frame.
    @_noLocks
    mutating func renderSwitches(before end: Int64, output: inout MIDIEventBuffer) {
        var switchesLeft = BlockRenderer.switchBound
        while scene.hasPending {
            var frame = clock.frame(of: scene.pendingBeat)
            if frame < renderedFrame { frame = renderedFrame }
            guard frame < end else { return }
            guard switchesLeft > 0 else {
                // Beyond the bound: the song's position at `end`, nothing in between.
                if scene.songPlays {
                    renderDue(until: frame, output: &output)
                    scene.locateSong(at: clock.beat(atFrame: end))
                    clearCursors()
                    seek(.atOrAfterFrame(end))
                    quietUntil = Int64.min
                }
                return
            }
            switchesLeft -= 1
            if frame > renderedFrame { renderDue(until: frame, output: &output) }
            performSwitch(atFrame: frame, jumpTarget: nil, seekFrom: .atOrAfterBeat(scene.pendingBeat), output: &output)
        }
    }

    /// §9.4: the pending switch happens at `frame`: note-offs (the old
    /// pattern's, all of them with `notes cut`), then the new pattern's bank
    /// and program, then it plays from `seekFrom`. `jumpTarget`: the switch
    /// is made by a jump to that beat (its origin with `phase restart`).
    @_noLocks
    mutating func performSwitch(atFrame frame: Int64, jumpTarget: BeatPosition?, seekFrom bound: OnsetBound, output: inout MIDIEventBuffer) {
        let part = scene.pendingPart
        let keeps = scene.pendingKeepsPhase && part >= 0 && scene.playingPart >= 0
        let fromSong = scene.pendingFromSong
        let entry = scene.pendingEntry
        let repetition = scene.pendingRepetition
        let boundary = scene.pendingBeat
        scene.hasPending = false
        // A request for the playing pattern with `phase keep` changes nothing.
        if keeps && part == scene.playingPart && !fromSong { return }
        if !scene.pendingRings { cutAllNotes() }
        emitNoteOffs(dueBy: frame, output: &output)
        if part >= 0 { emitProgram(of: part, atFrame: frame, output: &output) }
        scene.setPlaying(part, origin: keeps ? scene.origin : (jumpTarget ?? boundary))
        scene.programOwed = false
        if fromSong { scene.songEntryNumber = part >= 0 ? entry + 1 : 0 }
        if fromSong && part >= 0 { scene.pendSongEntry(entry + 1, repetition: repetition) }
        clearCursors()
        quietUntil = Int64.min
        if clock.isRolling && jumpTarget == nil { seek(bound) }
    }

    /// Every note-off due at or before `frame` (cut notes: now), at their
    /// frames, in the tracker's order: what §9.8 puts before a program change.
    @_noLocks
    mutating func emitNoteOffs(dueBy frame: Int64, output: inout MIDIEventBuffer) {
        while let slot = tracker.first, output.count < output.capacity {
            let f = noteOffFrame(slot, notBefore: renderedFrame)
            guard f <= frame else { return }
            _ = output.append(.noteOff(offset: f &- blockStartFrame, slot: slot))
            tracker.end(slot: slot)
            releaseLocks(slot: slot, atFrame: f, output: &output)
        }
    }

    /// §9.4 step 2: pattern `part`'s Bank Select (controller 0, then 32) and
    /// Program Change at `frame`, when it has a `program`, if the output has
    /// room beyond the note-offs owed (else dropped and counted).
    @_noLocks
    mutating func emitProgram(of part: Int, atFrame frame: Int64, output: inout MIDIEventBuffer) {
        guard let s = pattern else { return }
        let info = s.partInfo(part)
        guard info.program >= 0 else { return }
        let needed = 1 + (info.bankMSB >= 0 ? 1 : 0) + (info.bankLSB >= 0 ? 1 : 0)
        guard output.count + tracker.count + needed <= output.capacity else {
            statistics.droppedNoteOns &+= 1
            return
        }
        let offset = frame &- blockStartFrame
        let channel = info.channelIndex & 0x0F
        if info.bankMSB >= 0 { _ = output.append(MIDIEvent(offset: offset, status: 0xB0 | channel, data1: 0, data2: UInt8(info.bankMSB))) }
        if info.bankLSB >= 0 { _ = output.append(MIDIEvent(offset: offset, status: 0xB0 | channel, data1: 32, data2: UInt8(info.bankLSB))) }
        _ = output.append(MIDIEvent(offset: offset, status: 0xC0 | channel, data1: UInt8(info.program), data2: 0))
        // §10.3: always sent, and the last values sent for their controllers.
        let base = Int(channel) * ControllerMemory.slotsPerChannel
        if info.bankMSB >= 0 { controllers.lastSent[base] = Int32(info.bankMSB) }
        if info.bankLSB >= 0 { controllers.lastSent[base + 32] = Int32(info.bankLSB) }
        controllers.lastSent[base + ControllerMemory.programIndex] = Int32(info.program)
    }

    /// §9.5: the song's pattern at `beat` plays from `frame`, its entry's
    /// program first (a start of play, a jump, the song turned on).
    @_noLocks
    mutating func relocateSong(atFrame frame: Int64, beat: BeatPosition, output: inout MIDIEventBuffer) {
        let before = scene.playingPart
        scene.locateSong(at: beat)
        if scene.playingPart != before || clock.isRolling { emitNoteOffs(dueBy: frame, output: &output) }
        if scene.playingPart >= 0 && clock.isRolling { emitProgram(of: scene.playingPart, atFrame: frame, output: &output) }
        clearCursors()
        quietUntil = Int64.min
    }

    // MARK: - Updates

    /// `applyInFull` for a snapshot that uses §9: the update's effect on
    /// notes and onsets, with the switch a jump or a start makes (§9.3) and
    /// the song's relocation (§9.5) in between.
    @_noLocks
    mutating func sceneApply(_ change: TransportChange, before: TransportClock, atFrame frame: Int64, output: inout MIDIEventBuffer) -> TransportChange {
        switch change {
        case .ignored:
            statistics.ignoredUpdates &+= 1
            return change
        case .repeat, .correction:
            if !(before.isRolling == clock.isRolling && before.anchorFrame == clock.anchorFrame && before.anchorBeat == clock.anchorBeat
                && before.framesPerBeat == clock.framesPerBeat)
            {
                quietUntil = Int64.min
            }
            return change
        case .stop:
            cutAllNotes()
            clearCursors()
            quietUntil = Int64.min
            return change
        case .stoppedUpdate:
            // A locate while stopped counts as a jump (§9.3).
            quietUntil = Int64.min
            if scene.songPlays {
                scene.locateSong(at: clock.anchorBeat)
            } else if scene.hasPending, !(clock.anchorBeat < scene.pendingBeat) {
                performSwitch(atFrame: frame, jumpTarget: clock.anchorBeat, seekFrom: .atOrAfterUpdate, output: &output)
            }
            return change
        case .start, .jump:
            cutAllNotes()
            emitNoteOffs(dueBy: frame, output: &output)
            quietUntil = Int64.min
            let target = clock.anchorBeat
            if scene.songPlays {
                relocateSong(atFrame: frame, beat: target, output: &output)
            } else if scene.hasPending {
                // The boundary's frame under the clock in force before the update.
                let due = before.isRolling && before.frame(of: scene.pendingBeat) <= frame
                if due || !(target < scene.pendingBeat) {
                    performSwitch(atFrame: frame, jumpTarget: target, seekFrom: .atOrAfterUpdate, output: &output)
                } else if change == .start && scene.programOwed {
                    emitProgram(of: scene.playingPart, atFrame: frame, output: &output)
                    scene.programOwed = false
                }
            } else if change == .start && scene.programOwed && scene.playingPart >= 0 {
                emitProgram(of: scene.playingPart, atFrame: frame, output: &output)
                scene.programOwed = false
            }
            seek(.atOrAfterUpdate)
            return change
        }
    }
}
