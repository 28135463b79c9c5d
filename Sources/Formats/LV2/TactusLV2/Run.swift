import CLV2
import LV2Atoms
import TactusEngine
import TactusModel

extension Plugin {
    /// `run()`: the eg-metro pattern. The sequencer installs a pattern the
    /// worker or a restore prepared (block start, §5); walk the control input
    /// in time order, letting it render up to each event and then apply it
    /// (the two inputs of nearly every block are read by the fast path,
    /// `RepeatedPosition.swift`); write the block's MIDI; send what the notify port owes. Inlined into
    /// the exported `tactus_run`, so that a block costs one call.
    @_noLocks @inline(__always)
    func run(frameCount: Int) {
        let a = audio
        let u = uris
        var midiOut = AtomSequenceWriter(a.pointee.midiPort, sequenceType: u.pointee.atomSequence)
        var notifyOut = AtomSequenceWriter(a.pointee.notifyPort, sequenceType: u.pointee.atomSequence)
        // Each note-on and note-off is a 3-byte MIDI event (a clock message takes as much room): the port's free space bounds the block's events.
        // A connected port with less room than a sequence header holds no event: note-offs then wait
        // for room and note-ons are dropped (reading (g)); only an unconnected port plays to nowhere.
        let room = a.pointee.midiPort == nil ? a.pointee.sequencer.eventStorageCapacity : midiOut.room(forBodiesOf: 3)
        a.pointee.sequencer.beginBlock(frameCount: frameCount, eventCapacity: room)
        // §12: the `clock` toggle, read at the block's start (nothing changes while it stays).
        a.pointee.sequencer.setMIDIClock(enabled: (a.pointee.clockPort?.pointee ?? 0) >= 0.5)
        if a.pointee.preparedSequence != 0 {
            // beginBlock installs a worker's pattern at once: its edit number now describes what plays.
            a.pointee.installedSequence = a.pointee.preparedSequence
            a.pointee.preparedSequence = 0
        }

        // §7.6: the lanes past 8 a restored state mutes, from the block's first frame (as its pattern).
        if let restored = shared.pointee.laneMutes.pointee.takeRestored() {
            a.pointee.sequencer.apply(.laneMutes(restored), atOffset: 0)
        }

        // §9.5, §9.6: the song and pattern controls, as they stand at the block's start.
        if let song = a.pointee.songPort { a.pointee.sequencer.setSongEnabled(song.pointee >= 0.5, atOffset: 0) }
        if let pattern = a.pointee.patternPort { a.pointee.sequencer.setPatternControl(pattern.pointee) }

        // Nearly every block's input is nothing at all, or (from a host that reports
        // every block, such as Carla) its position laid out as before: the fast path.
        if !readRepeatedPosition(frameCount: frameCount) { readControlInput(frameCount: frameCount) }
        a.pointee.sequencer.endBlock()

        // Notes and, with `clock` on, the clock's messages (one byte, or three for a Song Position Pointer).
        for e in a.pointee.sequencer.events {
            _ = midiOut.appendMIDI(frames: e.offset, type: u.pointee.midiEvent, e.status, e.data1, e.data2, byteCount: e.byteCount)
        }
        if !a.pointee.sequencer.owesNothing {
            let owed = a.pointee.sequencer.takeOwed()
            if !owed.isEmpty { send(owed, to: &notifyOut) }
        }
        // §9: what plays and what waits, for a host's display of its output controls.
        if let playing = a.pointee.playingPort { playing.pointee = Float(a.pointee.sequencer.playingPattern) }
        if let queued = a.pointee.queuedPort { queued.pointee = Float(a.pointee.sequencer.queuedPattern) }
        a.pointee.framesRun &+= Int64(frameCount)
        if a.pointee.inbox.buffer == nil { checkInbox() }
    }

