import CLV2
import CLV2UI
import TactusEngine
import TactusModel
import TactusEditorModel

/// The editor's side of the messages to and from `urn:tactus:sequencer`
/// (docs/plugin.md, "The editor"): everything goes through the host's
/// `write_function` to the plugin's control port, and comes back as
/// `port_event` calls for its notify port. What the messages mean, and when
/// each is sent, is `PatternSync`'s (the core); this type only turns them
/// into atoms and back.
///
/// UI thread.
struct PluginLink {
    let uris: EditorURIDs
    let write: LV2UI_Write_Function
    let controller: LV2UI_Controller?
    /// Where the editor's pattern and the plugin's stand.
    private(set) var sync = PatternSync()

    init(uris: EditorURIDs, write: @escaping LV2UI_Write_Function, controller: LV2UI_Controller?) {
        self.uris = uris
        self.write = write
        self.controller = controller
    }

    /// What the plugin said, as the editor needs it.
    enum Message {
        /// What the pattern messages asked for (a text to show, a notice); their requests are already sent.
        case pattern(PatternSync.Update)
        /// Why the last edit was rejected, or empty when it is fixed.
        case error([UInt8])
        /// `beatsPerBar`: the host's meter, NaN when the plugin did not say.
        case playhead(beat: Double, beatsPerMinute: Double, speed: Double, beatsPerBar: Double)
    }

    /// `patch:Get` with no property: the plugin answers with every parameter.
    mutating func sendGet(now: Double) {
        sync.opened(now: now)
        send(AtomObjectBuilder(objectType: uris.atomObject, otype: uris.patchGet).finished())
    }

    /// The document is now `text` (an edit finished): what changed goes to the plugin.
    mutating func commit(_ text: [UInt8], now: Double) -> PatternSync.Update {
        let update = sync.commit(text, now: now)
        send(update.requests)
        return update
    }

    /// Each idle call: windows that stalled are asked for, or sent, again.
    mutating func tick(now: Double) -> PatternSync.Update {
        let update = sync.tick(now: now)
        send(update.requests)
        return update
    }

    /// `editorOpen` (renews the playhead lease, §8.2) or `editorClosed`.
    func sendLease(open: Bool) {
        send(AtomObjectBuilder(objectType: uris.atomObject, otype: open ? uris.editorOpen : uris.editorClosed).finished())
    }

    /// §8.1: a note to hear (channel 1-16); the plugin plays it only while stopped.
    func sendAudition(key: UInt8, velocity: UInt8, channel: UInt8) {
        var object = AtomObjectBuilder(objectType: uris.atomObject, otype: uris.audition)
        object.add(key: uris.midiNoteNumber, int: Int32(key), type: uris.atomInt)
        object.add(key: uris.midiVelocity, int: Int32(velocity), type: uris.atomInt)
        object.add(key: uris.midiChannel, int: Int32(channel) - 1, type: uris.atomInt)
        send(object.finished())
    }

    private func send(_ requests: [PatternSync.Request]) {
        for r in requests { send(encoded(r)) }
    }

    /// A request as the atom the plugin reads (docs/plugin.md, "Messages").
    private func encoded(_ request: PatternSync.Request) -> [UInt8] {
        switch request {
        case .textWanted(let hash, let offset, let window):
            var object = AtomObjectBuilder(objectType: uris.atomObject, otype: uris.patchGet)
            object.add(key: uris.patchProperty, urid: uris.pattern, type: uris.atomURID)
            if let hash { object.add(key: uris.textHash, long: Int64(bitPattern: hash), type: uris.atomLong) }
            object.add(key: uris.textOffset, long: Int64(offset), type: uris.atomLong)
            object.add(key: uris.textWindow, long: Int64(window), type: uris.atomLong)
            return object.finished()
        case .payload(let kind, let sequence, let bytes):
            var object = AtomObjectBuilder(objectType: uris.atomObject, otype: uris.patchSet)
            object.add(key: uris.patchProperty, urid: kind == .text ? uris.pattern : uris.patternChange, type: uris.atomURID)
            object.add(key: uris.patchSequenceNumber, int: sequence, type: uris.atomInt)
            object.add(key: uris.patchValue, text: bytes, type: uris.atomString)
            return object.finished()
        case .piece(let kind, let sequence, let offset, let length, let hash, let bytes):
            var object = AtomObjectBuilder(objectType: uris.atomObject, otype: uris.textPiece)
            object.add(key: uris.patchProperty, urid: kind == .text ? uris.pattern : uris.patternChange, type: uris.atomURID)
            object.add(key: uris.patchSequenceNumber, int: sequence, type: uris.atomInt)
            object.add(key: uris.textOffset, long: Int64(offset), type: uris.atomLong)
            object.add(key: uris.textLength, long: Int64(length), type: uris.atomLong)
            object.add(key: uris.textHash, long: Int64(bitPattern: hash), type: uris.atomLong)
            object.add(key: uris.patchValue, chunk: bytes, type: uris.atomChunk)
            return object.finished()
        }
    }

