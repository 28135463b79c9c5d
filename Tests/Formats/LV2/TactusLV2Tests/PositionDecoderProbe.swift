import CLV2
import TactusEngine
import TactusLV2

/// The plugin's position decoder as these tests drive it (its `package`
/// parts, so that no test hook ships in the plugin): an
/// object's properties in, the decoder's result and the full walk's out.
struct PositionDecoderProbe: ~Copyable {
    private var decoder: PositionDecoder

    /// `keys`: the URIDs of frame, speed, bar, barBeat, beat, beatsPerBar,
    /// beatsPerMinute and beatUnit; `types`: those of Float, Double, Long and Int.
    init(keys: [LV2_URID], types: [LV2_URID]) {
        decoder = PositionDecoder(ids: PositionURIDs(
            frame: keys[0], speed: keys[1], bar: keys[2], barBeat: keys[3], beat: keys[4], beatsPerBar: keys[5],
            beatsPerMinute: keys[6], beatUnit: keys[7], float: types[0], double: types[1], long: types[2], int: types[3]))
    }

    /// Decodes `properties` (an object's body after its id and otype) with the
    /// decoder, and again with the full walk alone; `quick` says whether the
    /// decoder read them as the kept layout.
    mutating func decode(_ properties: [UInt8]) -> (decoded: PositionUpdate, inFull: PositionUpdate, quick: Bool) {
        properties.withUnsafeBytes { bytes in
            let base = bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 8)!
            var object = AtomObjectReader(properties: base, byteCount: bytes.count, objectType: 0)
            let quick = decoder.isKeptLayout(object.unreadBytes)
            let decoded = decoder.decode(&object)
            var again = AtomObjectReader(properties: base, byteCount: bytes.count, objectType: 0)
            var varying = PositionDecoder.VaryingValues()
            return (decoded, PositionDecoder.decodeInFull(&again, ids: decoder.ids, varying: &varying), quick)
        }
    }
}
