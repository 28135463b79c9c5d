import CLV2
import LV2Atoms
import LV2HostKit
import TactusEngine
import TactusModel
import TactusEditorModel

/// What an open editor sends and does (docs/plugin.md, "The editor"), for
/// `--editor`: its lease (`urn:tactus:editorOpen` at the first block and
/// every second), an audition every half second (timing contract §8), and
/// its half of the pattern messages, through the editor's own logic
/// (`PatternSync`): it follows the plugin's text (asking for the windows of a
/// text that comes in pieces) and sends a script's `edit FILE` as the editor
/// sends an edit (what changed; in pieces when large).
///
/// Its clock is the host's frames, so that a run is the same every time.
final class EditorPeer {
    let uris: URIDTable
    let second: Int64
    private let editorOpen: [UInt8]
    private let audition: [UInt8]
    private(set) var sync = PatternSync()
    /// Messages for the control port, sent at the next block.
    private var outgoing: [[UInt8]] = []
    /// Edits made (`edit` actions), and texts the peer took from the plugin.
    private(set) var edits = 0
    private(set) var received = 0

    init(host: PluginHost, sampleRate: Double) {
        uris = host.uris
        second = Int64(sampleRate)
        editorOpen = AtomBody.object(otype: host.map.id("urn:tactus:editorOpen"), properties: [])
        audition = AtomBody.object(otype: host.map.id("urn:tactus:audition"), properties: [
            AtomProperty(key: host.map.id("http://lv2plug.in/ns/ext/midi#noteNumber"), type: host.uris.atomInt, body: AtomBody.int(60)),
            AtomProperty(key: host.map.id("http://lv2plug.in/ns/ext/midi#velocity"), type: host.uris.atomInt, body: AtomBody.int(100)),
            AtomProperty(key: host.map.id("http://lv2plug.in/ns/ext/midi#channel"), type: host.uris.atomInt, body: AtomBody.int(0)),
        ])
        outgoing.append(AtomBody.patchGet(property: nil, uris: uris))
    }

    private func seconds(_ frame: Int64) -> Double { Double(frame) / Double(second) }

    /// The start of a block of `frames` at `start`: what the editor sends in it.
    func beginBlock(start: Int64, frames n: Int, control: ControlSequence) {
        // Whether a multiple of a second (half a second) falls in this block.
        if start == 0 || (start + Int64(n) - 1) / second != (start - 1) / second {
            control.append(frames: 0, type: uris.atomObject, body: editorOpen)
        }
        if (start + Int64(n) - 1) / (second / 2) != (start - 1) / (second / 2) {
            control.append(frames: 0, type: uris.atomObject, body: audition)
        }
        take(sync.tick(now: seconds(start)))
        // What does not fit the port waits for the next block, as a host's queue holds it.
        var sent = 0
        while sent < outgoing.count, control.append(frames: 0, type: uris.atomObject, body: outgoing[sent]) { sent += 1 }
        outgoing.removeFirst(sent)
    }

    /// An `edit FILE` action: the editor's pattern becomes `text`; what changed goes out.
    func edit(_ text: [UInt8], at frame: Int64) {
        edits += 1
        take(sync.commit(text, now: seconds(frame)))
    }

    /// What the plugin said in the block ending at `frame`.
    func notify(_ events: [OutputSequence.Event], at frame: Int64) {
        let now = seconds(frame)
        for e in events {
            if let set = PatchSetMessage(e, uris: uris), set.property == uris.pattern, set.valueType == uris.atomString {
                let number = ObjectMessage(e, uris: uris)?.integer(uris.patchSequenceNumber, uris) ?? 0
                take(sync.receiveText(set.value, sequence: Int32(truncatingIfNeeded: number), now: now))
            } else if let o = ObjectMessage(e, uris: uris), o.otype == uris.textPiece, let offset = o.integer(uris.textOffset, uris),
                let length = o.integer(uris.textLength, uris), let hash = o.integer(uris.textHash, uris), let value = o.value(uris.patchValue)
            {
                let number = Int32(truncatingIfNeeded: o.integer(uris.patchSequenceNumber, uris) ?? 0)
                let update = value.body.withUnsafeBytes {
                    sync.receivePiece(sequence: number, offset: Int(offset), length: Int(length), hash: UInt64(bitPattern: hash), bytes: $0, now: now)
                }
                take(update)
            } else if let o = ObjectMessage(e, uris: uris), o.otype == uris.textReceipt, let offset = o.integer(uris.textOffset, uris) {
                let number = Int32(truncatingIfNeeded: o.integer(uris.patchSequenceNumber, uris) ?? 0)
                take(sync.receiveReceipt(sequence: number, offset: Int(offset), now: now))
            }
        }
    }

    private func take(_ update: PatternSync.Update) {
        if update.show != nil { received += 1 }
        for r in update.requests {
            switch r {
            case .textWanted(let hash, let offset, let window):
                outgoing.append(AtomBody.textWanted(hash: hash, offset: offset, window: window, uris: uris))
            case .payload(let kind, let sequence, let bytes):
                outgoing.append(AtomBody.numberedPatchSet(
                    property: kind == .text ? uris.pattern : uris.patternChange, sequence: sequence, text: bytes, uris: uris))
            case .piece(let kind, let sequence, let offset, let length, let hash, let bytes):
                outgoing.append(AtomBody.textPiece(
                    property: kind == .text ? uris.pattern : uris.patternChange, sequence: sequence, offset: offset, length: length,
                    hash: hash, bytes: bytes, uris: uris))
            }
        }
    }
}
