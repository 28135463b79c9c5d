import CLV2

// The properties of the editor's messages as the plugin reads them
// (docs/plugin.md, "Messages"), read once for every format: the LV2
// plugin's run() (realtime) and the CLAP plugin's main thread.

/// `tactus:textPiece`: a piece of an edit. Absent properties stay nil (or
/// -1 for the offset and length, 0 for the number); the value is a
/// `atom:Chunk` or an `atom:String`.
public struct TextPieceFields {
    public var property: LV2_URID? = nil
    public var sequence: Int32 = 0
    public var offset: Int64 = -1
    public var length: Int64 = -1
    public var hash: UInt64? = nil
    public var value: AtomView? = nil

    @inlinable @_noLocks
    public init(_ object: inout AtomObjectReader, uris: borrowing URIDTable) {
        let chunk = uris.atomChunk, string = uris.atomString
        while let (key, v) = object.next() {
            if key == uris.patchProperty { property = v.urid(uris) }
            else if key == uris.patchSequenceNumber, let n = v.int(uris) { sequence = n }
            else if key == uris.textOffset, let n = v.long(uris) { offset = n }
            else if key == uris.textLength, let n = v.long(uris) { length = n }
            else if key == uris.textHash, let n = v.long(uris) { hash = UInt64(bitPattern: n) }
            else if key == uris.patchValue, v.type == chunk || v.type == string { value = v }
        }
    }
}

/// `urn:tactus:audition` (§8.1): `midi:noteNumber`, `midi:velocity` (100 when
/// absent) and `midi:channel` (0-15, as LV2 counts), each an `atom:Int`; nil
/// when out of range.
public struct AuditionFields {
    public var key: UInt8
    public var velocity: UInt8
    /// 1-16, as the engine counts.
    public var channel: UInt8

    @inlinable @_noLocks
    public init?(_ object: inout AtomObjectReader, uris: borrowing URIDTable) {
        var key: Int32 = -1, velocity: Int32 = 100, channel: Int32 = 0
        while let (k, v) = object.next() {
            guard let n = v.int(uris) else { continue }
            if k == uris.midiNoteNumber { key = n }
            else if k == uris.midiVelocity { velocity = n }
            else if k == uris.midiChannel { channel = n }
        }
        guard key >= 0, key < 128, velocity >= 1, velocity < 128, channel >= 0, channel < 16 else { return nil }
        self.key = UInt8(key)
        self.velocity = UInt8(velocity)
        self.channel = UInt8(channel + 1)
    }
}
