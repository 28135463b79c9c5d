/// One position report from the host: the keys of an LV2 `time:Position`
/// object (or a JACK transport query), as numbers, each present or not.
///
/// A key the host did not send is nil and keeps its last value (timing
/// contract §1). The format glue sets `hasInvalidKey` when a position key came
/// with a non-numeric type, which makes the clock ignore the whole update (§6).
///
/// Value type, `BitwiseCopyable`: it crosses to the audio thread by copy.
/// Stored as eight doubles and a byte of presence bits (72 bytes, against
/// 129 for eight `Double?`), with 0 for every absent key, so that a host
/// reporting every block pays a few stores to build one and a short copy to
/// pass it on; two updates are equal when the same keys are present with
/// equal values.
public struct PositionUpdate: Sendable, BitwiseCopyable, Equatable {
    // The values, 0 where absent (what makes the synthesized == right).
    // Inlinable, with the accessors: every front end builds one an update a block.
    @usableFromInline var frameValue = 0.0, speedValue = 0.0, barValue = 0.0, barBeatValue = 0.0, beatValue = 0.0
    @usableFromInline var beatsPerBarValue = 0.0, beatsPerMinuteValue = 0.0, beatUnitValue = 0.0
    /// Bit i set: the key of the i-th value above is present.
    @usableFromInline var present: UInt8 = 0
    /// A position key arrived with a type that is not a number.
    public var hasInvalidKey: Bool

    /// `time:frame`: the host's transport frame (the beat when no beat key is present; for a floor report, §1 rule 1, what makes its beat exact).
    @inlinable public var frame: Double? {
        @_noLocks @inline(__always) get { present & 1 != 0 ? frameValue : nil }
        @_noLocks @inline(__always) set { frameValue = newValue ?? 0; present = newValue == nil ? present & ~1 : present | 1 }
    }
    /// `time:speed`: 1 is normal play, 0 stopped.
    @inlinable public var speed: Double? {
        @_noLocks @inline(__always) get { present & 2 != 0 ? speedValue : nil }
        @_noLocks @inline(__always) set { speedValue = newValue ?? 0; present = newValue == nil ? present & ~2 : present | 2 }
    }
    /// `time:bar`, counted from 0.
    @inlinable public var bar: Double? {
        @_noLocks @inline(__always) get { present & 4 != 0 ? barValue : nil }
        @_noLocks @inline(__always) set { barValue = newValue ?? 0; present = newValue == nil ? present & ~4 : present | 4 }
    }
    /// `time:barBeat`: beats since the start of `bar`.
    @inlinable public var barBeat: Double? {
        @_noLocks @inline(__always) get { present & 8 != 0 ? barBeatValue : nil }
        @_noLocks @inline(__always) set { barBeatValue = newValue ?? 0; present = newValue == nil ? present & ~8 : present | 8 }
    }
    /// `time:beat`: beats since the start of the timeline.
    @inlinable public var beat: Double? {
        @_noLocks @inline(__always) get { present & 16 != 0 ? beatValue : nil }
        @_noLocks @inline(__always) set { beatValue = newValue ?? 0; present = newValue == nil ? present & ~16 : present | 16 }
    }
    /// `time:beatsPerBar`.
    @inlinable public var beatsPerBar: Double? {
        @_noLocks @inline(__always) get { present & 32 != 0 ? beatsPerBarValue : nil }
        @_noLocks @inline(__always) set { beatsPerBarValue = newValue ?? 0; present = newValue == nil ? present & ~32 : present | 32 }
    }
    /// `time:beatsPerMinute`.
    @inlinable public var beatsPerMinute: Double? {
        @_noLocks @inline(__always) get { present & 64 != 0 ? beatsPerMinuteValue : nil }
        @_noLocks @inline(__always) set { beatsPerMinuteValue = newValue ?? 0; present = newValue == nil ? present & ~64 : present | 64 }
    }
    /// `time:beatUnit`: the note value of a beat (4 a quarter, 8 an eighth).
    /// Only the MIDI clock reads it (§12.1: a clock counts quarter notes).
    @inlinable public var beatUnit: Double? {
        @_noLocks @inline(__always) get { present & 128 != 0 ? beatUnitValue : nil }
        @_noLocks @inline(__always) set { beatUnitValue = newValue ?? 0; present = newValue == nil ? present & ~128 : present | 128 }
    }

    @_noLocks @inlinable
    public init(
        frame: Double? = nil, speed: Double? = nil, bar: Double? = nil, barBeat: Double? = nil,
        beat: Double? = nil, beatsPerBar: Double? = nil, beatsPerMinute: Double? = nil, beatUnit: Double? = nil,
        hasInvalidKey: Bool = false
    ) {
        self.hasInvalidKey = hasInvalidKey
        self.frame = frame
        self.speed = speed
        self.bar = bar
        self.barBeat = barBeat
        self.beat = beat
        self.beatsPerBar = beatsPerBar
        self.beatsPerMinute = beatsPerMinute
        self.beatUnit = beatUnit
    }

    /// True when no key at all is present (an empty `time:Position`).
    public var isEmpty: Bool { @_noLocks get { present == 0 } }
}

#if !hasFeature(Embedded)
extension PositionUpdate: CustomStringConvertible {
    /// The keys present, as a test's message shows them.
    public var description: String {
        let keys: [(String, Double?)] = [
            ("frame", frame), ("speed", speed), ("bar", bar), ("barBeat", barBeat), ("beat", beat),
            ("beatsPerBar", beatsPerBar), ("beatsPerMinute", beatsPerMinute), ("beatUnit", beatUnit),
        ]
        let shown = keys.compactMap { key, value in value.map { "\(key): \($0)" } } + (hasInvalidKey ? ["hasInvalidKey"] : [])
        return "PositionUpdate(\(shown.joined(separator: ", ")))"
    }
}
#endif