    /// The control input, walked in time order: each event renders up to its
    /// frame, then applies (MIDI, positions, patch messages, the editor's).
    @_noLocks @inline(never)
    func readControlInput(frameCount: Int) {
        let a = audio
        let u = uris
        let thru = (a.pointee.midiThruPort?.pointee ?? 0) >= 0.5
        var input = AtomSequenceReader(a.pointee.controlPort, sequenceType: u.pointee.atomSequence)
        while let event = input.next() {
            let offset = event.frames < 0 ? 0 : (event.frames > Int64(frameCount) ? frameCount : Int(event.frames))
            if event.atom.type == u.pointee.midiEvent {
                // §5, §7.5, §9.6: all notes off, pattern triggers, key-follow, thru (one reading for every format).
                a.pointee.sequencer.receiveMIDI(
                    UnsafeRawBufferPointer(start: event.atom.body, count: Int(event.atom.size)), thru: thru, atOffset: offset)
            } else if var object = AtomObjectReader(event.atom, uris: u.pointee) {
                if object.objectType == u.pointee.timePosition {
                    a.pointee.sequencer.apply(PositionReading.update(&object, uris: u), atOffset: offset)
                } else if object.objectType == u.pointee.patchSet {
                    patchSet(&object, atOffset: offset)
                } else if object.objectType == u.pointee.patchGet {
                    patchGet(&object)
                } else if object.objectType == u.pointee.textPiece {
                    textPiece(&object)
                } else if object.objectType == u.pointee.audition {
                    audition(&object, atOffset: offset)
                } else if object.objectType == u.pointee.request {
                    request(&object, atOffset: offset)
                } else if object.objectType == u.pointee.editorOpen {
                    a.pointee.sequencer.editorOpened()
                } else if object.objectType == u.pointee.editorClosed {
                    a.pointee.sequencer.editorClosed()
                }
            }
        }
    }

    /// `patch:Set` of a pattern or a pattern file: handed to the worker (never parsed here).
    @_noLocks
    func patchSet(_ object: inout AtomObjectReader, atOffset offset: Int) {
        let u = uris.pointee
        var property: LV2_URID? = nil
        var value: AtomView? = nil
        var sequence: Int32 = 0
        while let (key, v) = object.next() {
            if key == u.patchProperty { property = v.urid(u) }
            else if key == u.patchValue { value = v }
            else if key == u.patchSequenceNumber, let n = v.int(u) { sequence = n }
        }
        guard let property else { return }
        if property == u.pattern || property == u.patternChange {
            guard let value, value.type == u.atomString || value.type == u.atomChunk else {
                if property == u.pattern {
                    reportError("pattern edit rejected: urn:tactus:pattern takes an atom:String with the pattern text")
                } else {
                    reportError("pattern edit rejected: urn:tactus:patternChange takes an atom:String with the change")
                }
                broughtBack(sequence)
                return
            }
            receivePayload(kind: property == u.pattern ? Inbox.text : Inbox.change, bytes: value.textBytes(), sequence: sequence > 0 ? sequence : 0)
        } else if property == u.laneMutes {
            // §7.6: lane mutes act at the message's frame (no worker: nothing to parse).
            // An atom:Long (or atom:Int) whose bit i mutes lane i.
            var bits: UInt64? = nil
            if let n = value?.long(u) { bits = UInt64(bitPattern: n) }
            if let n = value?.int(u) { bits = UInt64(UInt32(bitPattern: n)) }
            guard let bits else {
                reportError("lane mutes rejected: urn:tactus:laneMutes takes an atom:Long (bit i mutes lane i)")
                return
            }
            audio.pointee.sequencer.apply(.laneMutes(bits), atOffset: offset)
            // What save() stores (the lanes past 8 of it).
            shared.pointee.laneMutes.pointee.applied(bits)
        } else if property == u.patternFile {
            guard let value, value.type == u.atomPath || value.type == u.atomString, value.textBytes().count > 0 else {
                reportError("pattern file rejected: urn:tactus:patternFile takes an atom:Path to a file")
                return
            }
            receivePayload(kind: Inbox.file, bytes: value.textBytes(), sequence: 0)
        }
    }