    private func send(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { raw in
            write(controller, TACTUS_PORT_CONTROL, UInt32(raw.count), uris.eventTransfer, raw.baseAddress)
        }
    }

    /// A `port_event` call: the message it carries, if the editor needs it.
    mutating func receive(port: UInt32, size: UInt32, format: UInt32, buffer: UnsafeRawPointer, now: Double) -> Message? {
        guard port == TACTUS_PORT_NOTIFY, format == uris.eventTransfer,
            let object = ReceivedObject(buffer, size: Int(size), uris: uris)
        else { return nil }
        if object.otype == uris.playhead {
            var beat = Double.nan, tempo = Double.nan, speed = Double.nan, beatsPerBar = Double.nan
            object.forEachProperty { p in
                guard p.type == uris.atomDouble, p.size >= 8 else { return }
                let value = p.value.loadUnaligned(as: Double.self)
                if p.key == uris.timeBeat { beat = value }
                else if p.key == uris.timeBeatsPerMinute { tempo = value }
                else if p.key == uris.timeSpeed { speed = value }
                else if p.key == uris.timeBeatsPerBar { beatsPerBar = value }
            }
            return .playhead(beat: beat, beatsPerMinute: tempo, speed: speed, beatsPerBar: beatsPerBar)
        }
        if object.otype == uris.textPiece { return receivePiece(object, now: now) }
        if object.otype == uris.textReceipt {
            var number: Int32 = 0
            var offset: Int64 = -1
            object.forEachProperty { p in
                if p.key == uris.patchSequenceNumber, p.type == uris.atomInt, p.size >= 4 { number = p.value.loadUnaligned(as: Int32.self) }
                else if p.key == uris.textOffset, p.type == uris.atomLong, p.size >= 8 { offset = p.value.loadUnaligned(as: Int64.self) }
            }
            guard offset >= 0 else { return nil }
            let update = sync.receiveReceipt(sequence: number, offset: Int(clamping: offset), now: now)
            send(update.requests)
            return .pattern(update)
        }
        guard object.otype == uris.patchSet else { return nil }
        var property: LV2_URID = 0
        var number: Int32 = 0
        var text: [UInt8]? = nil
        object.forEachProperty { p in
            if p.key == uris.patchProperty, p.type == uris.atomURID, p.size >= 4 { property = p.value.loadUnaligned(as: UInt32.self) }
            else if p.key == uris.patchSequenceNumber, p.type == uris.atomInt, p.size >= 4 { number = p.value.loadUnaligned(as: Int32.self) }
            else if p.key == uris.patchValue, p.type == uris.atomString { text = p.text }
        }
        guard let text else { return nil }
        if property == uris.error { return .error(text) }
        guard property == uris.pattern else { return nil }
        let update = sync.receiveText(text, sequence: number, now: now)
        send(update.requests)
        return .pattern(update)
    }

    /// `tactus:textPiece`: a piece of the plugin's text.
    private mutating func receivePiece(_ object: ReceivedObject, now: Double) -> Message? {
        var property: LV2_URID = 0
        var number: Int32 = 0
        var offset: Int64 = -1
        var length: Int64 = -1
        var hash: UInt64? = nil
        var value: ReceivedObject.Property? = nil
        object.forEachProperty { p in
            if p.key == uris.patchProperty, p.type == uris.atomURID, p.size >= 4 { property = p.value.loadUnaligned(as: UInt32.self) }
            else if p.key == uris.patchSequenceNumber, p.type == uris.atomInt, p.size >= 4 { number = p.value.loadUnaligned(as: Int32.self) }
            else if p.key == uris.textOffset, p.type == uris.atomLong, p.size >= 8 { offset = p.value.loadUnaligned(as: Int64.self) }
            else if p.key == uris.textLength, p.type == uris.atomLong, p.size >= 8 { length = p.value.loadUnaligned(as: Int64.self) }
            else if p.key == uris.textHash, p.type == uris.atomLong, p.size >= 8 { hash = UInt64(bitPattern: p.value.loadUnaligned(as: Int64.self)) }
            else if p.key == uris.patchValue, p.type == uris.atomChunk { value = p }
        }
        guard property == uris.pattern, let hash, let value, offset >= 0, length > 0, offset <= length else { return nil }
        let bytes = UnsafeRawBufferPointer(start: value.value, count: min(value.size, Int(clamping: length - offset)))
        let update = sync.receivePiece(
            sequence: number, offset: Int(clamping: offset), length: Int(clamping: length), hash: hash, bytes: bytes, now: now)
        send(update.requests)
        return .pattern(update)
    }
}
