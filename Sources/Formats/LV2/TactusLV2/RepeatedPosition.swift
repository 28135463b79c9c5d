import CLV2
import LV2Atoms
import TactusEngine

// The plugin's one fast path: the position a host repeats every block.
//
// A host that reports its position every block (Carla, MusE, Element, JUCE
// hosts) sends the same `time:Position` object each time but for the values
// of `frame`, `bar`, `barBeat` and `beat`, as the only event of the block.
// `run()` asks this file first; it reads such an input in a few comparisons
// and hands the engine's quick repeat test (`Sequencer.applyIfCertainRepeat`)
// the update, and declines, having changed nothing, for anything else, which
// the plain path (`readControlInput`, `PositionReading`) then reads.
//
// Why it exists (BENCHMARKS.md, issue 28): against the plain path alone it
// saves about 380 of 780 instructions and 25 ns of a position-every-block
// `run()` (about 30% of Tactus's own block cost), and the every-block
// target (at most half of x42 stepseq's cost net of the floor) is met with
// it and not without. `RepeatedPositionTests` proves it equal to the plain
// path: the same update from the same bytes, whatever the bytes.

extension Plugin {
    /// The two control inputs of nearly every block, read as `readControlInput`
    /// would read them, without the walk: no event at all, and the one event of
    /// a host that reports its position every block, a `time:Position` laid out
    /// as the last one, that the engine finds a certain repeat. False, having
    /// done nothing, for any other input.
    @_transparent @_noLocks
    func readRepeatedPosition(frameCount: Int) -> Bool {
        let a = audio
        let u = uris
        var events = AtomSequenceReader(a.pointee.controlPort, sequenceType: u.pointee.atomSequence)
        guard let event = events.next() else { return true }  // nothing to read (or nothing readable)
        guard events.isAtEnd, let object = AtomObjectReader(event.atom, uris: u.pointee), object.objectType == u.pointee.timePosition,
            let update = a.pointee.positionLayout.decode(object.unreadBytes, uris: u)
        else { return false }
        let offset = event.frames < 0 ? 0 : (event.frames > Int64(frameCount) ? frameCount : Int(event.frames))
        // Anything but a certain repeat (changing nothing when refused) goes through the
        // walk, which reads the event again.
        return a.pointee.sequencer.applyIfCertainRepeat(update, atOffset: offset)
    }
}

