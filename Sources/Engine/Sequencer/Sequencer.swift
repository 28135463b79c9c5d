/// The sequencer engine: everything around one block, for every format.
///
/// It owns the renderer, the block's MIDI event buffer, the hand-over of
/// pattern snapshots (`SnapshotExchange`) and the slot for a pattern prepared
/// by a worker, and keeps what the control side is owed as a set. A format
/// wrapper (the LV2 `run()`, the JACK process callback) only translates: it
/// calls `beginBlock`, then `apply(_:atOffset:)` for each position report and
/// `receiveMIDI(_:thru:atOffset:)` for each MIDI message of its input, in
/// time order, then `endBlock` and writes `events` to its
/// port, then sends what `takeOwed()` returns. DPF's split: this type knows
/// nothing of LV2, JACK or files.
///
/// New patterns arrive two ways, both installed at the next block start (§5):
/// a worker's, passed on the audio thread with `receive(prepared:)` (LV2's
/// `work_response`), and a producer's, offered from a non-realtime thread
/// through `handOver` (`restore()`, the `tactus jack` prompt). When both wait,
/// the offered one wins: a restore replaces the whole state. The pattern each
/// replaces goes back through the exchange to be freed off the audio thread.
///
/// Threads: the audio thread owns the value; other threads reach only the
/// exchange, through `handOver`, which lives in its own allocation. Every
/// method of the block cycle is allocation-free, lock-free, O(1) apart from
/// the rendering it asks for (see `BlockRenderer`), and `@_noLocks`.
public struct Sequencer: ~Copyable {
    /// The renderer: clock, note tracker, the pattern playing, statistics.
    /// Package-wide, so that the formats read it and the block cycle's
    /// inlinable entry points write it under one name.
    @usableFromInline package var renderer: BlockRenderer
    /// The block's events, in frame order, after `endBlock`.
    @usableFromInline var output: MIDIEventBuffer
    /// Shared with the non-realtime side (see `handOver`).
    @usableFromInline let exchange: UnsafeMutablePointer<SnapshotExchange>
    /// A worker's pattern, installed at the next block start.
    @usableFromInline var prepared: PatternSnapshot? = nil
    @usableFromInline var owed = OwedNotifications()
    /// The dropped note-on count the control side has last been told.
    @usableFromInline var reportedDrops: Int64 = 0
    /// The scene (§9) the control side has last been told (`.scene`).
    @usableFromInline var reportedScene = SceneReport()
    /// The lane mutes parameter (§7.6) the control side has last been told (`.laneMutes`).
    @usableFromInline var reportedLaneMutes: UInt64 = 0
    /// The last error a person should see ("Last error" in a host's generic
    /// UI), composed without allocating; emptied when a pattern is accepted.
    public var lastError = FixedText(capacity: Sequencer.errorCapacity)
    /// The editor's auditioned note (§8.1).
    @usableFromInline var audition = Audition()
    private let auditionFrames: Int64
    /// Frames of the block begun last (the audition's countdown runs by whole blocks).
    @usableFromInline var blockFrames = 0
    /// Whether an editor wants the playhead (§8.2).
    @usableFromInline var editorLease: EditorLease
    /// §9.6: the `pattern` control's last value, and the last Bank Select MSB a program trigger heard.
    @usableFromInline var patternControl = 0
    @usableFromInline var triggerBank: UInt8 = 0

    /// Bytes of `lastError` (longer messages are cut off).
    public static var errorCapacity: Int { @_noLocks get { 1024 } }

    /// A stopped sequencer at `sampleRate` frames per second (positive,
    /// finite) playing `pattern`, whose ticket it takes; room for
    /// `eventCapacity` events a block. Allocates: call it off the audio thread.
    public init(sampleRate: Double, eventCapacity: Int, pattern: PatternSnapshot?, snapshotBudget: Int = SnapshotExchange.defaultBudget) {
        renderer = BlockRenderer(sampleRate: sampleRate)
        auditionFrames = Audition.duration(sampleRate: sampleRate)
        editorLease = EditorLease(sampleRate: sampleRate)
        output = MIDIEventBuffer(storageCapacity: eventCapacity)
        exchange = .allocate(capacity: 1)
        exchange.initialize(to: SnapshotExchange(budget: snapshotBudget))
        if let pattern {
            _ = exchange.pointee.reserve()
            _ = renderer.install(pattern)
        }
    }

