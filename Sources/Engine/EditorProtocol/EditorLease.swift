/// Whether a pattern editor is open, and when the playhead is next due
/// (timing contract §8.2).
///
/// An editor renews its lease with `urn:tactus:editorOpen` (the UI sends it
/// about once a second) and ends it with `urn:tactus:editorClosed`; a lease
/// not renewed runs out after `leaseSeconds`, so an editor that crashed or a
/// host that lost the message costs nothing for long. While leased, a
/// playhead is due every `1/30` s of frames while rolling, and at once after
/// a transport change (while stopped nothing moves, so nothing else is sent).
///
/// Value type; audio thread; every operation O(1).
@usableFromInline
struct EditorLease: Sendable, BitwiseCopyable {
    /// How long one `editorOpen` keeps the playhead coming.
    static var leaseSeconds: Double { 3 }
    /// Most playheads a second.
    static var playheadsPerSecond: Double { 30 }

    /// Frames of lease left at the end of the current block; 0 when closed.
    @usableFromInline private(set) var framesLeft: Int64 = 0
    /// Frames since the end of the block the last playhead described.
    private var framesSincePlayhead: Int64 = 0
    /// A transport change or a new lease asks for a playhead now.
    private var isDue = false
    private let leaseFrames: Int64
    private let interval: Int64

    init(sampleRate: Double) {
        leaseFrames = Audition.frames(seconds: EditorLease.leaseSeconds, sampleRate: sampleRate)
        interval = Audition.frames(seconds: 1 / EditorLease.playheadsPerSecond, sampleRate: sampleRate)
    }

    @inlinable var isOpen: Bool { framesLeft > 0 }

    /// `editorOpen`: a new lease, with a playhead at the end of this block if the editor was not open.
    mutating func open() {
        if framesLeft <= 0 { isDue = true }
        framesLeft = leaseFrames
    }

    /// `editorClosed`: no more playheads.
    mutating func close() {
        framesLeft = 0
        isDue = false
    }

    /// A transport change the display should show at once (not a repeat, not ignored).
    mutating func transportChanged() {
        if framesLeft > 0 { isDue = true }
    }

    /// The end of a block of `frameCount` frames: whether a playhead goes out now.
    mutating func endBlock(frameCount: Int, rolling: Bool) -> Bool {
        guard framesLeft > 0 else { return false }
        framesLeft &-= Int64(frameCount)
        framesSincePlayhead &+= Int64(frameCount)
        guard isDue || (rolling && framesSincePlayhead >= interval) else { return false }
        isDue = false
        framesSincePlayhead = 0
        return true
    }
}
