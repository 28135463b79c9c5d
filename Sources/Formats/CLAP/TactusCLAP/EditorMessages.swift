import CCLAPEntry
import CLV2
import LV2Atoms
import TactusEngine
import TactusModel

/// The plugin's side of the editor's messages (docs/plugin.md, "Messages"),
/// in the CLAP plugin: the same atoms the LV2 plugin reads on its control
/// port, read here on the main thread, where the editor writes them. What
/// needs no audio thread is done here: an edit (a whole text, a change, or
/// pieces of either) is parsed and handed over as a state load is
/// (`install`), and answered at once; the text is sent whole. What does
/// (an audition, the lease, the lanes past 8) goes to `process()` through
/// `EditorChannel`; a mute the editor clicks is a parameter change the host
/// is told of. Answers wait in the outbox for the next timer tick.
extension CLAPPlugin {
    mutating func editorWrote(port: UInt32, size: Int, format: UInt32, buffer: UnsafeRawPointer) {
        guard let uris = editor.uris else { return }
        if format == 0 {
            // A control port's value: the mutes and the song (the song's row), parameters
            // whose ids are the port indices (§11.4).
            let isMute = port >= TACTUS_PORT_MUTE_FIRST && port < TACTUS_PORT_MUTE_FIRST + TACTUS_PORT_MUTE_COUNT
            guard size == 4, isMute || port == TACTUS_PORT_SONG else { return }
            editorSetParameter(port, to: buffer.loadUnaligned(as: Float.self) >= 0.5 ? 1 : 0)
            return
        }
        guard port == TACTUS_PORT_CONTROL, format == uris.atomEventTransfer,
            var object = AtomObjectReader(atom: buffer, byteCount: size, uris: uris)
        else { return }
        let type = object.objectType
        if type == uris.patchSet {
            editorPatchSet(&object, uris: uris)
        } else if type == uris.patchGet {
            editorPatchGet(&object, uris: uris)
        } else if type == uris.textPiece {
            editorTextPiece(&object, uris: uris)
        } else if type == uris.audition {
            guard let note = AuditionFields(&object, uris: uris) else { return }
            _ = editorChannel.commands.pointee.push(.audition(key: note.key, velocity: note.velocity, channel: note.channel))
        } else if type == uris.request {
            editorRequest(&object, uris: uris)
        } else if type == uris.editorOpen {
            _ = editorChannel.commands.pointee.push(.lease(open: true))
        } else if type == uris.editorClosed {
            _ = editorChannel.commands.pointee.push(.lease(open: false))
        }
    }

    /// A mute the editor set: the value is the parameter's from now on (the
    /// next block plays it, §11.4), and the host is told (gesture, value,
    /// end) at the next `process()` or `flush`, which it is asked for.
    mutating func editorSetParameter(_ id: UInt32, to value: Double) {
        guard let bit = controls.set(id, to: value) else { return }
        if let shown = editor.shownControls { editor.shownControls = (shown & ~bit) | (controls.bits & bit) }
        _ = editorChannel.changes.pointee.push(EditorChannel.Change(id: id, value: value))
        tactus_clap_request_flush(host)
    }

    /// `urn:tactus:request` (§9.2, §9.6): `urn:tactus:pattern` (1-based) and,
    /// optionally, `urn:tactus:when`, read as the LV2 plugin reads them (one
    /// it does not understand is passed on as pattern 0: ignored and counted),
    /// for the audio thread to request at the next block's first frame.
    mutating func editorRequest(_ object: inout AtomObjectReader, uris: URIDTable) {
        var number: Int32 = 0
        var grid: SwitchSettings.Grid? = nil
        var understood = true
        while let (key, v) = object.next() {
            if key == uris.pattern {
                if let n = v.int(uris) { number = n } else if let n = v.long(uris) { number = Int32(clamping: n) } else { understood = false }
            } else if key == uris.when {
                guard v.type == uris.atomString, let g = SwitchSettings.Grid(spelling: v.textBytes()) else {
                    understood = false
                    continue
                }
                grid = g
            }
        }
        _ = editorChannel.commands.pointee.push(.request(number: understood ? Int(number) : 0, grid: grid))
    }

    /// `patch:Set`: a pattern text or change in one message, or the lanes past 8 muted.
    mutating func editorPatchSet(_ object: inout AtomObjectReader, uris: URIDTable) {
        var property: LV2_URID? = nil
        var value: AtomView? = nil
        var sequence: Int32 = 0
        while let (key, v) = object.next() {
            if key == uris.patchProperty { property = v.urid(uris) }
            else if key == uris.patchValue { value = v }
            else if key == uris.patchSequenceNumber, let n = v.int(uris) { sequence = n }
        }
        if property == uris.pattern || property == uris.patternChange {
            guard let value, value.type == uris.atomString || value.type == uris.atomChunk else { return }
            let edit = ReceivedEdit(kind: property == uris.pattern ? .text : .change, payload: Array(value.textBytes()))
            editorEdit(edit, sequence: max(sequence, 0))
        } else if property == uris.laneMutes {
            var bits: UInt64? = nil
            if let n = value?.long(uris) { bits = UInt64(bitPattern: n) }
            if let n = value?.int(uris) { bits = UInt64(UInt32(bitPattern: n)) }
            if let bits { _ = editorChannel.commands.pointee.push(.laneMutes(bits)) }
        }
    }