/// The layout of the last `time:Position` read in full, so that an object
/// laid out the same way is decoded by comparing bytes and reading its
/// varying values again.
///
/// Guarantee: `decode` returns exactly what `PositionReading.update` returns
/// for the same properties, whatever the bytes. An object of the kept size
/// whose bytes equal the kept ones outside the varying values has the same
/// keys, types, sizes and other values at the same places, so its decoding
/// is the kept one with those values read again with the same conversions.
/// The kept bytes are 16-byte chunks with a mask over the varying values.
///
/// Storage is allocated at `init`; `decode` is allocation-free, O(size of
/// the object) and `@_noLocks`. Owned by the audio thread.
package struct RepeatedPositionLayout: ~Copyable {
    /// Largest object kept (its properties): 10 keys of 8-byte values.
    static var capacityBytes: Int { 256 }

    /// Per 16-byte chunk of the kept properties, two entries: the bits that
    /// must be equal (all but the varying values' bytes), then the chunk's
    /// bytes under that mask. Chunk i lies at offset 16 i, except the last, at
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
    /// `frame` and `bar` as Longs and `barBeat` as a Float, as Ardour, Carla
    /// and jalv send them: those three are then read with no test of their kinds.
    private var isCommonShape = false
    /// The full decoding of the kept properties.
    private var kept = PositionUpdate()

    package init() {
        chunks = .allocate(capacity: 2 * (RepeatedPositionLayout.capacityBytes / 16))
        keepBytes = .allocate(byteCount: RepeatedPositionLayout.capacityBytes, alignment: 16)
    }

    deinit {
        chunks.deallocate()
        keepBytes.deallocate()
    }

    /// The update the properties `bytes` (an object's body after its id and
    /// otype) carry: from the kept layout when they are laid out as it is,
    /// else in full, keeping their layout.
    @_transparent @_noLocks
    package mutating func decode(_ bytes: UnsafeRawBufferPointer, uris: UnsafePointer<URIDTable>) -> PositionUpdate? {
        guard let base = bytes.baseAddress else { return nil }
        if let update = decodeIfKept(base, count: bytes.count) { return update }
        return keep(bytes, uris: uris)
    }

    /// Whether `bytes` are laid out as the kept properties.
    package func isKept(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return false }
        return bytes.count == keptBytes && keptBytes != 0 && equalsKeptOutsideVaryingValues(base)
    }

    /// A value read again from every object of the kept layout.
    struct VaryingValue {
        /// Offset of the value's body from the first property; 0 with `isNumber` false: absent.
        var offset = 0
        var isNumber = false
        /// The kind as two flags, so that `read` takes two predictable branches.
        var isWide = false, isInteger = false

        static var absent: VaryingValue { VaryingValue() }

        /// The value in the object whose properties start at `base`.
        @_noLocks @inline(__always)
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

    /// The decoding of the `count` bytes of properties at `base` if they are
    /// laid out as the kept ones, else nil.
    @_transparent @_noLocks
    func decodeIfKept(_ base: UnsafeRawPointer, count: Int) -> PositionUpdate? {
        guard count == keptBytes, keptBytes != 0, equalsKeptOutsideVaryingValues(base) else { return nil }
        var update = kept
        if isCommonShape {
            update.frame = Double(base.loadUnaligned(fromByteOffset: frameAt.offset, as: Int64.self))
            update.bar = Double(base.loadUnaligned(fromByteOffset: barAt.offset, as: Int64.self))
            update.barBeat = Double(base.loadUnaligned(fromByteOffset: barBeatAt.offset, as: Float.self))
        } else {
            if frameAt.isNumber { update.frame = frameAt.read(base) }
            if barAt.isNumber { update.bar = barAt.read(base) }
            if barBeatAt.isNumber { update.barBeat = barBeatAt.read(base) }
        }
        if beatAt.isNumber { update.beat = beatAt.read(base) }
        return update
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

    /// The plain decoding of `bytes` (`PositionReading`), whose layout is kept
    /// for the next call: where the last `frame`, `bar`, `barBeat` and `beat`
    /// that read as numbers lie, and a mask over them.
    @_noLocks @inline(never)
    private mutating func keep(_ bytes: UnsafeRawBufferPointer, uris: UnsafePointer<URIDTable>) -> PositionUpdate {
        let u = uris
        keptBytes = 0
        var object = AtomObjectReader(properties: bytes.baseAddress!, byteCount: bytes.count, objectType: u.pointee.timePosition)
        let update = PositionReading.update(&object, uris: u)
        // The same walk again, for where the varying values lie (the last one sent counts).
        frameAt = .absent
        barAt = .absent
        barBeatAt = .absent
        beatAt = .absent
        var walk = AtomObjectReader(properties: bytes.baseAddress!, byteCount: bytes.count, objectType: u.pointee.timePosition)
        while let (key, value) = walk.next() {
            guard key == u.pointee.timeFrame || key == u.pointee.timeBar || key == u.pointee.timeBarBeat || key == u.pointee.timeBeat
            else { continue }
            var at = VaryingValue.absent
            if value.number(u.pointee) != nil {
                at.offset = value.body - bytes.baseAddress!
                at.isNumber = true
                at.isWide = value.type == u.pointee.atomDouble || value.type == u.pointee.atomLong
                at.isInteger = value.type == u.pointee.atomLong || value.type == u.pointee.atomInt
            }
            if key == u.pointee.timeFrame { frameAt = at }
            else if key == u.pointee.timeBar { barAt = at }
            else if key == u.pointee.timeBarBeat { barBeatAt = at }
            else { beatAt = at }
        }
        isCommonShape = frameAt.isNumber && frameAt.isWide && frameAt.isInteger && barAt.isNumber && barAt.isWide && barAt.isInteger
            && barBeatAt.isNumber && !barBeatAt.isWide && !barBeatAt.isInteger
        guard let base = bytes.baseAddress, bytes.count >= 16, bytes.count <= RepeatedPositionLayout.capacityBytes else { return update }
        keepBytes.initializeMemory(as: UInt8.self, repeating: 0xFF, count: bytes.count)
        func vary(_ value: VaryingValue) {
            guard value.isNumber else { return }
            (keepBytes + value.offset).initializeMemory(as: UInt8.self, repeating: 0, count: value.isWide ? 8 : 4)
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
}