    /// Frees every snapshot it holds (playing, prepared, waiting, retired).
    /// Off the audio thread, once nothing else uses `handOver`.
    deinit {
        renderer.pattern?.destroy()
        prepared?.destroy()
        exchange.deinitialize(count: 1)
        exchange.deallocate()
    }

    /// The exchange, for the non-realtime threads: `offer` (one producer),
    /// `reclaim` (one reclaimer), `reserve`/`release`. Valid while the
    /// sequencer lives.
    public var handOver: UnsafePointer<SnapshotExchange> { @_noLocks get { UnsafePointer(exchange) } }

    /// The most events a block can hold (the storage; a port may lower it per block).
    public var eventStorageCapacity: Int {
        @_noLocks get { output.storageCapacity }
    }

    // MARK: - The block cycle (audio thread)

    /// Starts a block of `frameCount` frames whose output port holds at most
    /// `eventCapacity` events, installing first what was prepared or offered
    /// (§5). Returns the snapshot offered through `handOver` that it
    /// installed, if one was (a JACK journal records it). In line in the
    /// wrappers (a few checks and stores in nearly every block).
    @_transparent @_noLocks @discardableResult
    public mutating func beginBlock(frameCount: Int, eventCapacity: Int) -> PatternSnapshot? {
        var installed: PatternSnapshot? = nil
        // Nearly every block has nothing to install: found out without a call.
        if prepared != nil || exchange.pointee.hasPending { installed = installPrepared() }
        // A block of no frames has no frame to put an event at: it holds none, so
        // what would go out there is handled as a full output is (reading (g)).
        output.reset(capacity: frameCount > 0 ? eventCapacity : 0)
        renderer.beginBlock(frameCount: frameCount, output: &output)
        if audition.isSounding { endAuditionIfDue() }
        blockFrames = frameCount
        return installed
    }

    /// Renders up to `offset` (frames into the block), then applies a position report there (§1-§4).
    @_noLocks @discardableResult @inline(__always)
    public mutating func apply(_ update: PositionUpdate, atOffset offset: Int) -> TransportChange {
        let change = renderer.apply(update, atOffset: offset, output: &output)
        if change != .repeat && change != .ignored { editorLease.transportChanged() }
        return change
    }

    /// `apply` for a certain repeat (§4) at the block's first frame, nothing
    /// else: true when it applied `update`, which `apply` would then have
    /// found a repeat; false changes nothing (call `apply`). Inlinable, so that
    /// the position a host repeats every block costs no call and no copy.
    @_transparent @_noLocks
    public mutating func applyIfCertainRepeat(_ update: PositionUpdate, atOffset offset: Int) -> Bool {
        renderer.applyIfCertainRepeat(update, atOffset: offset)
    }

    /// Renders everything before `offset` (frames into the block) without
    /// applying anything: what has been rendered is then final in `events`.
    @_noLocks
    public mutating func render(toOffset offset: Int) {
        renderer.render(toOffset: offset, output: &output)
    }

    /// Renders up to `offset`, then ends every sounding note there (CC 123 / CC 120, §5).
    @_noLocks
    public mutating func allNotesOff(atOffset offset: Int) {
        renderer.allNotesOff(atOffset: offset, output: &output)
        if audition.isSounding { endAudition(atOffset: offset) }
    }

    /// Renders up to `offset`, then applies a version-2 input there: a
    /// key-follow note-on or CC 121 (§7.5), or the lane-mutes parameter (§7.6).
    @_noLocks
    public mutating func apply(_ event: InputEvent, atOffset offset: Int) {
        renderer.apply(TimedInputEvent(offset: offset, event: event), output: &output)
    }

    /// §9.2: renders up to `offset`, then requests pattern `number` (1-based)
    /// there, on `grid` (the text's `switch` grid when nil).
    @_noLocks
    public mutating func request(pattern number: Int, grid: SwitchSettings.Grid? = nil, atOffset offset: Int) {
        renderer.request(pattern: number, grid: grid, atOffset: offset, output: &output)
    }

    /// §9.5: the `song` control at `offset` (a block start for a control port).
    @_noLocks
    public mutating func setSongEnabled(_ on: Bool, atOffset offset: Int) {
        renderer.setSongEnabled(on, atOffset: offset, output: &output)
    }

