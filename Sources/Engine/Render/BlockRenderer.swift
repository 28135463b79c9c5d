/// Turns a pattern and the host's transport into frame-timed MIDI, one block
/// at a time, to the sample (timing contract §2-§5).
///
/// Use it the way an LV2 `run()` walks its input: `beginBlock`, then for each
/// input event in time order `apply(_:atOffset:)` / `allNotesOff(atOffset:)`
/// (each renders everything before the event's frame, then applies it), then
/// `endBlock`. A new pattern is installed with `install` at a block start.
///
/// The renderer keeps a cursor on the next onset to play, so continuous play
/// costs O(1) per onset and per event, and a seek or a pattern swap costs
/// O(log n) - independent of the pattern's size and of how many times the loop
/// wraps within a block. Work per block is bounded: when the output is full or
/// the work bound is reached, the remaining onsets of the block are skipped in
/// O(log n) and counted (§6).
///
/// Thread: the audio thread owns it. Storage is allocated at `init`; every
/// other method is allocation-free, lock-free and `@_noLocks`.
public struct BlockRenderer: ~Copyable {
    /// Most note-ons one frame can hold after merging: one per slot.
    static var stagingCapacity: Int { NoteTracker.slotCount }

    public internal(set) var tracker = NoteTracker()
    /// The snapshot installed, if any: the text, all its patterns (§9).
    public private(set) var pattern: PatternSnapshot?
    public internal(set) var statistics = RenderStatistics()
    /// §9: which of its patterns plays, from where, and what is pending.
    public internal(set) var scene = SceneState()
    /// §12: MIDI clock out, driven by `clock` (off unless `setMIDIClock(enabled:)`).
    public private(set) var midiClock = MIDIClock()

    /// The next onset not yet played (while rolling with a pattern), of `scene.playing`.
    var cursor: OnsetCursor?
    /// §10: the controllers' memory, locks and next event.
    var controllers = ControllerState()
    /// §7.6: lanes muted by the `urn:tactus:laneMutes` parameter (bit i: lane i).
    public private(set) var parameterMutes: UInt64 = 0
    /// §7.6: lanes muted by the mute control ports (valid while `portMutesRead`).
    public private(set) var portMutes: UInt64 = 0
    /// The mute controls read lazily (`readPortMutes(from:)`), if a wrapper gave them.
    private var muteControls: MuteControls? = nil
    /// Whether `portMutes` holds this block's controls: a block reads them only
    /// when it plays an onset, so a block that plays none never touches them.
    @usableFromInline var portMutesRead = true
    /// §7.5: each lane's key-follow transpose in semitones (0 until a key arrives).
    private let laneTranspose: UnsafeMutablePointer<Int16>
    /// The host's transport (next to what every block reads: a host that
    /// reports every block has its clock read in every block).
    /// (These four are package-wide, so that the formats read them and the block
    /// cycle's inlinable entry points write them under one name.)
    @usableFromInline package var clock: TransportClock
    /// Absolute frame where the current block starts.
    @usableFromInline package var blockStartFrame: Int64 = 0
    /// Frames in the current block.
    @usableFromInline package var blockFrameCount = 0
    /// Absolute frame up to which output is final.
    @usableFromInline package var renderedFrame: Int64 = 0

    /// Note-ons of the frame being rendered, held back so that note-offs at the
    /// same frame (retriggers) go out first and merges can change their velocity.
    private let staging: UnsafeMutablePointer<MIDIEvent>
    private let stagingSlots: UnsafeMutablePointer<UInt16>
    var stagingCount = 0
    private var stagingFrame: Int64 = Int64.min
    @usableFromInline var workLeft = 0
    @usableFromInline var outputFull = false
    /// The end of the segment whose skip search found nothing to skip to (`skipOnsets`).
    private var fruitlessSkipEnd = Int64.min
    /// Nothing is due before this absolute frame: no note-off, no onset. Set
    /// when rendering stops for want of work, so that the blocks in between
    /// (most blocks, for most patterns) cost a comparison instead of two
    /// frame computations; `Int64.min` when not known. It holds while the
    /// clock's mapping from beats to frames, the tracker, the cursor and the
    /// pattern stay as they were, so whatever changes one of them resets it.
    var quietUntil = Int64.min

