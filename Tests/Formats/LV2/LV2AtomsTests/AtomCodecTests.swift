import CLV2
import CLV2Forge
import LV2Atoms
import LV2HostKit
import TactusOffline
import Testing

/// The atom codec against LV2's own forge (lv2/atom/forge.h): what it writes
/// is byte for byte what `lv2_atom_forge` writes for the same values; what it
/// writes it reads back; a malformed sequence or object ends the walk where
/// it stops being readable, and never reads past its end.
@Suite("The atom codec writes what lv2_atom_forge writes and reads it back")
struct AtomCodecTests {
    static let map = URIDMap()
    static let uris = URIDTable(map.map)

    /// One property's value, as the tests generate them.
    enum Value: Equatable {
        case int(Int32), long(Int64), float(Float), double(Double), urid(LV2_URID)
        case chunk([UInt8]), text([UInt8]), path([UInt8])
    }

    static func randomValue(_ rng: inout SplitMix64) -> Value {
        func bytes(_ rng: inout SplitMix64) -> [UInt8] {
            let count = Int(rng.next() % 4 == 0 ? rng.next() % 300 : rng.next() % 20)
            return (0..<count).map { _ in UInt8(1 + rng.next() % 255) }  // no NUL: a string's text
        }
        switch rng.next() % 8 {
        case 0: return .int(Int32(truncatingIfNeeded: rng.next()))
        case 1: return .long(Int64(bitPattern: rng.next()))
        case 2: return .float(Float(bitPattern: UInt32(truncatingIfNeeded: rng.next())))
        case 3: return .double(Double(bitPattern: rng.next()))
        case 4: return .urid(LV2_URID(truncatingIfNeeded: rng.next()))
        case 5: return .chunk(bytes(&rng))
        case 6: return .text(bytes(&rng))
        default: return .path(bytes(&rng))
        }
    }

    static func add(_ value: Value, key: LV2_URID, to w: inout AtomObjectWriter) {
        switch value {
        case .int(let v): w.add(key, int: v, uris: uris)
        case .long(let v): w.add(key, long: v, uris: uris)
        case .float(let v): w.add(key, float: v, uris: uris)
        case .double(let v): w.add(key, double: v, uris: uris)
        case .urid(let v): w.add(key, urid: v, uris: uris)
        case .chunk(let b): b.withUnsafeBytes { w.add(key, type: uris.atomChunk, bytes: $0) }
        case .text(let b): b.withUnsafeBytes { w.add(key, type: uris.atomString, text: $0) }
        case .path(let b): b.withUnsafeBytes { w.add(key, type: uris.atomPath, text: $0) }
        }
    }

