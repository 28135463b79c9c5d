import CLV2

extension Plugin {
    /// `run()`: the eg-metro pattern. Install a pattern the worker or a restore
    /// prepared (block start, §5); walk the control input in time order,
    /// rendering up to each event and then applying it; write the block's MIDI;
    /// send what the notify port owes.
    @_noLocks
    func run(frameCount: Int) {
        let a = audio
        let u = uris
        // Nearly every block has no pattern to install and owes no
        // notification: both are found out here, without a call, as an idle
        // block's cost is mostly such overheads.
        if a.pointee.unretired.count > 0 || a.pointee.incoming != nil || shared.pointee.exchange.hasPending {
            installPreparedPattern()
        }

        var midiOut = AtomSequenceWriter(a.pointee.midiPort, sequenceType: u.pointee.atomSequence)
        var notifyOut = AtomSequenceWriter(a.pointee.notifyPort, sequenceType: u.pointee.atomSequence)
        // Each note-on and note-off is a 3-byte MIDI event: the port's free space bounds the block's events.
        // A connected port with less room than a sequence header holds no event: note-offs then wait
        // for room and note-ons are dropped (reading (g)); only an unconnected port plays to nowhere.
        midi.pointee.reset(capacity: a.pointee.midiPort == nil ? midi.pointee.storageCapacity : midiOut.room(forBodiesOf: 3))
        a.pointee.renderer.beginBlock(frameCount: frameCount, output: &midi.pointee)

        var input = AtomSequenceReader(a.pointee.controlPort, sequenceType: u.pointee.atomSequence)
        while let event = input.next() {
            let offset = event.frames < 0 ? 0 : (event.frames > Int64(frameCount) ? frameCount : Int(event.frames))
            if event.atom.type == u.pointee.midiEvent {
                if event.atom.size >= 2,
                    MIDIInput.isAllNotesOff(
                        status: event.atom.body.load(as: UInt8.self), data1: event.atom.body.load(fromByteOffset: 1, as: UInt8.self))
                {
                    a.pointee.renderer.allNotesOff(atOffset: offset, output: &midi.pointee)
                }
            } else if var object = AtomObjectReader(event.atom, uris: u) {
                if object.objectType == u.pointee.timePosition {
                    a.pointee.renderer.apply(decodePosition(&object), atOffset: offset, output: &midi.pointee)
                } else if object.objectType == u.pointee.patchSet {
                    patchSet(&object)
                } else if object.objectType == u.pointee.patchGet {
                    patchGet(&object)
                }
            }
        }
        a.pointee.renderer.endBlock(output: &midi.pointee)

        for e in midi.pointee.events {
            _ = midiOut.appendMIDI(frames: e.offset, type: u.pointee.midiEvent, e.status, e.data1, e.data2)
        }
        let owed = a.pointee.notifications
        if owed.error || owed.stateChanged || owed.pattern || owed.patternFile || owed.droppedNoteOns
            || a.pointee.renderer.statistics.droppedNoteOns != a.pointee.reportedDrops
        {
            sendNotifications(&notifyOut)
        }
    }

    /// At a block start: the worker's pattern, then a restored one, which wins
    /// when both are waiting (a restore replaces the whole state; `save()`
    /// stores whichever the non-realtime side accepted last).
    @_noLocks
    func installPreparedPattern() {
        let a = audio
        while let s = a.pointee.unretired.pop() {
            if !shared.pointee.exchange.retire(s) {
                a.pointee.unretired.push(s)
                break
            }
        }
        if let snapshot = a.pointee.incoming {
            a.pointee.incoming = nil
            if let old = a.pointee.renderer.install(snapshot) { retire(old) }
            a.pointee.notifications.stateChanged = true
            a.pointee.notifications.pattern = true
            // A file chooser shows the file now in use (sent only when the pattern came from a file).
            a.pointee.notifications.patternFile = true
        }
        let playing = a.pointee.renderer.pattern != nil
        if let snapshot = shared.pointee.exchange.takePending(replacing: playing) {
            if let old = a.pointee.renderer.install(snapshot) { retire(old) }
            a.pointee.notifications.pattern = true
        }
    }

