import CLV2
import CLV2UI

/// The editor's side of the messages to and from `urn:tactus:sequencer`
/// (docs/plugin.md, "The editor"): everything goes through the host's
/// `write_function` to the plugin's control port, and comes back as
/// `port_event` calls for its notify port.
///
/// Edits carry a `patch:sequenceNumber`; the plugin echoes the number of the
/// newest edit it has installed with every pattern it sends. An echo older
/// than the newest edit sent is stale (a newer local edit is on its way) and
/// is ignored, so that an echo never undoes a newer edit.
///
/// UI thread.
struct PluginLink {
    /// The largest pattern text sent in one message: the plugin's worker
    /// request (64 KiB) and the control port's minimum buffer (64 KiB) both
    /// hold it with room for the message around it.
    static var textLimit: Int { 65_536 - 512 }

    let uris: EditorURIDs
    let write: LV2UI_Write_Function
    let controller: LV2UI_Controller?
    /// The number of the newest edit sent, 0 before any.
    private(set) var lastSent: Int32 = 0
    /// The newest number seen from the plugin (another editor's edits count too).
    private var highestSeen: Int32 = 0

    init(uris: EditorURIDs, write: @escaping LV2UI_Write_Function, controller: LV2UI_Controller?) {
        self.uris = uris
        self.write = write
        self.controller = controller
    }

    /// What the plugin said, as the editor needs it.
    enum Message {
        /// The pattern in use, to show (a stale echo is already filtered out).
        case pattern([UInt8])
        /// Why the last edit was rejected, or empty when it is fixed.
        case error([UInt8])
        /// `beatsPerBar`: the host's meter, NaN when the plugin did not say.
        case playhead(beat: Double, beatsPerMinute: Double, speed: Double, beatsPerBar: Double)
    }

    /// The pattern text as an edit. Returns false, sending nothing, when it is
    /// larger than a message may hold.
    mutating func sendPattern(_ text: [UInt8]) -> Bool {
        guard text.count <= PluginLink.textLimit else { return false }
        let number = max(lastSent, highestSeen) &+ 1
        lastSent = number
        var object = AtomObjectBuilder(objectType: uris.atomObject, otype: uris.patchSet)
        object.add(key: uris.patchProperty, urid: uris.pattern, type: uris.atomURID)
        object.add(key: uris.patchSequenceNumber, int: number, type: uris.atomInt)
        object.add(key: uris.patchValue, text: text, type: uris.atomString)
        send(object.finished())
        return true
    }

    /// `patch:Get` with no property: the plugin answers with every parameter.
    func sendGet() {
        send(AtomObjectBuilder(objectType: uris.atomObject, otype: uris.patchGet).finished())
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

    private func send(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { raw in
            write(controller, TACTUS_PORT_CONTROL, UInt32(raw.count), uris.eventTransfer, raw.baseAddress)
        }
    }

    /// A `port_event` call: the message it carries, if the editor needs it.
    mutating func receive(port: UInt32, size: UInt32, format: UInt32, buffer: UnsafeRawPointer) -> Message? {
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
        highestSeen = max(highestSeen, number)
        if number < lastSent { return nil }  // stale: a newer edit of ours is on its way
        return .pattern(text)
    }
}