    /// `tactus:textPiece` from an editor: a piece of an edit larger than one
    /// message (docs/plugin.md, "Messages"); copied into the inbox.
    @_noLocks
    func textPiece(_ object: inout AtomObjectReader) {
        let u = uris.pointee
        let piece = TextPieceFields(&object, uris: u)
        guard let property = piece.property, property == u.pattern || property == u.patternChange, let hash = piece.hash,
            let value = piece.value, piece.offset >= 0, piece.length > 0, piece.length <= Int64(PluginLimits.largestPayload),
            piece.offset <= piece.length
        else { return }
        let bytes = UnsafeRawBufferPointer(start: value.body, count: min(value.size, Int(piece.length - piece.offset)))
        receivePiece(
            kind: property == u.pattern ? Inbox.text : Inbox.change, sequence: piece.sequence, offset: Int(piece.offset),
            length: Int(piece.length), hash: hash, bytes: bytes)
    }

    /// `urn:tactus:audition` from the editor (§8.1): `midi:noteNumber`,
    /// `midi:velocity` and `midi:channel` (0-15, as LV2 counts), each an `atom:Int`.
    @_noLocks
    func audition(_ object: inout AtomObjectReader, atOffset offset: Int) {
        guard let note = AuditionFields(&object, uris: uris.pointee) else { return }
        audio.pointee.sequencer.audition(key: note.key, velocity: note.velocity, channel: note.channel, atOffset: offset)
    }

    /// `urn:tactus:request` from the editor (§9.2, §9.6): `urn:tactus:pattern`
    /// (an `atom:Int`, 1-based) and, optionally, `urn:tactus:when` (an
    /// `atom:String`: `now`, `beat`, `bar`, `bars N`, `end`; absent: the text's
    /// `switch at`). A request like a MIDI trigger's: one for a pattern the
    /// text does not have, made while the song plays, or with a `when` that
    /// is none of those, is ignored and counted.
    @_noLocks
    func request(_ object: inout AtomObjectReader, atOffset offset: Int) {
        let u = uris.pointee
        var number: Int32 = 0
        var grid: SwitchSettings.Grid? = nil
        var understood = true
        while let (key, v) = object.next() {
            if key == u.pattern {
                if let n = v.int(u) { number = n } else if let n = v.long(u) { number = Int32(clamping: n) } else { understood = false }
            } else if key == u.when {
                guard v.type == u.atomString, let g = SwitchSettings.Grid(spelling: v.textBytes()) else {
                    understood = false
                    continue
                }
                grid = g
            }
        }
        audio.pointee.sequencer.request(pattern: understood ? Int(number) : 0, grid: grid, atOffset: offset)
    }

    /// `patch:Get`: the answer is prepared off this thread (the snapshot's own text)
    /// and only copied here.
    @_noLocks
    func patchGet(_ object: inout AtomObjectReader) {
        let u = uris.pointee
        var property: LV2_URID? = nil
        var hash: UInt64? = nil
        var offset: Int64 = 0
        var window: Int64 = 0
        while let (key, v) = object.next() {
            if key == u.patchProperty { property = v.urid(u) }
            else if key == u.textHash, let n = v.long(u) { hash = UInt64(bitPattern: n) }
            else if key == u.textOffset, let n = v.long(u) { offset = n }
            else if key == u.textWindow, let n = v.long(u) { window = n }
        }
        let a = audio
        if property == u.pattern, window > 0 {
            // An editor asks for a window of the text (docs/plugin.md, "Messages").
            textWanted(hash: hash, offset: Int(clamping: offset), window: Int(clamping: window))
            return
        }
        // No property: every parameter (the last error only when asked for by name).
        if property == nil || property == u.pattern { a.pointee.sequencer.owe(.pattern) }
        if property == nil || property == u.patternFile { a.pointee.sequencer.owe(.patternFile) }
        if property == nil || property == u.droppedNoteOns { a.pointee.sequencer.owe(.droppedNoteOns) }
        if property == nil || property == u.ignoredRequests { a.pointee.sequencer.owe(.ignoredRequests) }
        if property == nil || property == u.laneMutes { a.pointee.sequencer.owe(.laneMutes) }
        if property == u.error { a.pointee.sequencer.owe(.error) }
    }