    /// The same object through lv2_atom_forge: an atom header and its body.
    static func forged(otype: LV2_URID, _ properties: [(LV2_URID, Value)], capacity: Int = 1 << 16) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: capacity)
        var forge = LV2_Atom_Forge()
        lv2_atom_forge_init(&forge, map.map)
        var used = 0
        buffer.withUnsafeMutableBufferPointer { b in
            lv2_atom_forge_set_buffer(&forge, b.baseAddress, capacity)
            var frame = LV2_Atom_Forge_Frame()
            lv2_atom_forge_object(&forge, &frame, 0, otype)
            for (key, value) in properties {
                lv2_atom_forge_key(&forge, key)
                switch value {
                case .int(let v): lv2_atom_forge_int(&forge, v)
                case .long(let v): lv2_atom_forge_long(&forge, v)
                case .float(let v): lv2_atom_forge_float(&forge, v)
                case .double(let v): lv2_atom_forge_double(&forge, v)
                case .urid(let v): lv2_atom_forge_urid(&forge, v)
                case .chunk(let bytes):
                    lv2_atom_forge_atom(&forge, UInt32(bytes.count), forge.Chunk)
                    bytes.withUnsafeBytes { _ = lv2_atom_forge_write(&forge, $0.baseAddress, UInt32(bytes.count)) }
                case .text(let bytes), .path(let bytes):
                    let type = if case .text = value { forge.String } else { forge.Path }
                    bytes.withUnsafeBytes {
                        _ = lv2_atom_forge_typed_string(&forge, type, $0.baseAddress?.assumingMemoryBound(to: CChar.self), UInt32(bytes.count))
                    }
                }
            }
            lv2_atom_forge_pop(&forge, &frame)
            used = Int(forge.offset)
        }
        return Array(buffer[..<used])
    }

    static func randomObject(_ rng: inout SplitMix64) -> (otype: LV2_URID, properties: [(LV2_URID, Value)]) {
        let otype = LV2_URID(1 + rng.next() % 1000)
        let properties = (0..<Int(rng.next() % 9)).map { _ in (LV2_URID(1 + rng.next() % 1000), randomValue(&rng)) }
        return (otype, properties)
    }

    /// Reads a value back as the codec's readers see it.
    static func read(_ view: AtomView) -> Value? {
        let u = uris
        if let v = view.int(u) { return .int(v) }
        if let v = view.long(u) { return .long(v) }
        if view.type == u.atomFloat, view.size >= 4 { return .float(view.body.loadUnaligned(as: Float.self)) }
        if let v = view.double(u) { return .double(v) }
        if let v = view.urid(u) { return .urid(v) }
        if view.type == u.atomChunk { return .chunk(Array(view.bytes)) }
        if view.type == u.atomString { return .text(Array(view.textBytes())) }
        if view.type == u.atomPath { return .path(Array(view.textBytes())) }
        return nil
    }

    @Test func paddingIsLV2sToEightBytes() {
        for size in 0..<5000 { #expect(AtomLayout.padded(size) == Int(tactus_forge_pad_size(UInt32(size)))) }
        for size in [UInt32.max - 7, UInt32.max - 8, 1 << 31] {
            #expect(AtomLayout.padded(Int(size)) == Int(tactus_forge_pad_size(size)))
        }
        #expect(AtomLayout.eventBytes(bodySize: 3) == 24)
        #expect(AtomLayout.propertyBytes(valueSize: 9) == 32)
    }

    @Test func objectsAreLaidOutAsTheForgeLaysThemOut() {
        var rng = SplitMix64(seed: 28)
        for _ in 0..<2000 {
            let (otype, properties) = AtomCodecTests.randomObject(&rng)
            let written = AtomObjectWriter.atom(objectType: AtomCodecTests.uris.atomObject, otype: otype) { w in
                for (key, value) in properties { AtomCodecTests.add(value, key: key, to: &w) }
            }
            #expect(written == AtomCodecTests.forged(otype: otype, properties))
        }
    }

    @Test func whatTheWriterWritesTheReaderReadsBack() throws {
        var rng = SplitMix64(seed: 2028)
        for _ in 0..<2000 {
            let (otype, properties) = AtomCodecTests.randomObject(&rng)
            let atom = AtomObjectWriter.atom(objectType: AtomCodecTests.uris.atomObject, otype: otype) { w in
                for (key, value) in properties { AtomCodecTests.add(value, key: key, to: &w) }
            }
            try atom.withUnsafeBytes { raw in
                var object = try #require(AtomObjectReader(atom: raw.baseAddress!, byteCount: raw.count, uris: AtomCodecTests.uris))
                #expect(object.objectType == otype)
                var found: [(LV2_URID, Value)] = []
                while let (key, value) = object.next() { found.append((key, try #require(AtomCodecTests.read(value)))) }
                #expect(object.malformation == nil)
                #expect(found.map(\.0) == properties.map(\.0))
                for (a, b) in zip(found, properties) {
                    if case .float(let x) = a.1, case .float(let y) = b.1 { #expect(x.bitPattern == y.bitPattern) }
                    else if case .double(let x) = a.1, case .double(let y) = b.1 { #expect(x.bitPattern == y.bitPattern) }
                    else { #expect(a.1 == b.1) }
                }
            }
        }
    }

    @Test func measuringCountsWhatWritingWrites() {
        var rng = SplitMix64(seed: 7)
        for _ in 0..<500 {
            let (otype, properties) = AtomCodecTests.randomObject(&rng)
            var measure = AtomObjectWriter(measuring: ())
            for (key, value) in properties { AtomCodecTests.add(value, key: key, to: &measure) }
            let body = AtomObjectWriter.bytes(otype: otype) { w in
                for (key, value) in properties { AtomCodecTests.add(value, key: key, to: &w) }
            }
            #expect(measure.byteCount == body.count)
            #expect(!measure.overflowed)
        }
    }

    @Test func anObjectThatDoesNotFitWritesNothingPastItsRoom() {
        var rng = SplitMix64(seed: 99)
        for _ in 0..<500 {
            let (otype, properties) = AtomCodecTests.randomObject(&rng)
            let full = AtomObjectWriter.bytes(otype: otype) { w in
                for (key, value) in properties { AtomCodecTests.add(value, key: key, to: &w) }
            }
            let room = Int(rng.next() % UInt64(full.count + 1))
            var buffer = [UInt8](repeating: 0xA5, count: full.count + 16)
            let (count, overflowed) = buffer.withUnsafeMutableBytes { b in
                var w = AtomObjectWriter(at: b.baseAddress!, capacity: room, otype: otype)
                for (key, value) in properties { AtomCodecTests.add(value, key: key, to: &w) }
                return (w.byteCount, w.overflowed)
            }
            #expect(buffer[room...].allSatisfy { $0 == 0xA5 })
            #expect(overflowed == (room < full.count))
            if !overflowed { #expect(Array(buffer[..<count]) == full) }
        }
    }

    /// A sequence written event by event, against the forge's, then walked back.
    @Test func sequencesAreWrittenAsTheForgeWritesThemAndReadBack() throws {
        var rng = SplitMix64(seed: 11)
        let u = AtomCodecTests.uris
        for _ in 0..<300 {
            let capacity = 8 + Int(rng.next() % 600)
            var ours = [UInt8](repeating: 0x5A, count: 8 + capacity)
            var theirs = [UInt8](repeating: 0, count: 8 + capacity)
            var forge = LV2_Atom_Forge()
            lv2_atom_forge_init(&forge, AtomCodecTests.map.map)
            var written: [(frames: Int64, value: Value?, midi: [UInt8])] = []
            ours.withUnsafeMutableBytes { o in
                theirs.withUnsafeMutableBytes { t in
                    o.storeBytes(of: UInt32(capacity), as: UInt32.self)
                    let port = o.baseAddress!.assumingMemoryBound(to: LV2_Atom_Sequence.self)
                    var writer = AtomSequenceWriter(port, sequenceType: u.atomSequence)
                    lv2_atom_forge_set_buffer(&forge, t.baseAddress!.assumingMemoryBound(to: UInt8.self), 8 + capacity)
                    var sequenceFrame = LV2_Atom_Forge_Frame()
                    lv2_atom_forge_sequence_head(&forge, &sequenceFrame, 0)
                    var frames: Int64 = 0
                    for _ in 0..<Int(rng.next() % 12) {
                        frames += Int64(rng.next() % 64)
                        if rng.next() % 2 == 0 {
                            let midi = [UInt8(0x90 | rng.next() % 16), UInt8(rng.next() % 128), UInt8(rng.next() % 128)]
                            guard writer.appendMIDI(frames: frames, type: u.midiEvent, midi[0], midi[1], midi[2]) else { break }
                            lv2_atom_forge_frame_time(&forge, frames)
                            lv2_atom_forge_atom(&forge, 3, u.midiEvent)
                            midi.withUnsafeBytes { _ = lv2_atom_forge_write(&forge, $0.baseAddress, 3) }
                            written.append((frames, nil, midi))
                        } else {
                            let key = LV2_URID(1 + rng.next() % 100)
                            let value = AtomCodecTests.randomValue(&rng)
                            guard var object = writer.beginObject(otype: u.patchSet) else { break }
                            AtomCodecTests.add(value, key: key, to: &object)
                            guard writer.endObject(object, frames: frames, objectType: u.atomObject) else { break }
                            let body = AtomCodecTests.forged(otype: u.patchSet, [(key, value)])
                            lv2_atom_forge_frame_time(&forge, frames)
                            body.withUnsafeBytes { _ = lv2_atom_forge_write(&forge, $0.baseAddress, UInt32(body.count)) }
                            written.append((frames, value, []))
                        }
                    }
                    lv2_atom_forge_pop(&forge, &sequenceFrame)
                }
            }
            let size = 8 + Int(ours.withUnsafeBytes { $0.load(as: UInt32.self) })
            #expect(Array(ours[..<size]) == Array(theirs[..<size]))
            // What was refused left the sequence as it was, and what was written is read back.
            try ours.withUnsafeBytes { o in
                let sequence = o.baseAddress!.assumingMemoryBound(to: LV2_Atom_Sequence.self)
                var reader = AtomSequenceReader(sequence, sequenceType: u.atomSequence)
                var index = 0
                while let event = reader.next() {
                    let expected = try #require(index < written.count ? written[index] : nil)
                    #expect(event.frames == expected.frames)
                    if expected.value == nil {
                        #expect(event.atom.type == u.midiEvent && Array(event.atom.bytes) == expected.midi)
                    } else {
                        var object = try #require(AtomObjectReader(event.atom, uris: u))
                        #expect(object.objectType == u.patchSet)
                        #expect(object.next() != nil)
                    }
                    index += 1
                }
                #expect(index == written.count)
                #expect(reader.malformation == nil)
            }
        }
    }

    /// A sequence whose last event lies (a header cut short, a body past the
    /// end): the walk reads every event before it and says what it found.
    @Test func aMalformedEventEndsTheWalkAndIsNamed() {
        let u = AtomCodecTests.uris
        let events = ControlSequence(capacity: 256, sequenceType: u.atomSequence)
        events.append(frames: 1, type: u.midiEvent, body: [0x90, 60, 100])
        events.append(frames: 2, type: u.midiEvent, body: [0x80, 60, 0], declaredSize: 200)
        var reader = AtomSequenceReader(UnsafePointer(events.buffer.assumingMemoryBound(to: LV2_Atom_Sequence.self)), sequenceType: u.atomSequence)
        #expect(reader.next()?.frames == 1)
        #expect(reader.next()?.frames == nil)
        #expect(reader.malformation == .bodyPastEnd(offset: 24, size: 200))
        #expect(reader.next()?.frames == nil)

        let short = ControlSequence(capacity: 256, sequenceType: u.atomSequence)
        short.append(frames: 1, type: u.midiEvent, body: [0x90, 60, 100])
        short.setDeclaredSize(8 + 24 + 8)  // eight bytes of a second header
        var cut = AtomSequenceReader(UnsafePointer(short.buffer.assumingMemoryBound(to: LV2_Atom_Sequence.self)), sequenceType: u.atomSequence)
        #expect(cut.next()?.frames == 1)
        #expect(cut.next()?.frames == nil)
        #expect(cut.malformation == .truncatedHeader(offset: 24))

        // An unpadded last body that ends the sequence exactly is well formed.
        let exact = ControlSequence(capacity: 256, sequenceType: u.atomSequence)
        exact.append(frames: 1, type: u.midiEvent, body: [0x90, 60, 100])
        exact.setDeclaredSize(8 + 16 + 3)
        var whole = AtomSequenceReader(UnsafePointer(exact.buffer.assumingMemoryBound(to: LV2_Atom_Sequence.self)), sequenceType: u.atomSequence)
        #expect(whole.next()?.frames == 1)
        #expect(whole.next()?.frames == nil)
        #expect(whole.malformation == nil)
    }
}