    /// §9.6: the `pattern` control input at a block start (or, for a CLAP
    /// parameter, at its event's frame, §11.4): a change to `k >= 1`
    /// requests pattern `k` there.
    @_noLocks
    public mutating func setPatternControl(_ value: Float, atOffset offset: Int = 0) {
        let k = value.isFinite ? Int(max(0, min(128, value + 0.5))) : 0
        if k != patternControl {
            patternControl = k
            if k >= 1 { renderer.request(pattern: k, atOffset: offset, output: &output) }
        }
    }

    /// §9: the pattern playing (1-based; 0: none) and the one queued (0: none).
    public var playingPattern: Int { @_noLocks get { renderer.scene.playingNumber } }
    public var queuedPattern: Int { @_noLocks get { renderer.scene.queuedNumber } }

    /// §9: what a host or an editor shows (the pattern playing, the one
    /// queued and its boundary, the song entry), as it stands now.
    public var scene: SceneReport { @_noLocks get { renderer.scene.report } }

    /// §9.6: requests ignored so far (for a pattern that does not exist, or while the song plays).
    public var ignoredRequests: Int64 { @_noLocks get { renderer.statistics.ignoredRequests } }

    /// §7.5 MIDI thru: renders up to `offset`, then passes an input note there.
    @_noLocks
    public mutating func passThrough(status: UInt8, data1: UInt8, data2: UInt8, atOffset offset: Int) {
        renderer.passThrough(status: status, data1: data1, data2: data2, atOffset: offset, output: &output)
    }

    /// A MIDI message on the control input, read the one way every format
    /// reads it (§5, §7.5, §9.6): CC 123 or CC 120 ends every sounding note at
    /// `offset`; with a text of several patterns, a message its triggers hear
    /// requests a pattern (a trigger key's note-off and a Bank Select MSB are
    /// taken too, and none of them passes through); a note-on (velocity > 0)
    /// or CC 121 acts on the lanes that follow the key; with `thru`, any other
    /// note-on or note-off is also passed on (§7.5 MIDI thru). `message` is
    /// the message's bytes as the host gave them: one too short for its kind
    /// is passed over (a program change has 2). Renders up to `offset` first.
    /// Returns what the message did (a JACK journal records it).
    @_noLocks @discardableResult
    public mutating func receiveMIDI(_ message: UnsafeRawBufferPointer, thru: Bool = false, atOffset offset: Int) -> MIDIInput.Effect {
        guard message.count >= 2 else { return .none }
        let status = message[0], data1 = message[1]
        if MIDIInput.isAllNotesOff(status: status, data1: data1) {
            allNotesOff(atOffset: offset)
            return .allNotesOff
        }
        guard message.count >= 3 || status & 0xF0 == 0xC0 else { return .none }
        let data2 = message.count >= 3 ? message[2] : 0
        if let s = renderer.pattern, s.partCount > 1 {
            let t = s.triggers
            let number = MIDIInput.requestedPattern(status: status, data1: data1, data2: data2, triggers: t, bankMSB: &triggerBank)
            if number > 0 {
                request(pattern: number, atOffset: offset)
                return .trigger
            }
            if MIDIInput.isTriggerNote(status: status, key: data1, triggers: t)
                || MIDIInput.isBankSelect(status: status, data1: data1, triggers: t)
            {
                return .trigger
            }
        }
        guard message.count >= 3 else { return .none }
        var effect = MIDIInput.Effect.none
        if let follow = MIDIInput.followEvent(status: status, data1: data1, data2: data2) {
            apply(follow, atOffset: offset)
            effect = .follow
        }
        if thru, status & 0xE0 == 0x80 {  // note-off (8n) or note-on (9n)
            passThrough(status: status, data1: data1, data2: data2, atOffset: offset)
        }
        return effect
    }

    /// §8.1: the editor auditions `key` (0-127) at `velocity` (1-127) on
    /// `channel` (1-16) at `offset`, heard only while the transport is
    /// stopped. Returns whether the note-on went out (not while rolling, not
    /// without room).
    @_noLocks @discardableResult
    public mutating func audition(key: UInt8, velocity: UInt8, channel: UInt8, atOffset offset: Int) -> Bool {
        guard !renderer.clock.isRolling, key < 128, velocity > 0, velocity < 128, channel >= 1, channel <= 16 else { return false }
        if audition.isSounding { endAudition(atOffset: offset) }
        let on = renderer.passThrough(status: 0x90 | (channel &- 1), data1: key, data2: velocity, atOffset: offset, output: &output)
        guard on else { return false }
        audition.isSounding = true
        audition.noteOffStatus = 0x80 | (channel &- 1)
        audition.key = key
        audition.framesLeft = Int64(offset) &+ auditionFrames
        return true
    }