    /// A renderer for `sampleRate` frames per second (positive, finite), stopped, with no pattern.
    public init(sampleRate: Double) {
        clock = TransportClock(sampleRate: sampleRate)
        staging = .allocate(capacity: BlockRenderer.stagingCapacity)
        stagingSlots = .allocate(capacity: BlockRenderer.stagingCapacity)
        laneTranspose = .allocate(capacity: PatternSnapshot.maximumLaneCount)
        laneTranspose.initialize(repeating: 0, count: PatternSnapshot.maximumLaneCount)
    }

    deinit {
        staging.deallocate()
        stagingSlots.deallocate()
        laneTranspose.deallocate()
    }

    // MARK: - Block protocol

    /// Starts a block of `frameCount` frames; empties `output` (keeping its capacity).
    @_transparent @_noLocks
    public mutating func beginBlock(frameCount: Int, output: inout MIDIEventBuffer) {
        output.removeAll()
        blockStartFrame = renderedFrame
        blockFrameCount = frameCount > 0 ? frameCount : 0
        workLeft = BlockRenderer.onsetWorkBound(eventCapacity: output.capacity)
        outputFull = false
        portMutesRead = false
    }

    /// Renders everything before `offset` (frames into the block).
    @_noLocks
    public mutating func render(toOffset offset: Int, output: inout MIDIEventBuffer) {
        renderUntil(absoluteFrame(offset), output: &output)
    }

    /// Renders up to `offset`, then applies a position update there.
    @_noLocks @discardableResult @inline(__always)
    public mutating func apply(_ update: PositionUpdate, atOffset offset: Int, output: inout MIDIEventBuffer) -> TransportChange {
        let frame = absoluteFrame(offset)
        renderUntil(frame, output: &output)
        // A host that reports every block sends repeats nearly always: the quick
        // test takes them, inlined into the caller, and leaves every beat on its
        // frame (what is due stays due).
        if clock.applyIfCertainRepeat(update, atFrame: frame) { return .repeat }
        return applyInFull(update, atFrame: frame, output: &output)
    }

    /// §12.2-§12.4: the clock's Stop, SPP and Start/Continue at the update's
    /// frame, before the notes the update cuts or plays there (§12.6).
    @_noLocks @inline(never)
    private mutating func midiClockChanged(_ change: TransportChange, atFrame frame: Int64, output: inout MIDIEventBuffer) {
        midiClock.transportChanged(
            change, transport: clock, atFrame: frame, blockStart: blockStartFrame, output: &output, owedNoteOffs: tracker.count &+ stagingCount)
    }

    /// §12: turns the MIDI clock on or off at the frame rendered up to (call
    /// it at a block start, after `beginBlock`). Turned on while rolling it
    /// starts there (SPP, Start or Continue); off while running, it sends Stop.
    @_noLocks
    public mutating func setMIDIClock(enabled: Bool, output: inout MIDIEventBuffer) {
        setMIDIClock(enabled: enabled, atFrame: renderedFrame, output: &output)
    }

    /// §12, §11.4: renders up to `offset`, then turns the MIDI clock on or off
    /// there (a CLAP parameter event's frame), as `setMIDIClock(enabled:output:)`
    /// does at a block start.
    @_noLocks
    public mutating func setMIDIClock(enabled: Bool, atOffset offset: Int, output: inout MIDIEventBuffer) {
        guard enabled != midiClock.isEnabled else { return }
        let frame = absoluteFrame(offset)
        renderUntil(frame, output: &output)
        setMIDIClock(enabled: enabled, atFrame: frame, output: &output)
    }

