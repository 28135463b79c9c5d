import CLV2
import TactusEngine
import TactusModel

/// Appends events to an output atom sequence in a host's port buffer, the way
/// `lv2_atom_forge` does for the official examples, without leaving the
/// buffer's capacity. Realtime-safe.
///
/// The host announces the capacity in the sequence's `atom.size` before
/// `run()`; the writer replaces it with the size written so far after every
/// event, so the sequence is always well formed.
struct AtomSequenceWriter {
    private let sequence: UnsafeMutableRawPointer?
    /// Bytes available after the atom header (the sequence body).
    private let capacity: Int
    /// Bytes of the sequence body used.
    private var used = MemoryLayout<LV2_Atom_Sequence_Body>.size

    @_noLocks
    init(_ port: UnsafeMutablePointer<LV2_Atom_Sequence>?, sequenceType: LV2_URID) {
        guard let port else {
            sequence = nil
            capacity = 0
            return
        }
        let available = Int(port.pointee.atom.size)
        sequence = UnsafeMutableRawPointer(port)
        capacity = available
        guard available >= MemoryLayout<LV2_Atom_Sequence_Body>.size else {
            // Not even room for an empty sequence: write nothing at all.
            port.pointee.atom.size = 0
            return
        }
        port.pointee.atom.type = sequenceType
        port.pointee.atom.size = UInt32(used)
        port.pointee.body.unit = 0
        port.pointee.body.pad = 0
    }

    var isConnected: Bool { sequence != nil && capacity >= MemoryLayout<LV2_Atom_Sequence_Body>.size }

    /// The sequence body's capacity (what the host offered), in bytes.
    var bodyCapacity: Int {
        @_noLocks get { isConnected ? capacity : 0 }
    }

    /// Bytes still free.
    var freeBytes: Int {
        @_noLocks get { isConnected ? capacity - used : 0 }
    }

    /// How many more events with bodies of `bodySize` bytes fit.
    @_transparent @_noLocks
    func room(forBodiesOf bodySize: Int) -> Int {
        guard isConnected else { return 0 }
        return (capacity - used) / AtomSequenceWriter.eventBytes(bodySize)
    }

    @_noLocks @inline(__always)
    static func eventBytes(_ bodySize: Int) -> Int { (16 + bodySize + 7) & ~7 }

    /// Reserves an event; returns a pointer to its body (zeroed padding included), or nil when full.
    @_noLocks
    mutating func appendEvent(frames: Int64, type: LV2_URID, bodySize: Int) -> UnsafeMutableRawPointer? {
        guard let sequence, isConnected else { return nil }
        let bytes = AtomSequenceWriter.eventBytes(bodySize)
        guard bytes <= capacity - used else { return nil }
        let event = sequence + MemoryLayout<LV2_Atom>.size + used
        event.storeBytes(of: frames, as: Int64.self)
        event.storeBytes(of: UInt32(bodySize), toByteOffset: 8, as: UInt32.self)
        event.storeBytes(of: type, toByteOffset: 12, as: UInt32.self)
        (event + 16).initializeMemory(as: UInt8.self, repeating: 0, count: bytes - 16)
        used += bytes
        sequence.storeBytes(of: UInt32(used), as: UInt32.self)
        return event + 16
    }

    /// A 3-byte MIDI message.
    @_noLocks
    mutating func appendMIDI(frames: Int64, type: LV2_URID, _ status: UInt8, _ data1: UInt8, _ data2: UInt8) -> Bool {
        guard let body = appendEvent(frames: frames, type: type, bodySize: 3) else { return false }
        body.storeBytes(of: status, as: UInt8.self)
        body.storeBytes(of: data1, toByteOffset: 1, as: UInt8.self)
        body.storeBytes(of: data2, toByteOffset: 2, as: UInt8.self)
        return true
    }

    /// An object with no properties (`state:StateChanged`).
    @_noLocks
    mutating func appendObject(frames: Int64, uris: UnsafePointer<URIDTable>, objectType: LV2_URID) -> Bool {
        guard let body = appendEvent(frames: frames, type: uris.pointee.atomObject, bodySize: 8) else { return false }
        body.storeBytes(of: UInt32(0), as: UInt32.self)
        body.storeBytes(of: objectType, toByteOffset: 4, as: UInt32.self)
        return true
    }

