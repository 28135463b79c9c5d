/// The contract's frame rule (timing contract §3): an event whose exact offset
/// from the latest update is `x` frames is emitted at `ceil(x - 1e-4)` frames
/// after that update: the first frame at or after the event, with a
/// ten-thousandth of a frame of tolerance for floating-point noise.
///
/// Stateless; O(1); safe on the audio thread.
public enum FrameRule {
    /// The tolerance of §3, in frames.
    public static var toleranceFrames: Double { @_noLocks get { 1e-4 } }

    /// Offsets are saturated at ±2^62 frames (about 1.5 million years at
    /// 96 kHz) so that no input can make the conversion trap.
    public static var offsetLimit: Int64 { @_noLocks get { 1 << 62 } }

    /// The tolerance to 106 bits: 1/10000 exactly as the contract means it, not
    /// the double nearest it (which is 4.8e-21 larger).
    public static var tolerance: DoubleDouble { @_noLocks get { DoubleDouble(1e-4, -4.7921736023859296e-21) } }

    /// `ceil(x - 1e-4)` in frames, for `x` given to 106 bits (`TransportClock`
    /// computes it so: a double's error at a day of frames could move a frame);
    /// NaN maps to the (unreachable) upper limit.
    @_noLocks
    public static func frameOffset(exactOffset x: DoubleDouble) -> Int64 {
        let t = x - tolerance
        if let frames = t.ceiling() { return frames }
        return t.hi > 0 || t.hi.isNaN ? offsetLimit : -offsetLimit
    }

    /// `ceil(x - 1e-4)` in frames for an `x` known to a double.
    @_noLocks
    public static func frameOffset(exactOffset x: Double) -> Int64 {
        frameOffset(exactOffset: DoubleDouble(x))
    }

    /// Whether an onset `x` frames after a start or jump is at or after the
    /// update's beat (§3: `x > -1e-4`), and so is played from it.
    @_noLocks @inline(__always)
    public static func isAtOrAfterUpdate(exactOffset x: DoubleDouble) -> Bool {
        DoubleDouble(0) < x + tolerance
    }

    @_noLocks @inline(__always)
    public static func isAtOrAfterUpdate(exactOffset x: Double) -> Bool {
        isAtOrAfterUpdate(exactOffset: DoubleDouble(x))
    }
}
