import CLV2
import LV2Atoms
import Glibc
import TactusEngine
import TactusInProcessHost
import TactusModel

/// What the plugin can make of the control sequence a fuzz input wrote: the
/// events a careful reader finds in it, classified by what they may do.
///
/// The fuzzer writes anything (lying sizes, truncated bodies, wrong types);
/// the checker needs to know which of those events the plugin sees. It walks
/// the buffer with the codec's readers, by the rules of the atom
/// specification (an event whose header or body runs past the sequence ends
/// the walk), and reads each event from the buffer itself, so what it
/// classifies is exactly what the plugin was offered.
struct DeliveredInput {
    enum Kind: Equatable {
        /// A `time:Position` whose only position key is `time:speed` = 0, as a valid number: it must stop.
        case stop
        /// Any other `time:Position` object (it may start, stop, move or be ignored).
        case position
        /// MIDI CC 123 or CC 120: every sounding note ends.
        case allNotesOff
        /// A `patch:Set` or `patch:Get`, decoded.
        case patchSet(property: LV2_URID?, value: (type: LV2_URID, bytes: [UInt8])?)
        case patchGet(property: LV2_URID?)
        /// Anything else: ignored by a plugin that reads nothing it does not understand.
        case other

        static func == (a: Kind, b: Kind) -> Bool {
            switch (a, b) {
            case (.stop, .stop), (.position, .position), (.allNotesOff, .allNotesOff), (.other, .other): return true
            default: return false
            }
        }
    }

    struct Event {
        var frames: Int64
        var kind: Kind
        /// For tracing: the properties of an object, as (key, type, number if it reads as one).
        var detail: String = ""
    }

    let events: [Event]
    /// Whether events keep a readable detail (`TACTUS_FUZZ_TRACE`).
    static let tracing = getenv("TACTUS_FUZZ_TRACE") != nil

    init(_ sequence: ControlSequence, connected: Bool, uris: URIDTable) {
        guard connected else {
            events = []
            return
        }
        let base = UnsafeRawPointer(sequence.buffer).assumingMemoryBound(to: LV2_Atom_Sequence.self)
        var reader = AtomSequenceReader(base, sequenceType: uris.atomSequence)
        var found: [Event] = []
        while let event = reader.next() {
            let body = event.atom.bytes
            var detail = ""
            if DeliveredInput.tracing, event.atom.type == uris.atomObject || event.atom.type == uris.atomBlank, event.atom.size >= 8 {
                detail = DeliveredInput.properties(of: body).map { "\($0.key)/\($0.type)=\(DeliveredInput.number($0.type, $0.bytes, uris).map { "\($0)" } ?? "\($0.bytes)")" }.joined(separator: " ")
            }
            found.append(Event(frames: event.frames, kind: DeliveredInput.classify(type: event.atom.type, body: body, uris: uris), detail: detail))
        }
        events = found
    }

    static func classify(type: LV2_URID, body: UnsafeRawBufferPointer, uris: URIDTable) -> Kind {
        if type == uris.midiEvent {
            if body.count >= 2, body[0] & 0xF0 == 0xB0, body[1] == 123 || body[1] == 120 { return .allNotesOff }
            return .other
        }
        guard type == uris.atomObject || type == uris.atomBlank, body.count >= 8 else { return .other }
        let otype = body.loadUnaligned(fromByteOffset: 4, as: UInt32.self)
        let properties = properties(of: body)
        if otype == uris.timePosition {
            let positionKeys: Set<LV2_URID> = [
                uris.timeFrame, uris.timeSpeed, uris.timeBar, uris.timeBarBeat, uris.timeBeat, uris.timeBeatsPerBar,
                uris.timeBeatsPerMinute, uris.timeBeatUnit,
            ]
            let ours = properties.filter { positionKeys.contains($0.key) }
            if ours.count == 1, ours[0].key == uris.timeSpeed, number(ours[0].type, ours[0].bytes, uris) == 0 { return .stop }
            return .position
        }
        if otype == uris.patchSet {
            var property: LV2_URID? = nil
            var value: (LV2_URID, [UInt8])? = nil
            for p in properties {
                if p.key == uris.patchProperty { property = p.type == uris.atomURID && p.bytes.count >= 4 ? u32(p.bytes) : nil }
                else if p.key == uris.patchValue { value = (p.type, p.bytes) }
            }
            return .patchSet(property: property, value: value)
        }
        if otype == uris.patchGet {
            var property: LV2_URID? = nil
            for p in properties where p.key == uris.patchProperty {
                property = p.type == uris.atomURID && p.bytes.count >= 4 ? u32(p.bytes) : nil
            }
            return .patchGet(property: property)
        }
        return .other
    }

    /// An object's properties, as a careful reader finds them (a malformed one ends the walk).
    static func properties(of body: UnsafeRawBufferPointer) -> [(key: LV2_URID, type: LV2_URID, bytes: [UInt8])] {
        var out: [(LV2_URID, LV2_URID, [UInt8])] = []
        var object = AtomObjectReader(
            properties: body.baseAddress! + AtomLayout.objectHeaderBytes, byteCount: body.count - AtomLayout.objectHeaderBytes, objectType: 0)
        while let (key, value) = object.next() { out.append((key, value.type, Array(value.bytes))) }
        return out
    }

    static func number(_ type: LV2_URID, _ bytes: [UInt8], _ uris: URIDTable) -> Double? {
        bytes.withUnsafeBytes { b in
            if type == uris.atomDouble, b.count >= 8 { return b.loadUnaligned(as: Double.self) }
            if type == uris.atomFloat, b.count >= 4 { return Double(b.loadUnaligned(as: Float.self)) }
            if type == uris.atomLong, b.count >= 8 { return Double(b.loadUnaligned(as: Int64.self)) }
            if type == uris.atomInt, b.count >= 4 { return Double(b.loadUnaligned(as: Int32.self)) }
            return nil
        }
    }

    static func u32(_ bytes: [UInt8]) -> UInt32 { bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) } }
}