    @_noLocks @inline(never)
    private mutating func setMIDIClock(enabled: Bool, atFrame frame: Int64, output: inout MIDIEventBuffer) {
        midiClock.setEnabled(
            enabled, transport: clock, atFrame: frame, blockStart: blockStartFrame, output: &output,
            owedNoteOffs: tracker.count &+ stagingCount)
    }

    /// §12: the clock messages due through absolute frame `last`, once the
    /// staged note-ons before it are out (so the order at one frame is §12.6's).
    @_noLocks @inline(never)
    private mutating func emitMIDIClock(through last: Int64, segmentStart: Int64, output: inout MIDIEventBuffer) {
        midiClock.emit(
            through: last, segmentStart: segmentStart, transport: clock, blockStart: blockStartFrame, output: &output,
            owedNoteOffs: tracker.count &+ stagingCount)
    }

    /// `apply` for a certain repeat at the frame rendered up to (a report at
    /// the block's first frame, as hosts that report every block send it):
    /// true when it applied the update, which `apply` would then have found a
    /// repeat with nothing to render first; false changes nothing (call
    /// `apply`). Inlinable: a wrapper's every-block path has it in line.
    @_transparent @_noLocks
    public mutating func applyIfCertainRepeat(_ update: PositionUpdate, atOffset offset: Int) -> Bool {
        // absoluteFrame's clamping: at or before what is rendered, the update acts
        // there (the block's start never lies after it: offset 0 needs no look).
        guard offset <= 0 || blockStartFrame &+ Int64(min(offset, blockFrameCount)) <= renderedFrame else { return false }
        return clock.applyIfCertainRepeat(update, atFrame: renderedFrame)
    }

    /// `apply` after the quick test said nothing: the update through the clock's exact path.
    @_noLocks @inline(never)
    private mutating func applyInFull(_ update: PositionUpdate, atFrame frame: Int64, output: inout MIDIEventBuffer) -> TransportChange {
        let before = clock
        let change = clock.applyInFull(update, atFrame: frame)
        // §10.3: a start of play and a jump forget the controller values sent, so the chase sends.
        if change == .start || change == .jump { controllers.clearMemory() }
        // §12.6: the clock's messages at the frame come before the notes the
        // update cuts or plays there (a switch's note-offs and program change too).
        if midiClock.isEnabled { midiClockChanged(change, atFrame: frame, output: &output) }
        if scene.isActive { return sceneApply(change, before: before, atFrame: frame, output: &output) }
        // A repeat at the same rate (a host that sends its position every
        // block) leaves every frame where it was: what is due stays due.
        if !BlockRenderer.placesFramesAlike(before, clock) { quietUntil = Int64.min }
        switch change {
        case .ignored:
            statistics.ignoredUpdates &+= 1
        case .stoppedUpdate, .repeat, .correction:
            break
        case .start:
            seek(.atOrAfterUpdate)
            quietUntil = Int64.min
        case .stop:
            cutAllNotes()
            clearCursors()
            quietUntil = Int64.min
        case .jump:
            cutAllNotes()
            seek(.atOrAfterUpdate)
            quietUntil = Int64.min
        }
        return change
    }

    /// Renders up to `offset`, then ends every sounding note there (CC 123 / CC 120).
    @_noLocks
    public mutating func allNotesOff(atOffset offset: Int, output: inout MIDIEventBuffer) {
        renderUntil(absoluteFrame(offset), output: &output)
        cutAllNotes()
        quietUntil = Int64.min
    }

    /// Renders up to `offset`, then applies `event`.
    @_noLocks
    public mutating func apply(_ event: TimedInputEvent, output: inout MIDIEventBuffer) {
        switch event.event {
        case .position(let update): apply(update, atOffset: event.offset, output: &output)
        case .allNotesOff: allNotesOff(atOffset: event.offset, output: &output)
        case .followKey(let channel, let key): followKey(channel: channel, key: key, atOffset: event.offset, output: &output)
        case .resetFollow(let channel): resetFollow(channel: channel, atOffset: event.offset, output: &output)
        case .laneMutes(let bits): setParameterMutes(bits, atOffset: event.offset, output: &output)
        }
    }