    /// `patch:Get`: the text (always whole: nothing between the plugin and the
    /// editor limits a message here), or the last error when asked by name.
    mutating func editorPatchGet(_ object: inout AtomObjectReader, uris: URIDTable) {
        var property: LV2_URID? = nil
        while let (key, v) = object.next() { if key == uris.patchProperty { property = v.urid(uris) } }
        if property == uris.error {
            sendError(uris: uris)
        } else if property == nil || property == uris.pattern {
            announce(uris: uris)
        }
    }

    /// `tactus:textPiece`: a piece of an edit too large for one LV2 message
    /// (the editor sends pieces whatever the format), collected here and
    /// acknowledged with a receipt; the whole goes as an edit.
    mutating func editorTextPiece(_ object: inout AtomObjectReader, uris: URIDTable) {
        let piece = TextPieceFields(&object, uris: uris)
        guard let property = piece.property, property == uris.pattern || property == uris.patternChange, let hash = piece.hash,
            let value = piece.value, piece.sequence > 0, piece.offset >= 0, piece.length > 0,
            piece.length <= Int64(CLAPState.largestField), piece.offset <= piece.length
        else { return }
        let sequence = piece.sequence, offset = piece.offset, length = piece.length
        let kind: ReceivedEdit.Kind = property == uris.pattern ? .text : .change
        if let f = editor.incoming {
            if sequence < f.sequence { return }  // an older edit's piece, late
            if sequence > f.sequence { editor.incoming = nil }  // a newer edit replaces it
        }
        if editor.incoming == nil {
            guard offset == 0 else { return sendReceipt(sequence, 0, uris: uris) }
            editor.incoming = CLAPEditor.Incoming(edit: ReceivedEdit(kind: kind, payload: [], hash: hash), sequence: sequence, length: Int(length))
        }
        guard var f = editor.incoming else { return }
        let bytes = UnsafeRawBufferPointer(start: value.body, count: min(value.size, Int(length - offset)))
        if f.edit.kind == kind, f.edit.hash == hash, f.length == Int(length), Int(offset) == f.edit.payload.count {
            f.edit.payload.append(contentsOf: bytes)
        }
        sendReceipt(sequence, f.edit.payload.count, uris: uris)
        if f.edit.payload.count == f.length {
            editor.incoming = nil
            editorEdit(f.edit, sequence: sequence)
        } else {
            editor.incoming = f
        }
    }

    /// An edit, whole: the text it makes plays from the next block, or it is
    /// refused and the pattern in use stays; either way the editor is sent
    /// the error (empty when accepted) and the text now in use, under the
    /// edit's number, as the LV2 plugin answers.
    mutating func editorEdit(_ edit: ReceivedEdit, sequence: Int32) {
        guard let uris = editor.uris else { return }
        var problem: String? = nil
        switch edit.text(on: text) {
        case .text(let newText):
            if let reason = install(newText, source: nil) { problem = "pattern rejected, the pattern in use stays: \(reason)" }
        case .refused(let reason):
            problem = reason
        }
        editor.installedSequence = max(editor.installedSequence, sequence)
        if let problem {
            log(TACTUS_CLAP_LOG_ERROR, problem)
            editor.lastError = QuotedText.prefix(Array(problem.utf8), limit: 1000)
        } else {
            editor.lastError = []
            tactus_clap_mark_dirty(host)  // the session has a state to save
        }
        sendError(uris: uris)
        announce(uris: uris)
    }

    /// A state loaded while the editor is open: the editor shows its pattern.
    mutating func editorShowsNewText(sequence: Int32) {
        guard let uris = editor.uris else { return }
        announce(uris: uris)
    }

    /// `patch:Set` of `urn:tactus:pattern`: the text in use, whole, numbered
    /// with the last edit that reached it.
    mutating func announce(uris: URIDTable) {
        let text = self.text
        let sequence = editor.installedSequence
        let atom = AtomObjectWriter.atom(objectType: uris.atomObject, otype: uris.patchSet) { object in
            text.withUnsafeBytes {
                object.addPatchSet(
                    property: uris.pattern, sequenceNumber: sequence != 0 ? sequence : nil, valueType: uris.atomString, text: $0, uris: uris)
            }
        }
        editor.outbox.append(CLAPEditor.Outgoing(port: TACTUS_PORT_NOTIFY, format: uris.atomEventTransfer, bytes: atom))
    }

    mutating func sendError(uris: URIDTable) {
        let error = editor.lastError
        let atom = AtomObjectWriter.atom(objectType: uris.atomObject, otype: uris.patchSet) { object in
            error.withUnsafeBytes {
                object.addPatchSet(property: uris.error, sequenceNumber: nil, valueType: uris.atomString, text: $0, uris: uris)
            }
        }
        editor.outbox.append(CLAPEditor.Outgoing(port: TACTUS_PORT_NOTIFY, format: uris.atomEventTransfer, bytes: atom))
    }

    mutating func sendReceipt(_ sequence: Int32, _ offset: Int, uris: URIDTable) {
        let atom = AtomObjectWriter.atom(objectType: uris.atomObject, otype: uris.textReceipt) {
            $0.addTextReceipt(sequenceNumber: sequence, offset: offset, uris: uris)
        }
        editor.outbox.append(CLAPEditor.Outgoing(port: TACTUS_PORT_NOTIFY, format: uris.atomEventTransfer, bytes: atom))
    }
}
