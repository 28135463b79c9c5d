import CLV2
import TactusEngine
import TactusModel

/// The URIDs a `time:Position` is read with: its keys and the numeric atom types.
package struct PositionURIDs {
    let frame, speed, bar, barBeat, beat, beatsPerBar, beatsPerMinute, beatUnit: LV2_URID
    let float, double, long, int: LV2_URID

    init(_ u: URIDTable) {
        self.init(
            frame: u.timeFrame, speed: u.timeSpeed, bar: u.timeBar, barBeat: u.timeBarBeat, beat: u.timeBeat,
            beatsPerBar: u.timeBeatsPerBar, beatsPerMinute: u.timeBeatsPerMinute, beatUnit: u.timeBeatUnit,
            float: u.atomFloat, double: u.atomDouble, long: u.atomLong, int: u.atomInt)
    }

    package init(
        frame: LV2_URID, speed: LV2_URID, bar: LV2_URID, barBeat: LV2_URID, beat: LV2_URID, beatsPerBar: LV2_URID,
        beatsPerMinute: LV2_URID, beatUnit: LV2_URID, float: LV2_URID, double: LV2_URID, long: LV2_URID, int: LV2_URID
    ) {
        self.frame = frame
        self.speed = speed
        self.bar = bar
        self.barBeat = barBeat
        self.beat = beat
        self.beatsPerBar = beatsPerBar
        self.beatsPerMinute = beatsPerMinute
        self.beatUnit = beatUnit
        self.float = float
        self.double = double
        self.long = long
        self.int = int
    }
}