    /// §7.5: renders up to `offset`, then transposes every lane that follows
    /// input channel `channel` (1-16) by `key - root`. O(lanes), at most 64.
    @_noLocks
    public mutating func followKey(channel: UInt8, key: UInt8, atOffset offset: Int, output: inout MIDIEventBuffer) {
        renderUntil(absoluteFrame(offset), output: &output)
        guard let p = scene.playing else { return }
        for i in 0..<p.laneCount {
            let lane = p.lane(i)
            if lane.followRoot >= 0 && (lane.followChannel == 0 || lane.followChannel == channel) {
                laneTranspose[i] = Int16(key) - lane.followRoot
            }
        }
    }

    /// §7.5: renders up to `offset`, then clears the latched key of every lane
    /// that follows input channel `channel` (control change 121).
    @_noLocks
    public mutating func resetFollow(channel: UInt8, atOffset offset: Int, output: inout MIDIEventBuffer) {
        renderUntil(absoluteFrame(offset), output: &output)
        guard let p = scene.playing else { return }
        for i in 0..<p.laneCount {
            let lane = p.lane(i)
            if lane.followRoot >= 0 && (lane.followChannel == 0 || lane.followChannel == channel) { laneTranspose[i] = 0 }
        }
    }

    /// §7.6: renders up to `offset`, then mutes the lanes whose bits are set
    /// (the `urn:tactus:laneMutes` parameter). Sounding notes keep their note-offs.
    @_noLocks
    public mutating func setParameterMutes(_ bits: UInt64, atOffset offset: Int, output: inout MIDIEventBuffer) {
        renderUntil(absoluteFrame(offset), output: &output)
        parameterMutes = bits
    }

    /// §7.5, MIDI thru: renders up to `offset`, then passes an input note-on
    /// or note-off to the output at that frame, if the output has room beyond
    /// the note-offs owed to sounding notes (else it is dropped and counted).
    @_noLocks
    @discardableResult
    public mutating func passThrough(status: UInt8, data1: UInt8, data2: UInt8, atOffset offset: Int, output: inout MIDIEventBuffer) -> Bool {
        let frame = absoluteFrame(offset)
        renderUntil(frame, output: &output)
        guard output.count + tracker.count + 1 <= output.capacity else {
            statistics.droppedNoteOns &+= 1
            return false
        }
        return output.append(MIDIEvent(offset: frame &- blockStartFrame, status: status, data1: data1, data2: data2))
    }

    /// §7.6: the mute control ports' bits, read at a block start (call it
    /// right after `beginBlock`), for a wrapper that reads its controls itself.
    /// They hold until set again, unless `readPortMutes(from:)` gave controls.
    @_noLocks
    public mutating func setPortMutes(_ bits: UInt64) {
        portMutes = bits
        portMutesRead = true
    }

    /// §7.6: from now on the port mutes are `controls`' levels, read in each
    /// block before its first onset plays. A host changes no control during a
    /// block, so that is the value at the block's start; a block that plays
    /// no onset (nearly every block) does not read them at all.
    @_noLocks
    public mutating func readPortMutes(from controls: MuteControls) {
        muteControls = controls
        portMutesRead = false
    }

    @_noLocks @inline(never)
    mutating func readPortMutes() {
        portMutesRead = true
        if let muteControls { portMutes = muteControls.bits }
    }

    /// §7.5: the current transpose of lane `index`, for tests and display.
    @_noLocks
    public func transpose(ofLane index: Int) -> Int { Int(laneTranspose[index]) }

