import CLV2
import CLV2UI
import LV2Atoms
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
    let uris: URIDTable
    let write: LV2UI_Write_Function
    let controller: LV2UI_Controller?
    /// Where the editor's pattern and the plugin's stand.
    private(set) var sync = PatternSync()

    init(uris: URIDTable, write: @escaping LV2UI_Write_Function, controller: LV2UI_Controller?) {
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
        /// `tactus:scene`: what plays of a text of several patterns, and from which
        /// origin (the song control's value is not in it).
        case scene(PatternScene)
        /// `patch:Set` of `tactus:laneMutes`: the lanes the plugin's parameter mutes (bit i: lane i).
        case laneMutes(UInt64)
    }

    /// `patch:Get` with no property: the plugin answers with every parameter.
    mutating func sendGet(now: Double) {
        sync.opened(now: now)
        send(AtomObjectWriter.atom(objectType: uris.atomObject, otype: uris.patchGet) { $0.addPatchGet(property: nil, uris: uris) })
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
        send(AtomObjectWriter.atom(objectType: uris.atomObject, otype: open ? uris.editorOpen : uris.editorClosed) { _ in })
    }

    /// §8.1: a note to hear (channel 1-16); the plugin plays it only while stopped.
    func sendAudition(key: UInt8, velocity: UInt8, channel: UInt8) {
        send(AtomObjectWriter.atom(objectType: uris.atomObject, otype: uris.audition) {
            $0.addAudition(key: Int32(key), velocity: Int32(velocity), channel: Int32(channel) - 1, uris: uris)
        })
    }

    /// `tactus:request`: play pattern `request.pattern` (from 1) at its `when` (nil: the text's `switch at`).
    func sendRequest(_ request: PatternRequest) {
        let when = request.when.map { Array($0.text.utf8) }
        send(AtomObjectWriter.atom(objectType: uris.atomObject, otype: uris.request) { object in
            if let when {
                when.withUnsafeBytes { object.addRequest(pattern: Int32(clamping: request.pattern), when: $0, uris: uris) }
            } else {
                object.addRequest(pattern: Int32(clamping: request.pattern), when: nil, uris: uris)
            }
        })
    }

    /// The plugin's `song` control (port 14), written as a host's own control is written (protocol 0, a float).
    func sendSong(on: Bool) {
        var value: Float = on ? 1 : 0
        withUnsafeBytes(of: &value) { raw in write(controller, TACTUS_PORT_SONG, 4, 0, raw.baseAddress) }
    }

    private func send(_ requests: [PatternSync.Request]) {
        for r in requests { send(encoded(r)) }
    }

    /// A request as the atom the plugin reads (docs/plugin.md, "Messages").
    private func encoded(_ request: PatternSync.Request) -> [UInt8] {
        switch request {
        case .textWanted(let hash, let offset, let window):
            return AtomObjectWriter.atom(objectType: uris.atomObject, otype: uris.patchGet) {
                $0.addTextWanted(hash: hash, offset: offset, window: window, uris: uris)
            }
        case .payload(let kind, let sequence, let bytes):
            return AtomObjectWriter.atom(objectType: uris.atomObject, otype: uris.patchSet) { object in
                bytes.withUnsafeBytes {
                    object.addPatchSet(
                        property: kind == .text ? uris.pattern : uris.patternChange, sequenceNumber: sequence, valueType: uris.atomString,
                        text: $0, uris: uris)
                }
            }
        case .piece(let kind, let sequence, let offset, let length, let hash, let bytes):
            return AtomObjectWriter.atom(objectType: uris.atomObject, otype: uris.textPiece) { object in
                bytes.withUnsafeBytes {
                    object.addTextPiece(
                        property: kind == .text ? uris.pattern : uris.patternChange, sequenceNumber: sequence, offset: offset,
                        length: length, hash: hash, bytes: $0, uris: uris)
                }
            }
        }
    }

    private func send(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { raw in
            write(controller, TACTUS_PORT_CONTROL, UInt32(raw.count), uris.atomEventTransfer, raw.baseAddress)
        }
    }

    /// A `port_event` call: the message it carries, if the editor needs it.
    mutating func receive(port: UInt32, size: UInt32, format: UInt32, buffer: UnsafeRawPointer, now: Double) -> Message? {
        guard port == TACTUS_PORT_NOTIFY, format == uris.atomEventTransfer,
            var object = AtomObjectReader(atom: buffer, byteCount: Int(size), uris: uris)
        else { return nil }
        if object.objectType == uris.playhead {
            var beat = Double.nan, tempo = Double.nan, speed = Double.nan, beatsPerBar = Double.nan
            while let (key, v) = object.next() {
                guard let value = v.double(uris) else { continue }
                if key == uris.timeBeat { beat = value }
                else if key == uris.timeBeatsPerMinute { tempo = value }
                else if key == uris.timeSpeed { speed = value }
                else if key == uris.timeBeatsPerBar { beatsPerBar = value }
            }
            return .playhead(beat: beat, beatsPerMinute: tempo, speed: speed, beatsPerBar: beatsPerBar)
        }
        if object.objectType == uris.scene {
            var playing: Int32 = 0, queued: Int32 = 0, songEntry: Int32 = 0
            var switchBeat: Double? = nil
            var origin = 0.0
            while let (key, v) = object.next() {
                if key == uris.playing, let n = v.int(uris) { playing = n }
                else if key == uris.queued, let n = v.int(uris) { queued = n }
                else if key == uris.songEntry, let n = v.int(uris) { songEntry = n }
                else if key == uris.switchBeat, let b = v.double(uris), b.isFinite { switchBeat = b }
                else if key == uris.origin, let b = v.double(uris), b.isFinite { origin = b }
            }
            return .scene(PatternScene(
                playing: Int(playing), queued: Int(queued), switchBeat: switchBeat, songEntry: Int(songEntry), origin: origin))
        }
        if object.objectType == uris.textPiece { return receivePiece(&object, now: now) }
        if object.objectType == uris.textReceipt {
            var number: Int32 = 0
            var offset: Int64 = -1
            while let (key, v) = object.next() {
                if key == uris.patchSequenceNumber, let n = v.int(uris) { number = n }
                else if key == uris.textOffset, let n = v.long(uris) { offset = n }
            }
            guard offset >= 0 else { return nil }
            let update = sync.receiveReceipt(sequence: number, offset: Int(clamping: offset), now: now)
            send(update.requests)
            return .pattern(update)
        }
        guard object.objectType == uris.patchSet else { return nil }
        var property: LV2_URID = 0
        var number: Int32 = 0
        var text: [UInt8]? = nil
        var long: Int64? = nil
        while let (key, v) = object.next() {
            if key == uris.patchProperty, let id = v.urid(uris) { property = id }
            else if key == uris.patchSequenceNumber, let n = v.int(uris) { number = n }
            else if key == uris.patchValue, v.type == uris.atomString { text = Array(v.textBytes()) }
            else if key == uris.patchValue, let n = v.long(uris) { long = n }
        }
        if property == uris.laneMutes, let long { return .laneMutes(UInt64(bitPattern: long)) }
        guard let text else { return nil }
        if property == uris.error { return .error(text) }
        guard property == uris.pattern else { return nil }
        let update = sync.receiveText(text, sequence: number, now: now)
        send(update.requests)
        return .pattern(update)
    }

    /// `tactus:textPiece`: a piece of the plugin's text.
    private mutating func receivePiece(_ object: inout AtomObjectReader, now: Double) -> Message? {
        var property: LV2_URID = 0
        var number: Int32 = 0
        var offset: Int64 = -1
        var length: Int64 = -1
        var hash: UInt64? = nil
        var value: AtomView? = nil
        while let (key, v) = object.next() {
            if key == uris.patchProperty, let id = v.urid(uris) { property = id }
            else if key == uris.patchSequenceNumber, let n = v.int(uris) { number = n }
            else if key == uris.textOffset, let n = v.long(uris) { offset = n }
            else if key == uris.textLength, let n = v.long(uris) { length = n }
            else if key == uris.textHash, let n = v.long(uris) { hash = UInt64(bitPattern: n) }
            else if key == uris.patchValue, v.type == uris.atomChunk { value = v }
        }
        guard property == uris.pattern, let hash, let value, offset >= 0, length > 0, offset <= length else { return nil }
        let bytes = UnsafeRawBufferPointer(start: value.body, count: min(value.size, Int(clamping: length - offset)))
        let update = sync.receivePiece(
            sequence: number, offset: Int(clamping: offset), length: Int(clamping: length), hash: hash, bytes: bytes, now: now)
        send(update.requests)
        return .pattern(update)
    }
}