    /// `[] a patch:Set ; patch:property <property> ; patch:value "bytes"^^valueType`,
    /// with a string-like value (a terminating NUL is added), and
    /// `patch:sequenceNumber` (an `atom:Int`) when `sequenceNumber` is not 0.
    @_noLocks
    mutating func appendPatchSet(
        frames: Int64, uris: UnsafePointer<URIDTable>, property: LV2_URID, valueType: LV2_URID,
        bytes: UnsafeRawBufferPointer, sequenceNumber: Int32 = 0
    ) -> Bool {
        let valueSize = bytes.count + 1
        let numbered = sequenceNumber != 0 ? 24 : 0
        let bodySize = 8 + 24 + numbered + 16 + ((valueSize + 7) & ~7)
        guard let body = appendEvent(frames: frames, type: uris.pointee.atomObject, bodySize: bodySize) else { return false }
        writePatchSetHeader(body, uris: uris, property: property)
        if numbered != 0 {
            let number = body + 8 + 24
            number.storeBytes(of: uris.pointee.patchSequenceNumber, as: UInt32.self)
            number.storeBytes(of: UInt32(4), toByteOffset: 8, as: UInt32.self)
            number.storeBytes(of: uris.pointee.atomInt, toByteOffset: 12, as: UInt32.self)
            number.storeBytes(of: sequenceNumber, toByteOffset: 16, as: Int32.self)
        }
        let value = body + 8 + 24 + numbered
        value.storeBytes(of: uris.pointee.patchValue, as: UInt32.self)
        value.storeBytes(of: UInt32(valueSize), toByteOffset: 8, as: UInt32.self)
        value.storeBytes(of: valueType, toByteOffset: 12, as: UInt32.self)
        if let base = bytes.baseAddress, bytes.count > 0 {
            (value + 16).copyMemory(from: base, byteCount: bytes.count)
        }
        return true
    }

    /// `[] a patch:Set ; patch:property <property> ; patch:value <n>` with an `atom:Long`.
    @_noLocks
    mutating func appendPatchSet(frames: Int64, uris: UnsafePointer<URIDTable>, property: LV2_URID, long: Int64) -> Bool {
        let bodySize = 8 + 24 + 24
        guard let body = appendEvent(frames: frames, type: uris.pointee.atomObject, bodySize: bodySize) else { return false }
        writePatchSetHeader(body, uris: uris, property: property)
        let value = body + 8 + 24
        value.storeBytes(of: uris.pointee.patchValue, as: UInt32.self)
        value.storeBytes(of: UInt32(8), toByteOffset: 8, as: UInt32.self)
        value.storeBytes(of: uris.pointee.atomLong, toByteOffset: 12, as: UInt32.self)
        value.storeBytes(of: long, toByteOffset: 16, as: Int64.self)
        return true
    }

    /// `[] a tactus:textPiece ; patch:property tactus:pattern ;
    /// patch:sequenceNumber n ; tactus:textOffset o ; tactus:textLength l ;
    /// tactus:textHash h ; patch:value "..."^^atom:Chunk`: bytes `o ..< o + count`
    /// of the pattern text of `l` bytes whose `TextHash` is `h` (the Longs
    /// hold the hash's bits).
    @_noLocks
    mutating func appendTextPiece(
        frames: Int64, uris: UnsafePointer<URIDTable>, sequenceNumber: Int32, offset: Int, length: Int, hash: UInt64,
        bytes: UnsafeRawBufferPointer
    ) -> Bool {
        let bodySize = 8 + 24 + 24 + 3 * 24 + 16 + ((bytes.count + 7) & ~7)
        guard let body = appendEvent(frames: frames, type: uris.pointee.atomObject, bodySize: bodySize) else { return false }
        body.storeBytes(of: UInt32(0), as: UInt32.self)
        body.storeBytes(of: uris.pointee.textPiece, toByteOffset: 4, as: UInt32.self)
        var p = body + 8
        p.storeBytes(of: uris.pointee.patchProperty, as: UInt32.self)
        p.storeBytes(of: UInt32(4), toByteOffset: 8, as: UInt32.self)
        p.storeBytes(of: uris.pointee.atomURID, toByteOffset: 12, as: UInt32.self)
        p.storeBytes(of: uris.pointee.pattern, toByteOffset: 16, as: UInt32.self)
        p += 24
        storeInt(p, key: uris.pointee.patchSequenceNumber, value: sequenceNumber, uris: uris)
        p += 24
        storeLong(p, key: uris.pointee.textOffset, value: Int64(offset), uris: uris)
        storeLong(p + 24, key: uris.pointee.textLength, value: Int64(length), uris: uris)
        storeLong(p + 48, key: uris.pointee.textHash, value: Int64(bitPattern: hash), uris: uris)
        p += 72
        p.storeBytes(of: uris.pointee.patchValue, as: UInt32.self)
        p.storeBytes(of: UInt32(bytes.count), toByteOffset: 8, as: UInt32.self)
        p.storeBytes(of: uris.pointee.atomChunk, toByteOffset: 12, as: UInt32.self)
        if let base = bytes.baseAddress, bytes.count > 0 { (p + 16).copyMemory(from: base, byteCount: bytes.count) }
        return true
    }