    /// Renders the rest of the block. The block's events are then in `output`.
    @_noLocks
    public mutating func endBlock(output: inout MIDIEventBuffer) {
        renderUntil(blockStartFrame &+ Int64(blockFrameCount), output: &output)
        if outputFull { statistics.overfullBlocks &+= 1 }
    }

    /// Makes `snapshot` the pattern from the current frame on (§5: call it at
    /// a block start). Sounding notes keep their note-offs. Returns the pattern
    /// it replaces, which the caller must free off the audio thread.
    @_noLocks
    public mutating func install(_ snapshot: PatternSnapshot?) -> PatternSnapshot? {
        let old = pattern
        pattern = snapshot
        scene.install(snapshot, at: clock.beat(atFrame: renderedFrame), rolling: clock.isRolling)
        clearCursors()
        // §7.5: a new pattern clears the latched keys.
        laneTranspose.update(repeating: 0, count: PatternSnapshot.maximumLaneCount)
        quietUntil = Int64.min
        if clock.isRolling { seek(.atOrAfterFrame(renderedFrame)) }
        return old
    }

    /// The host (re)activated the plugin: every sounding note ends (its
    /// note-off goes out at the start of the next block rendered) and the
    /// transport is forgotten, as LV2 asks of `activate`. On a fresh renderer
    /// it changes nothing.
    @_noLocks
    public mutating func activate() {
        cutAllNotes()
        clock.reset()
        scene.activate()
        midiClock.activate()
        clearCursors()
        controllers.clearMemory()
        laneTranspose.update(repeating: 0, count: PatternSnapshot.maximumLaneCount)
        quietUntil = Int64.min
    }

    // MARK: - Rendering

    /// Whether two clocks put every beat on the same frame (§3): the frames of
    /// what is due depend on nothing else of the clock.
    @_noLocks @inline(__always)
    private static func placesFramesAlike(_ a: TransportClock, _ b: TransportClock) -> Bool {
        a.isRolling == b.isRolling && a.anchorFrame == b.anchorFrame && a.anchorBeat == b.anchorBeat
            && a.framesPerBeat == b.framesPerBeat
    }

    /// The absolute frame of an input at `offset` frames into the block.
    /// Reading (f): an offset outside the block acts at its nearest frame (below
    /// 0 at the first, at or past the block's length at the last, so what the
    /// input sends there stays inside the block), and one before what is
    /// already rendered acts there (time never runs backwards).
    @_noLocks @inline(__always)
    func absoluteFrame(_ offset: Int) -> Int64 {
        let last = blockFrameCount > 0 ? blockFrameCount - 1 : 0
        let clamped = offset < 0 ? 0 : (offset > last ? last : offset)
        let frame = blockStartFrame &+ Int64(clamped)
        return frame < renderedFrame ? renderedFrame : frame
    }

    /// Renders everything due before the absolute frame `end`.
    @_noLocks @inline(__always)
    mutating func renderUntil(_ end: Int64, output: inout MIDIEventBuffer) {
        guard end > renderedFrame else { return }
        // §9.3: a switch due before `end` splits the rendering at its frame.
        if scene.hasPending && clock.isRolling { renderSwitches(before: end, output: &output) }
        if end <= quietUntil && !midiClock.needsRendering {
            // `renderDue` would find nothing due before `end` and stop at once.
            renderedFrame = end
            return
        }
        renderDue(until: end, output: &output)
    }