    /// A `time:Position` as the core reads it: every key as a number; a key of
    /// another type, or too short for its type, makes the whole update ignored (§6).
    @_noLocks
    func decodePosition(_ object: inout AtomObjectReader) -> PositionUpdate {
        let u = uris.pointee
        var update = PositionUpdate()
        while let (key, value) = object.next() {
            let isPositionKey =
                key == u.timeFrame || key == u.timeSpeed || key == u.timeBar || key == u.timeBarBeat || key == u.timeBeat
                || key == u.timeBeatsPerBar || key == u.timeBeatsPerMinute || key == u.timeBeatUnit
            guard isPositionKey else { continue }  // Unknown keys are ignored.
            guard let number = value.number(uris) else {
                update.hasInvalidKey = true
                continue
            }
            if key == u.timeFrame { update.frame = number }
            else if key == u.timeSpeed { update.speed = number }
            else if key == u.timeBar { update.bar = number }
            else if key == u.timeBarBeat { update.barBeat = number }
            else if key == u.timeBeat { update.beat = number }
            else if key == u.timeBeatsPerBar { update.beatsPerBar = number }
            else if key == u.timeBeatsPerMinute { update.beatsPerMinute = number }
        }
        return update
    }

    /// `patch:Set` of a pattern or a pattern file: handed to the worker (never parsed here).
    @_noLocks
    func patchSet(_ object: inout AtomObjectReader) {
        let u = uris.pointee
        var property: LV2_URID? = nil
        var value: AtomView? = nil
        while let (key, v) = object.next() {
            if key == u.patchProperty { property = v.urid(uris) }
            else if key == u.patchValue { value = v }
        }
        guard let property else { return }
        if property == u.pattern {
            guard let value, value.type == u.atomString || value.type == u.atomChunk else {
                reportError("pattern edit rejected: urn:tactus:pattern takes an atom:String with the pattern text")
                return
            }
            requestWork(kind: WorkRequest.patternText, payload: value.textBytes())
        } else if property == u.patternFile {
            guard let value, value.type == u.atomPath || value.type == u.atomString, value.textBytes().count > 0 else {
                reportError("pattern file rejected: urn:tactus:patternFile takes an atom:Path to a file")
                return
            }
            requestWork(kind: WorkRequest.patternFile, payload: value.textBytes())
        }
    }

    /// `patch:Get`: the answer is prepared off this thread (the snapshot's own text)
    /// and only copied here.
    @_noLocks
    func patchGet(_ object: inout AtomObjectReader) {
        let u = uris.pointee
        var property: LV2_URID? = nil
        while let (key, v) = object.next() {
            if key == u.patchProperty { property = v.urid(uris) }
        }
        let a = audio
        // No property: every parameter (the last error only when asked for by name).
        if property == nil || property == u.pattern { a.pointee.notifications.pattern = true }
        if property == nil || property == u.patternFile { a.pointee.notifications.patternFile = true }
        if property == nil || property == u.droppedNoteOns { a.pointee.notifications.droppedNoteOns = true }
        if property == u.error { a.pointee.notifications.error = true }
    }

    /// Everything owed on the notify port, at the start of the block.
    @_noLocks
    func sendNotifications(_ out: inout AtomSequenceWriter) {
        let a = audio
        let u = uris
        if a.pointee.notifications.error {
            _ = out.appendPatchSet(frames: 0, uris: u, property: u.pointee.error, valueType: u.pointee.atomString, bytes: a.pointee.error.bytes)
        }
        if a.pointee.notifications.stateChanged {
            _ = out.appendObject(frames: 0, uris: u, objectType: u.pointee.stateChanged)
        }
        if let pattern = a.pointee.renderer.pattern {
            if a.pointee.notifications.pattern {
                let text = UnsafeRawBufferPointer(pattern.text)
                if !out.appendPatchSet(frames: 0, uris: u, property: u.pointee.pattern, valueType: u.pointee.atomString, bytes: text),
                    out.isConnected
                {
                    a.pointee.error.clear()
                    a.pointee.error.append("the pattern text (")
                    a.pointee.error.append(text.count)
                    a.pointee.error.append(" bytes) does not fit the notify port; it is in the saved state")
                    _ = out.appendPatchSet(frames: 0, uris: u, property: u.pointee.error, valueType: u.pointee.atomString, bytes: a.pointee.error.bytes)
                }
            }
            if a.pointee.notifications.patternFile, let source = pattern.source {
                _ = out.appendPatchSet(frames: 0, uris: u, property: u.pointee.patternFile, valueType: u.pointee.atomPath, bytes: UnsafeRawBufferPointer(source))
            }
        }
        let drops = a.pointee.renderer.statistics.droppedNoteOns
        if drops != a.pointee.reportedDrops || a.pointee.notifications.droppedNoteOns {
            if out.appendPatchSet(frames: 0, uris: u, property: u.pointee.droppedNoteOns, long: drops) {
                a.pointee.reportedDrops = drops
            }
        }
        a.pointee.notifications = PendingNotifications()
    }
}
