/// The contract's frame rule (timing contract §3): an event whose exact offset
/// from the latest update is `x` frames is emitted at `ceil(x - 1e-4)` frames
/// after that update: the first frame at or after the event, with a
/// ten-thousandth of a frame of tolerance for floating-point noise.
///
/// Stateless; O(1); safe on the audio thread.
public enum FrameRule {
    /// The tolerance of §3, in frames.
    public static var toleranceFrames: Double { 1e-4 }

    /// Offsets are saturated at ±2^62 frames (about 1.5 million years at
    /// 96 kHz) so that no input can make the conversion trap.
    public static var offsetLimit: Int64 { 1 << 62 }

    /// `ceil(x - 1e-4)` in frames; NaN maps to the (unreachable) upper limit.
    @_noLocks
    public static func frameOffset(exactOffset x: Double) -> Int64 {
        let t = x - toleranceFrames
        guard t < 4_611_686_018_427_387_904 else { return offsetLimit }  // also catches NaN
        guard t > -4_611_686_018_427_387_904 else { return -offsetLimit }
        let i = Int64(t)
        return Double(i) < t ? i &+ 1 : i
    }

    /// Whether an onset `x` frames after a start or jump is at or after the
    /// update's beat (§3: `x > -1e-4`), and so is played from it.
    @_noLocks @inline(__always)
    public static func isAtOrAfterUpdate(exactOffset x: Double) -> Bool {
        x > -toleranceFrames
    }
}