    /// Plays every note-off and onset due before `end`, in order (§5).
    @_noLocks
    mutating func renderDue(until end: Int64, output: inout MIDIEventBuffer) {
        let segmentStart = renderedFrame
        quietUntil = Int64.min
        var iterationsLeft = workLeft + BlockRenderer.segmentPassSlack
        while iterationsLeft > 0 {
            iterationsLeft -= 1
            var offFrame = Int64.max
            var offSlot = 0
            if !outputFull, let slot = tracker.first {
                offFrame = noteOffFrame(slot, notBefore: segmentStart)
                offSlot = slot
            }
            var onFrame = Int64.max
            if clock.isRolling, let c = cursor, let p = scene.playing {
                let f = clock.frame(of: c.beat(in: p) + scene.origin)
                onFrame = f < segmentStart ? segmentStart : f
            }
            // §10.6: at one frame, note-offs, then the chase and the controllers, then the note-ons.
            let (controlFrame, chase) = nextControlFrame(notBefore: segmentStart)
            if offFrame <= onFrame && offFrame <= controlFrame {
                guard offFrame < end else {
                    if !outputFull { quietUntil = offFrame }
                    break
                }
                if offFrame > stagingFrame { flushStaging(output: &output) }
                if midiClock.needsRendering { emitMIDIClock(through: offFrame, segmentStart: segmentStart, output: &output) }
                guard output.count + stagingCount < output.capacity else {
                    outputFull = true
                    continue
                }
                _ = output.append(.noteOff(offset: offFrame &- blockStartFrame, slot: offSlot))
                tracker.end(slot: offSlot)
                releaseLocks(slot: offSlot, atFrame: offFrame, output: &output)
            } else if controlFrame <= onFrame {
                guard controlFrame < end else {
                    if !outputFull { quietUntil = controlFrame }
                    break
                }
                if controlFrame > stagingFrame { flushStaging(output: &output) }
                if midiClock.needsRendering { emitMIDIClock(through: controlFrame, segmentStart: segmentStart, output: &output) }
                if chase {
                    chaseControls(at: controlFrame, output: &output)
                } else if outputFull || workLeft <= 0 {
                    skipControls(before: end)
                } else {
                    workLeft -= 1
                    playControl(at: controlFrame, output: &output)
                }
            } else {
                guard onFrame < end else {
                    if !outputFull { quietUntil = onFrame }
                    break
                }
                if outputFull || workLeft <= 0 {
                    skipOnsets(before: end)
                    continue
                }
                workLeft -= 1
                if onFrame > stagingFrame { flushStaging(output: &output) }
                if midiClock.needsRendering { emitMIDIClock(through: onFrame, segmentStart: segmentStart, output: &output) }
                playOnset(at: onFrame, output: &output)
            }
        }
        flushStaging(output: &output)
        if midiClock.needsRendering { emitMIDIClock(through: end &- 1, segmentStart: segmentStart, output: &output) }
        renderedFrame = end
    }

    /// The frame of the note-off of the note in `slot`: its beat's frame
    /// (§3), at once when cut, not before `floor`, and at least one frame
    /// after its note-on (§5).
    @_noLocks @inline(__always)
    func noteOffFrame(_ slot: Int, notBefore floor: Int64) -> Int64 {
        let note = tracker.note(slot)
        var f = floor
        if clock.isRolling && note.offBeat != NoteTracker.cutBeat {
            f = clock.frame(of: note.offBeat)
            if f < floor { f = floor }
        }
        if f <= note.onFrame { f = note.onFrame &+ 1 }
        return f
    }

    /// Onsets one block may examine one by one (contract §6, reading (h)):
    /// four for each event the output can hold, so that a full output is
    /// reached long before the bound in any real pattern, plus 4096 so that a
    /// small port still plays dense patterns. When it is spent, the block's
    /// remaining onsets are skipped with one O(log n) search and counted, so
    /// `run()` takes bounded time whatever the pattern, tempo or block size.
    @_noLocks @inline(__always)
    @inlinable static func onsetWorkBound(eventCapacity: Int) -> Int { 4 &* eventCapacity &+ 4096 }  // capacity <= storage: no overflow

    /// Passes of one segment's loop beyond the onsets it examines: its
    /// note-offs (a pass that finds the output full and one that plays, at
    /// most a tracker slot each) and its skip searches, with room to spare.
    static var segmentPassSlack: Int { 2 * NoteTracker.slotCount + 64 }