    /// `[] a tactus:textReceipt ; patch:sequenceNumber n ; tactus:textOffset o`:
    /// of the editor's edit `n`, the first `o` bytes are here.
    @_noLocks
    mutating func appendReceipt(frames: Int64, uris: UnsafePointer<URIDTable>, sequenceNumber: Int32, offset: Int) -> Bool {
        guard let body = appendEvent(frames: frames, type: uris.pointee.atomObject, bodySize: 8 + 24 + 24) else { return false }
        body.storeBytes(of: UInt32(0), as: UInt32.self)
        body.storeBytes(of: uris.pointee.textReceipt, toByteOffset: 4, as: UInt32.self)
        storeInt(body + 8, key: uris.pointee.patchSequenceNumber, value: sequenceNumber, uris: uris)
        storeLong(body + 32, key: uris.pointee.textOffset, value: Int64(offset), uris: uris)
        return true
    }

    @_noLocks @inline(__always)
    private func storeInt(_ p: UnsafeMutableRawPointer, key: LV2_URID, value: Int32, uris: UnsafePointer<URIDTable>) {
        p.storeBytes(of: key, as: UInt32.self)
        p.storeBytes(of: UInt32(0), toByteOffset: 4, as: UInt32.self)
        p.storeBytes(of: UInt32(4), toByteOffset: 8, as: UInt32.self)
        p.storeBytes(of: uris.pointee.atomInt, toByteOffset: 12, as: UInt32.self)
        p.storeBytes(of: value, toByteOffset: 16, as: Int32.self)
        p.storeBytes(of: UInt32(0), toByteOffset: 20, as: UInt32.self)
    }

    @_noLocks @inline(__always)
    private func storeLong(_ p: UnsafeMutableRawPointer, key: LV2_URID, value: Int64, uris: UnsafePointer<URIDTable>) {
        p.storeBytes(of: key, as: UInt32.self)
        p.storeBytes(of: UInt32(0), toByteOffset: 4, as: UInt32.self)
        p.storeBytes(of: UInt32(8), toByteOffset: 8, as: UInt32.self)
        p.storeBytes(of: uris.pointee.atomLong, toByteOffset: 12, as: UInt32.self)
        p.storeBytes(of: value, toByteOffset: 16, as: Int64.self)
    }

    /// `[] a tactus:playhead ; time:beat b ; time:beatsPerMinute t ; time:speed s ; time:beatsPerBar m`,
    /// each an `atom:Double` (§8.2).
    @_noLocks
    mutating func appendPlayhead(frames: Int64, uris: UnsafePointer<URIDTable>, _ playhead: Playhead) -> Bool {
        guard let body = appendEvent(frames: frames, type: uris.pointee.atomObject, bodySize: 8 + 4 * 24) else { return false }
        body.storeBytes(of: UInt32(0), as: UInt32.self)
        body.storeBytes(of: uris.pointee.playhead, toByteOffset: 4, as: UInt32.self)
        let keys = (uris.pointee.timeBeat, uris.pointee.timeBeatsPerMinute, uris.pointee.timeSpeed)
        let values = (playhead.beat, playhead.beatsPerMinute, playhead.speed)
        storeDouble(body + 8, key: keys.0, value: values.0, uris: uris)
        storeDouble(body + 32, key: keys.1, value: values.1, uris: uris)
        storeDouble(body + 56, key: keys.2, value: values.2, uris: uris)
        storeDouble(body + 80, key: uris.pointee.timeBeatsPerBar, value: playhead.beatsPerBar, uris: uris)
        return true
    }

    @_noLocks @inline(__always)
    private func storeDouble(_ p: UnsafeMutableRawPointer, key: LV2_URID, value: Double, uris: UnsafePointer<URIDTable>) {
        p.storeBytes(of: key, as: UInt32.self)
        p.storeBytes(of: UInt32(8), toByteOffset: 8, as: UInt32.self)
        p.storeBytes(of: uris.pointee.atomDouble, toByteOffset: 12, as: UInt32.self)
        p.storeBytes(of: value, toByteOffset: 16, as: Double.self)
    }

    /// Object body header and the `patch:property` property (24 bytes).
    @_noLocks
    private func writePatchSetHeader(_ body: UnsafeMutableRawPointer, uris: UnsafePointer<URIDTable>, property: LV2_URID) {
        body.storeBytes(of: UInt32(0), as: UInt32.self)
        body.storeBytes(of: uris.pointee.patchSet, toByteOffset: 4, as: UInt32.self)
        let p = body + 8
        p.storeBytes(of: uris.pointee.patchProperty, as: UInt32.self)
        p.storeBytes(of: UInt32(4), toByteOffset: 8, as: UInt32.self)
        p.storeBytes(of: uris.pointee.atomURID, toByteOffset: 12, as: UInt32.self)
        p.storeBytes(of: property, toByteOffset: 16, as: UInt32.self)
    }
}
