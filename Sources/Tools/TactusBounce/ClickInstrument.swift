/// The project's own instrument for timing checks (docs/bounce.md, B4): each
/// note-on is one sample of amplitude `velocity / 127` on both channels, at
/// the first frame rendered after it was sent; everything else is silence.
///
/// An onset in its audio is exactly where the renderer delivered the event,
/// so a file of clicks shows where every note-on went. O(frames) per render.
public final class ClickInstrument: BounceInstrument {
    public let sampleRate: Int
    public let maximumBlockLength = 4096
    private var pending: Float = 0

    public init(sampleRate: Int) { self.sampleRate = sampleRate }

    public func send(_ event: BounceEvent) {
        if event.isNoteOn { pending = max(pending, Float(event.data2) / 127) }
    }

    public func render(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frameCount: Int) throws(BounceError) {
        left.update(repeating: 0, count: frameCount)
        right.update(repeating: 0, count: frameCount)
        if frameCount > 0, pending > 0 {
            left[0] = pending
            right[0] = pending
            pending = 0
        }
    }

    public func reset() throws(BounceError) { pending = 0 }
}