    /// Beats by which two split note-off beats must differ for their order to
    /// be certain: each carries at most a few ulps of a fraction below 1.
    static var splitBeatMargin: Double { 1e-12 }

    /// Plays the onset under the cursor at `frame` and advances the cursor.
    @_noLocks
    private mutating func playOnset(at frame: Int64, output: inout MIDIEventBuffer) {
        guard var c = cursor, let p = scene.playing else { return }
        let note = p.note(c.index)
        var slot = Int(note.slot)
        let offBeat = c.loopStart + note.end + scene.origin
        defer {
            cursor = c.advance(in: p) ? c : nil
        }
        if !portMutesRead { readPortMutes() }
        if p.hasChoices || (parameterMutes | portMutes) != 0 {
            // §7.6 mutes, §7.4 chance, §7.5 transpose: a note that does not
            // play in this pass is as if absent (no retrigger, no merge).
            let lane = Int(note.lane)
            if (parameterMutes | portMutes) & (1 << UInt64(lane)) != 0 { return }
            if note.chanceLimit != UInt64.max {
                let pass = c.loop &* note.passesPerCycle &+ note.passInCycle
                if !NoteChance.plays(chanceKey: note.chanceKey, limit: note.chanceLimit, pass: pass) { return }
            }
            let t = Int(laneTranspose[lane])
            if t != 0 {
                let key = (slot & 127) + t
                if key < 0 || key > 127 { return }
                slot += t
            }
        }
        if tracker.isSounding(slot) {
            let sounding = tracker.note(slot)
            if sounding.onFrame == frame {
                // Same key, same frame: played once, as the onset whose note-off is latest
                // (ties keep the earlier start, then the earlier line: the one already there).
                // Both came from this pattern: a swap happens only at a block start, before any onset.
                let later: Bool
                if sounding.loop == c.loop {
                    later = note.endRank > sounding.endRank
                } else {
                    // Across passes the split beats decide, unless they are too close for their
                    // rounding (below 1e-15 beat) to be ruled out: then the exact ends do.
                    let apart = offBeat.beats(since: sounding.offBeat)
                    later =
                        apart > BlockRenderer.splitBeatMargin
                        || (apart >= -BlockRenderer.splitBeatMargin
                            && p.endIsLater(c.index, loop: c.loop, than: Int(sounding.noteIndex), loop: sounding.loop))
                }
                if later {
                    tracker.replace(
                        slot: slot, offBeat: offBeat, loop: c.loop, endRank: note.endRank, noteIndex: Int32(c.index), velocity: note.velocity)
                    if sounding.stagedIndex >= 0 { staging[Int(sounding.stagedIndex)].data2 = note.velocity }
                }
                return
            }
        }
        // Each sounding note keeps a place for its note-off: admit a note-on
        // only if its own note-off will fit too.
        let locks = lockCount(ofNote: c.index, in: p)
        guard output.count + stagingCount + tracker.count + 2 + locks <= output.capacity else {
            statistics.droppedNoteOns &+= 1
            return
        }
        let offset = frame &- blockStartFrame
        if tracker.isSounding(slot) {
            // Retrigger: the sounding note ends just before the new one (§5).
            _ = output.append(.noteOff(offset: offset, slot: slot))
            tracker.end(slot: slot)
            releaseLocks(slot: slot, atFrame: frame, output: &output)
        }
        // §10.5: its locks, after the controllers of this frame, before its note-on.
        if locks > 0 { startLocks(ofNote: c.index, slot: slot, in: p, atFrame: frame, output: &output) }
        staging[stagingCount] = .noteOn(offset: offset, slot: slot, velocity: note.velocity)
        stagingSlots[stagingCount] = UInt16(slot)
        tracker.start(
            slot: slot, offBeat: offBeat, onFrame: frame, loop: c.loop, endRank: note.endRank, noteIndex: Int32(c.index), velocity: note.velocity,
            stagedIndex: Int32(stagingCount))
        stagingCount += 1
        stagingFrame = frame
    }

