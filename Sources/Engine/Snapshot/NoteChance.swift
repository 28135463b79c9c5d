/// The deterministic coin of `prob=` (timing contract §7.4): whether a note
/// plays in a given pass of its lane, from a 64-bit hash of the seed, the
/// lane's name, the note's identity and the pass number.
///
/// The recipe is written out in the contract so that any implementation
/// reproduces it. `key` and `limit` run off the audio thread when a snapshot
/// is built; `plays` runs on it: O(1), allocation-free.
public enum NoteChance {
    /// The SplitMix64 finaliser: a bijection of 64-bit words that spreads every input bit.
    @_noLocks @inline(__always)
    public static func mix(_ value: UInt64) -> UInt64 {
        var x = value
        x ^= x >> 30
        x &*= 0xbf58_476d_1ce4_e5b9
        x ^= x >> 27
        x &*= 0x94d0_49bb_1331_11eb
        x ^= x >> 31
        return x
    }

    /// One step of the chain: `mix((h ^ v) + 0x9e3779b97f4a7c15)`.
    @_noLocks @inline(__always)
    public static func step(_ h: UInt64, _ v: UInt64) -> UInt64 {
        mix((h ^ v) &+ 0x9e37_79b9_7f4a_7c15)
    }

    /// FNV-1a (64 bits) of a lane name.
    public static func nameHash(_ name: [UInt8]) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in name {
            h ^= UInt64(b)
            h &*= 0x0000_0100_0000_01b3
        }
        return h
    }

    /// The hash of everything but the pass number.
    @_noLocks
    public static func key(seed: UInt32, laneNameHash: UInt64, start: BeatRational, key: UInt8, channel: UInt8, rank: Int) -> UInt64 {
        var h = step(0, UInt64(seed))
        h = step(h, laneNameHash)
        h = step(h, UInt64(bitPattern: start.numerator))
        h = step(h, UInt64(bitPattern: start.denominator))
        h = step(h, UInt64(key) + 256 * UInt64(channel))
        return step(h, UInt64(rank))
    }

    /// The largest hash with which a note of probability `p` plays:
    /// `h < p × 2^64` ⇔ `h <= ceil(p × 2^64) - 1`, exact.
    @_noLocks
    public static func limit(_ p: BeatRational) -> UInt64 {
        if p.numerator >= p.denominator { return UInt64.max }
        let scaled = (UInt128(UInt64(p.numerator)) << 64)
        let d = UInt128(UInt64(p.denominator))
        let ceiling = (scaled + d - 1) / d
        return UInt64(ceiling - 1)
    }

    /// Whether the note with `chanceKey` and `limit` plays in pass `pass` of its lane.
    @_noLocks @inline(__always)
    public static func plays(chanceKey: UInt64, limit: UInt64, pass: Int64) -> Bool {
        limit == UInt64.max || step(chanceKey, UInt64(bitPattern: pass)) <= limit
    }
}