    /// Everything owed, on the notify port at the start of the block; and a
    /// reclaim request to the worker when replaced snapshots wait to be freed.
    @_noLocks
    func send(_ owed: OwedNotifications, to out: inout AtomSequenceWriter) {
        let a = audio
        let u = uris
        if owed.contains(.error) {
            _ = out.appendPatchSet(
                property: u.pointee.error, sequenceNumber: nil, valueType: u.pointee.atomString,
                text: a.pointee.sequencer.lastError.bytes, uris: u.pointee)
        }
        if owed.contains(.stateChanged), let object = out.beginObject(otype: u.pointee.stateChanged) {
            _ = out.endObject(object, frames: 0, objectType: u.pointee.atomObject)
        }
        if let pattern = a.pointee.sequencer.renderer.pattern {
            if owed.contains(.pattern) { announce(pattern, to: &out) }
            if owed.contains(.patternFile), let source = pattern.source {
                _ = out.appendPatchSet(
                    property: u.pointee.patternFile, sequenceNumber: nil, valueType: u.pointee.atomPath,
                    text: UnsafeRawBufferPointer(source), uris: u.pointee)
            }
        }
        if owed.contains(.droppedNoteOns) {
            let drops = a.pointee.sequencer.renderer.statistics.droppedNoteOns
            if var object = out.beginObject(otype: u.pointee.patchSet) {
                object.addPatchSet(property: u.pointee.droppedNoteOns, long: drops, uris: u.pointee)
                if out.endObject(object, frames: 0, objectType: u.pointee.atomObject) { a.pointee.sequencer.droppedNoteOnsReported(drops) }
            }
        }
        if owed.contains(.ignoredRequests) {
            _ = out.appendPatchSet(property: u.pointee.ignoredRequests, long: a.pointee.sequencer.ignoredRequests, uris: u.pointee)
        }
        if owed.contains(.scene), !out.appendScene(a.pointee.sequencer.scene, uris: u.pointee), out.isConnected {
            a.pointee.sequencer.owe(.scene)  // no room: the next block
        }
        // §7.6: the lane mutes parameter, all 64 bits, to an editor that opens and at each change.
        if owed.contains(.laneMutes), out.isConnected,
            !out.appendPatchSet(property: u.pointee.laneMutes, long: Int64(bitPattern: a.pointee.sequencer.laneMutes), uris: u.pointee)
        {
            a.pointee.sequencer.owe(.laneMutes)  // no room: the next block
        }
        if owed.contains(.playhead), var object = out.beginObject(otype: u.pointee.playhead) {
            let p = a.pointee.sequencer.playhead
            object.addPlayhead(beat: p.beat, beatsPerMinute: p.beatsPerMinute, speed: p.speed, beatsPerBar: p.beatsPerBar, uris: u.pointee)
            _ = out.endObject(object, frames: 0, objectType: u.pointee.atomObject)
        }
        if owed.contains(.receipt), !out.appendReceipt(
            sequenceNumber: a.pointee.inbox.receiptSequence, offset: a.pointee.inbox.receiptOffset, uris: u.pointee), out.isConnected
        {
            a.pointee.sequencer.owe(.receipt)  // no room: the next block
        }
        // Last: a piece takes the room the other messages left.
        if owed.contains(.textPieces), !owed.contains(.pattern), let pattern = a.pointee.sequencer.renderer.pattern {
            sendPiece(of: pattern, to: &out)
        }
        if owed.contains(.reclaim), shared.pointee.reclaimInWorker, let schedule = shared.pointee.schedule {
            var header = WorkRequest(kind: WorkRequest.reclaim, length: 0)
            _ = withUnsafeBytes(of: &header) { tactus_schedule_work(schedule, UInt32($0.count), $0.baseAddress) }
        }
    }
}