    @_noLocks
    private mutating func flushStaging(output: inout MIDIEventBuffer) {
        for i in 0..<stagingCount {
            _ = output.append(staging[i])
            tracker.setStagedIndex(Int(stagingSlots[i]), -1)
        }
        stagingCount = 0
    }

    /// Moves the cursor past every onset emitted before `end`, counting them as dropped.
    ///
    /// One search per segment: when it finds no onset past the cursor (beats
    /// beyond what a search can settle, as at absurd rates), the segment's
    /// remaining onsets are passed one at a time without searching again.
    /// Searching at each of them (up to 128 frame computations each, for every
    /// onset the work bound allows) made such a block cost a hundred times its
    /// bound; the run() fuzzer found it.
    @_noLocks
    private mutating func skipOnsets(before end: Int64) {
        guard var c = cursor, let p = scene.playing else { return }
        // `end` only grows from one segment to the next, so a search that came
        // to nothing for this `end` was made in this segment, for this cursor's run.
        if end != fruitlessSkipEnd {
            statistics.skipSearches &+= 1
            if let target = firstOnset(.atOrAfterFrame(end), in: p), c.isBefore(target) {
                statistics.droppedNoteOns &+= target.onsetCount(since: c, in: p)
                cursor = target
                return
            }
            fruitlessSkipEnd = end
        }
        statistics.droppedNoteOns &+= 1
        cursor = c.advance(in: p) ? c : nil
    }

    // MARK: - Seeking

    /// Which onsets remain after a seek.
    enum OnsetBound {
        /// §3: at or after the update's beat (`x > -1e-4`), after a start or a jump.
        case atOrAfterUpdate
        /// Emitted at or after a frame, after a pattern swap or a skip.
        case atOrAfterFrame(Int64)
        /// §9.4: at or after a beat, the boundary of a switch.
        case atOrAfterBeat(BeatPosition)
    }

    @_noLocks
    mutating func seek(_ bound: OnsetBound) {
        if let p = scene.playing { cursor = firstOnset(bound, in: p) } else { cursor = nil }
        seekControls(bound)
    }

    @_noLocks @inline(__always)
    func satisfies(_ beat: BeatPosition, _ bound: OnsetBound) -> Bool {
        switch bound {
        case .atOrAfterUpdate: return FrameRule.isAtOrAfterUpdate(exactOffset: clock.exactOffset(of: beat))
        case .atOrAfterFrame(let frame): return clock.frame(of: beat) >= frame
        case .atOrAfterBeat(let bound): return !(beat < bound)
        }
    }

    /// The first onset satisfying `bound` under the current clock (rolling). O(log n).
    @_noLocks
    private func firstOnset(_ bound: OnsetBound, in p: PatternSnapshot) -> OnsetCursor? {
        let approximateBeat: BeatPosition
        switch bound {
        case .atOrAfterUpdate:
            approximateBeat = clock.anchorBeat
        case .atOrAfterFrame(let frame):
            approximateBeat = clock.beat(atFrame: frame &- 1)
        case .atOrAfterBeat(let beat):
            approximateBeat = beat
        }
        // §9.1: the playing pattern's passes start at its origin.
        let origin = scene.origin
        guard var c = OnsetCursor.first(atOrAfter: approximateBeat - origin, in: p) else { return nil }
        // Settle the edge with the exact rule the emission uses, so that what
        // a seek keeps and what rendering plays can never disagree.
        var steps = 0
        while !satisfies(c.beat(in: p) + origin, bound), steps < OnsetCursor.fixUpLimit {
            guard c.advanceGroup(in: p) else { return nil }
            steps += 1
        }
        while steps < 2 * OnsetCursor.fixUpLimit, let previous = c.previousGroup(in: p),
            satisfies(previous.beat(in: p) + origin, bound)
        {
            c = previous
            steps += 1
        }
        return c
    }
}