/// Decodes `time:Position` objects into `PositionUpdate`s: every key as a
/// number; a key of another type, or too short for its type, makes the whole
/// update ignored (§6); unknown keys are ignored; of a key sent twice, the
/// last counts.
///
/// Guarantee: `decode` returns exactly what `decodeInFull` returns for the
/// same properties, whatever the bytes. A host that reports every block
/// (Carla) sends the same object each time but for the values of `frame`,
/// `bar`, `barBeat` and `beat`; so the decoder keeps the properties of the
/// last object it decoded in full, with a mask of the bytes those values
/// occupy. An object of the same size whose bytes equal the kept ones
/// outside the mask has the same keys, types, sizes and other values at the
/// same places, so its decoding is the kept one with those values read
/// again, with the same conversions: about ten 16-byte comparisons and a
/// few loads, instead of a walk down every key. Anything else (a new tempo
/// or speed, another layout, a malformed object) is decoded in full and kept
/// for the next time.
///
/// Storage is allocated at `init`; `decode` is allocation-free, O(size of
/// the object) and `@_noLocks`. Owned by the audio thread.
package struct PositionDecoder: ~Copyable {
    /// Largest object kept (its properties): 10 keys of 8-byte values.
    static var capacityBytes: Int { 256 }

    package let ids: PositionURIDs
    /// Per 16-byte chunk of the kept properties, two entries: the bits that
    /// must be equal (all but the varying values' bytes), then the chunk's
    /// bytes under that mask; side by side, so that a comparison reads one
    /// stretch of memory. Chunk i lies at offset 16 i, except the last, at
    /// `keptBytes - 16` (overlapping its predecessor when the size is not a
    /// multiple of 16).
    private let chunks: UnsafeMutablePointer<SIMD2<UInt64>>
    /// Scratch for building the masks, one byte per byte of the object.
    private let keepBytes: UnsafeMutableRawPointer
    /// Size of the kept properties in bytes; 0 when nothing is kept.
    private var keptBytes = 0
    private var chunkCount = 0
    /// Where each varying value lies, if the kept object has it as a number (the last one sent).
    private var frameAt = VaryingValue.absent, barAt = VaryingValue.absent
    private var barBeatAt = VaryingValue.absent, beatAt = VaryingValue.absent
    /// The kept object sends `frame` and `bar` as Longs and `barBeat` as a
    /// Float, as Ardour, Carla and jalv do: those three are then read with no
    /// test of their kinds.
    private var isCommonShape = false
    /// The full decoding of the kept properties.
    private var kept = PositionUpdate()

    /// A value read again from every object of the kept layout.
    struct VaryingValue {
        /// Offset of the value's body from the first property.
        var offset: Int
        var kind: NumberKind
        /// The kind as two flags, so that `read` takes two predictable
        /// branches (a switch on the kind compiles to an indirect jump).
        private var isWide = false, isInteger = false

        init(offset: Int, kind: NumberKind) {
            self.offset = offset
            self.kind = kind
            isWide = kind == .double || kind == .long
            isInteger = kind == .long || kind == .int
        }

        static var absent: VaryingValue { VaryingValue(offset: 0, kind: .absent) }

        /// The value in the object whose properties start at `base`.
        @_transparent @_noLocks
        func read(_ base: UnsafeRawPointer) -> Double {
            let p = base + offset
            if isWide {
                let bits = p.loadUnaligned(as: UInt64.self)
                return isInteger ? Double(Int64(bitPattern: bits)) : Double(bitPattern: bits)
            }
            let bits = p.loadUnaligned(as: UInt32.self)
            return isInteger ? Double(Int32(bitPattern: bits)) : Double(Float(bitPattern: bits))
        }
    }

    enum NumberKind: UInt8 { case absent, float, double, long, int }

    package init(ids: PositionURIDs) {
        self.ids = ids
        let chunkCapacity = PositionDecoder.capacityBytes / 16
        chunks = .allocate(capacity: 2 * chunkCapacity)
        keepBytes = .allocate(byteCount: PositionDecoder.capacityBytes, alignment: 16)
    }

    deinit {
        chunks.deallocate()
        keepBytes.deallocate()
    }

    /// Decodes the rest of `object`.
    @_noLocks @inline(__always)
    package mutating func decode(_ object: inout AtomObjectReader) -> PositionUpdate {
        let bytes = object.unreadBytes
        if let base = bytes.baseAddress, let update = decodeIfKeptLayout(base, count: bytes.count) { return update }
        return decodeAndKeep(&object)
    }

    /// The decoding of the `count` bytes of properties at `base` if they are
    /// laid out as the kept ones (the same as `decode`'s), else nil.
    @_transparent @_noLocks
    func decodeIfKeptLayout(_ base: UnsafeRawPointer, count: Int) -> PositionUpdate? {
        guard count == keptBytes, keptBytes != 0, equalsKeptOutsideVaryingValues(base) else { return nil }
        var update = kept
        if isCommonShape {
            update.frame = Double(base.loadUnaligned(fromByteOffset: frameAt.offset, as: Int64.self))
            update.bar = Double(base.loadUnaligned(fromByteOffset: barAt.offset, as: Int64.self))
            update.barBeat = Double(base.loadUnaligned(fromByteOffset: barBeatAt.offset, as: Float.self))
        } else {
            if frameAt.kind != .absent { update.frame = frameAt.read(base) }
            if barAt.kind != .absent { update.bar = barAt.read(base) }
            if barBeatAt.kind != .absent { update.barBeat = barBeatAt.read(base) }
        }
        if beatAt.kind != .absent { update.beat = beatAt.read(base) }
        return update
    }

    /// Whether `bytes` are as many as the kept ones and equal them outside the varying values.
    @_noLocks @inline(__always)
    package func isKeptLayout(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count == keptBytes, keptBytes != 0, let base = bytes.baseAddress else { return false }
        return equalsKeptOutsideVaryingValues(base)
    }

    /// Whether the `keptBytes` bytes at `base` equal the kept ones outside the varying values.
    @_transparent @_noLocks
    func equalsKeptOutsideVaryingValues(_ base: UnsafeRawPointer) -> Bool {
        // Four chunks a turn into two sums (fewer loop instructions, shorter chains).
        @inline(__always) func chunk(_ i: Int, at offset: Int) -> SIMD2<UInt64> {
            (base.loadUnaligned(fromByteOffset: offset, as: SIMD2<UInt64>.self) & chunks[2 &* i]) ^ chunks[2 &* i &+ 1]
        }
        var diff = SIMD2<UInt64>(), other = SIMD2<UInt64>()
        let last = chunkCount &- 1
        var i = 0
        while i &+ 4 <= last {
            diff |= chunk(i, at: i &<< 4) | chunk(i &+ 1, at: (i &+ 1) &<< 4)
            other |= chunk(i &+ 2, at: (i &+ 2) &<< 4) | chunk(i &+ 3, at: (i &+ 3) &<< 4)
            i &+= 4
        }
        while i < last {
            diff |= chunk(i, at: i &<< 4)
            i &+= 1
        }
        diff |= other | chunk(last, at: keptBytes &- 16)
        return diff == SIMD2<UInt64>()
    }

    /// The full decoding, which also keeps the object's layout for the next call.
    @_noLocks @inline(never)
    private mutating func decodeAndKeep(_ object: inout AtomObjectReader) -> PositionUpdate {
        let bytes = object.unreadBytes
        keptBytes = 0
        var varying = VaryingValues()
        let update = PositionDecoder.decodeInFull(&object, ids: ids, varying: &varying)
        frameAt = varying.frame
        barAt = varying.bar
        barBeatAt = varying.barBeat
        beatAt = varying.beat
        isCommonShape = frameAt.kind == .long && barAt.kind == .long && barBeatAt.kind == .float
        guard let base = bytes.baseAddress, bytes.count >= 16, bytes.count <= PositionDecoder.capacityBytes else { return update }
        keepBytes.initializeMemory(as: UInt8.self, repeating: 0xFF, count: bytes.count)
        func vary(_ value: VaryingValue) {
            guard value.kind != .absent else { return }
            let width = value.kind == .double || value.kind == .long ? 8 : 4
            (keepBytes + value.offset).initializeMemory(as: UInt8.self, repeating: 0, count: width)
        }
        vary(frameAt)
        vary(barAt)
        vary(barBeatAt)
        vary(beatAt)
        chunkCount = (bytes.count &+ 15) &>> 4
        for i in 0..<chunkCount {
            let offset = i == chunkCount &- 1 ? bytes.count &- 16 : i &<< 4
            let keep = keepBytes.loadUnaligned(fromByteOffset: offset, as: SIMD2<UInt64>.self)
            chunks[2 &* i] = keep
            chunks[2 &* i &+ 1] = base.loadUnaligned(fromByteOffset: offset, as: SIMD2<UInt64>.self) & keep
        }
        kept = update
        keptBytes = bytes.count
        return update
    }

    /// Where the varying values of an object lie.
    package struct VaryingValues {
        var frame = VaryingValue.absent, bar = VaryingValue.absent, barBeat = VaryingValue.absent, beat = VaryingValue.absent

        package init() {}
    }

    /// Walks every property of `object` once: the decoding `decode` agrees
    /// with. `varying` is told where the last `frame`, `bar`, `barBeat` and
    /// `beat` property's value lies (offset from the first property) and how
    /// it reads (`.absent` when it is not a number): the last one sent is the
    /// one that counts.
    @_noLocks @inline(__always)
    package static func decodeInFull(_ object: inout AtomObjectReader, ids: PositionURIDs, varying: inout VaryingValues) -> PositionUpdate {
        // The URIDs are read once, into registers; each property costs one walk
        // down a chain ordered as hosts send the keys.
        let frameKey = ids.frame, speedKey = ids.speed, barKey = ids.bar, barBeatKey = ids.barBeat, beatKey = ids.beat
        let perBarKey = ids.beatsPerBar, tempoKey = ids.beatsPerMinute, unitKey = ids.beatUnit
        let floatType = ids.float, doubleType = ids.double, longType = ids.long, intType = ids.int
        let start = object.unreadBytes.baseAddress
        var update = PositionUpdate()
        while let (key, value) = object.next() {
            let number: Double?
            var kind = NumberKind.float
            if value.type == floatType, value.size >= 4 { number = Double(value.body.loadUnaligned(as: Float.self)) }
            else if value.type == doubleType, value.size >= 8 { number = value.body.loadUnaligned(as: Double.self); kind = .double }
            else if value.type == longType, value.size >= 8 { number = Double(value.body.loadUnaligned(as: Int64.self)); kind = .long }
            else if value.type == intType, value.size >= 4 { number = Double(value.body.loadUnaligned(as: Int32.self)); kind = .int }
            else { number = nil }
            // A value that is not a number is no varying value: its bytes are compared.
            let at = number == nil || start == nil ? VaryingValue.absent : VaryingValue(offset: value.body - start!, kind: kind)
            if key == frameKey { update.frame = number; varying.frame = at }
            else if key == speedKey { update.speed = number }
            else if key == barKey { update.bar = number; varying.bar = at }
            else if key == barBeatKey { update.barBeat = number; varying.barBeat = at }
            else if key == beatKey { update.beat = number; varying.beat = at }
            else if key == perBarKey { update.beatsPerBar = number }
            else if key == tempoKey { update.beatsPerMinute = number }
            else if key != unitKey { continue }  // Unknown keys are ignored.
            if number == nil { update.hasInvalidKey = true }
        }
        return update
    }
}
