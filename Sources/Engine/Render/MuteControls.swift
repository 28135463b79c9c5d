/// §7.6: a wrapper's mute controls, such as the plugin's `mute1` ... `mute8`
/// ports: lane i is muted while level i is at or above 0.5.
///
/// The renderer reads them itself, at most once a block and only in a block
/// that plays an onset (`BlockRenderer.readPortMutes(from:)`). The levels
/// belong to the wrapper, which keeps the pointers valid and every entry
/// pointing to a readable level (0 for an unconnected control) for as long as
/// the renderer may read them; the host writes the levels between blocks.
/// Thread: read on the audio thread; O(count).
public struct MuteControls {
    /// `count` pointers to the levels, one per lane from lane 0.
    public let levels: UnsafePointer<UnsafePointer<Float>>
    /// At most 64 (a lane bit each).
    public let count: Int

    @_noLocks
    public init(levels: UnsafePointer<UnsafePointer<Float>>, count: Int) {
        self.levels = levels
        self.count = min(max(count, 0), 64)
    }

    /// The lanes muted now, as bits (bit i: lane i).
    public var bits: UInt64 {
        @_noLocks get {
            var bits: UInt64 = 0
            for i in 0..<count where levels[i].pointee >= 0.5 { bits |= 1 &<< UInt64(i) }
            return bits
        }
    }
}