    /// §8.2: an editor opened, or renewed its lease. A new lease is owed
    /// the scene (§9.9) and the lane mutes (§7.6), so that an editor opened
    /// later shows what plays, from where, and which lanes are muted.
    @_noLocks
    public mutating func editorOpened() {
        if !editorLease.isOpen {
            owed.insert(.scene)
            owed.insert(.laneMutes)
        }
        editorLease.open()
    }

    /// §7.6: the `urn:tactus:laneMutes` parameter as it stands (bit i: lane
    /// i), what an editor is told with `.laneMutes`. A wrapper that keeps
    /// some lanes elsewhere (the CLAP plugin's eight mute parameters) masks them.
    public var laneMutes: UInt64 { @_noLocks get { renderer.parameterMutes } }

    /// §8.2: the editor closed.
    @_noLocks
    public mutating func editorClosed() {
        editorLease.close()
    }

    /// §8.2: the clock at the first frame after the block (after `endBlock`).
    public var playhead: Playhead {
        @_noLocks get {
            let clock = renderer.clock
            let end = renderer.blockStartFrame &+ Int64(renderer.blockFrameCount)
            return Playhead(
                beat: clock.beat(atFrame: end).approximateValue, beatsPerMinute: clock.beatsPerMinute,
                speed: clock.isRolling ? clock.speed : 0, beatsPerBar: clock.beatsPerBar)
        }
    }

    /// §7.6: the mute control ports' bits for this block (call after `beginBlock`).
    @_noLocks
    public mutating func setPortMutes(_ bits: UInt64) {
        renderer.setPortMutes(bits)
    }

    /// §7.6: the mute controls the renderer reads itself from now on, in
    /// each block that plays an onset, before the first (call it off the audio
    /// thread, before the first block; see `MuteControls`).
    @_noLocks
    public mutating func readPortMutes(from controls: MuteControls) {
        renderer.readPortMutes(from: controls)
    }

    /// §12: turns the MIDI clock on or off at the block's start (call it
    /// right after `beginBlock`; off by default). Its messages go to `events`
    /// with the notes, in frame order (`MIDIEvent.isSystemMessage` tells them).
    @_noLocks
    public mutating func setMIDIClock(enabled: Bool) {
        renderer.setMIDIClock(enabled: enabled, output: &output)
    }

    /// §12 in a CLAP plugin (§11.4): renders up to `offset`, then turns the
    /// MIDI clock on or off at that frame (a `clock` parameter event's time).
    @_noLocks
    public mutating func setMIDIClock(enabled: Bool, atOffset offset: Int) {
        renderer.setMIDIClock(enabled: enabled, atOffset: offset, output: &output)
    }

    /// Renders the rest of the block; its events are then in `events`.
    @_noLocks
    public mutating func endBlock() {
        renderer.endBlock(output: &output)
    }

    /// The block's events in frame order (offsets into the block), valid until the next `beginBlock`.
    public var events: UnsafeBufferPointer<MIDIEvent> {
        @_noLocks get { output.events }
    }

    /// What the control side is owed now, cleared: the wrapper sends it at
    /// the end of the block. Includes `.droppedNoteOns` whenever the count
    /// changed since `droppedNoteOnsReported` was last called, and `.scene`
    /// whenever `scene` changed since the last `takeOwed` that returned it
    /// (a wrapper that finds no room for it owes it again with `owe(.scene)`),
    /// and `.laneMutes` whenever `laneMutes` changed since the last `takeOwed`
    /// that returned it (likewise).
    @_noLocks
    public mutating func takeOwed() -> OwedNotifications {
        var result = owed
        owed = OwedNotifications()
        if editorLease.endBlock(frameCount: blockFrames, rolling: renderer.clock.isRolling) { result.insert(.playhead) }
        if renderer.statistics.droppedNoteOns != reportedDrops { result.insert(.droppedNoteOns) }
        let now = renderer.scene.report
        if now != reportedScene {
            result.insert(.scene)
            reportedScene = now
        }
        if renderer.parameterMutes != reportedLaneMutes {
            result.insert(.laneMutes)
            reportedLaneMutes = renderer.parameterMutes
        }
        return result
    }

    /// True when `takeOwed` would return nothing and change nothing (nothing
    /// owed, no editor's lease, the dropped count told, the scene and the lane mutes as told):
    /// a wrapper skips the call then, as in nearly every block. Inlinable: a
    /// few loads, no call.
    public var owesNothing: Bool {
        @_transparent @_noLocks get {
            owed.isEmpty && !editorLease.isOpen && renderer.statistics.droppedNoteOns == reportedDrops
                && renderer.scene.report == reportedScene && renderer.parameterMutes == reportedLaneMutes
        }
    }

    /// Adds to what is owed (a `patch:Get`, an error found by the wrapper).
    @_noLocks
    public mutating func owe(_ notifications: OwedNotifications) {
        owed.formUnion(notifications)
    }

    /// The wrapper told the control side this dropped note-on count.
    @_noLocks
    public mutating func droppedNoteOnsReported(_ count: Int64) {
        reportedDrops = count
    }

    /// Replaces the last error with `message` and owes it.
    @_noLocks
    public mutating func report(_ message: UnsafeRawBufferPointer) {
        lastError.clear()
        lastError.append(message)
        owed.insert(.error)
    }

    /// Replaces the last error with `message` and owes it.
    @_noLocks
    public mutating func report(_ message: StaticString) {
        lastError.clear()
        lastError.append(message)
        owed.insert(.error)
    }

    /// A worker's new pattern (owned by the sequencer from now on), installed
    /// at the next block start; one prepared earlier and not yet installed is
    /// retired unplayed. The pattern was accepted: an error shown from an
    /// earlier attempt is cleared (a later rejection, reported after this
    /// call, stays).
    @_noLocks
    public mutating func receive(prepared snapshot: PatternSnapshot) {
        if let older = prepared { retire(older) }
        prepared = snapshot
        clearError()
    }

    /// The host (re)activated the plugin (LV2 `activate`, where eg-metro
    /// resets): every note still sounding ends at the first frame of the next
    /// block rendered, an auditioned note's too, and the transport is
    /// forgotten (timing contract, reading (e)). On a fresh sequencer it
    /// changes nothing, so activating twice is harmless.
    @_noLocks
    public mutating func activate() {
        renderer.activate()
        // Its note-off goes out with the renderer's, at the next block start.
        audition.framesLeft = 0
    }

    // MARK: - Audition

    /// At a block start (§8.1): the auditioned note ends once its time is up or the transport rolls.
    @usableFromInline @_noLocks
    mutating func endAuditionIfDue() {
        audition.framesLeft &-= Int64(blockFrames)
        if audition.framesLeft <= 0 || renderer.clock.isRolling { endAudition(atOffset: 0) }
    }

    @_noLocks
    private mutating func endAudition(atOffset offset: Int) {
        // A note-off is owed room like the tracker's: passThrough only drops when
        // the block's storage is full, and then the next block start tries again.
        if renderer.passThrough(status: audition.noteOffStatus, data1: audition.key, data2: 0, atOffset: offset, output: &output) {
            audition.isSounding = false
        } else {
            audition.framesLeft = 0
        }
    }

    // MARK: - Installing

    /// The prepared pattern, then an offered one, which wins when both wait.
    @usableFromInline @_noLocks
    mutating func installPrepared() -> PatternSnapshot? {
        if let snapshot = prepared {
            prepared = nil
            install(snapshot)
            // A host saves the new state; a file chooser shows the file now in use
            // (sent only when the pattern came from a file).
            owed.insert(.stateChanged)
            owed.insert(.pattern)
            owed.insert(.patternFile)
        }
        guard let snapshot = exchange.pointee.takePending() else { return nil }
        install(snapshot)
        owed.insert(.pattern)
        clearError()
        return snapshot
    }

    @_noLocks
    private mutating func install(_ snapshot: PatternSnapshot) {
        if let old = renderer.install(snapshot) { retire(old) }
    }

    /// A pattern was accepted: an error shown from an earlier attempt is stale,
    /// and hosts that show the last error (jalv.gtk3) are sent an empty one.
    @_noLocks
    private mutating func clearError() {
        if lastError.bytes.count > 0 {
            lastError.clear()
            owed.insert(.error)
        }
    }

    @_noLocks
    private mutating func retire(_ snapshot: PatternSnapshot) {
        exchange.pointee.retire(snapshot)
        owed.insert(.reclaim)
    }
}
