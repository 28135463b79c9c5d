/// The note the pattern editor auditions (timing contract §8.1): a key a
/// musician clicked or drew, heard while the transport is stopped.
///
/// At most one sounds. The sequencer ends it at a block start once
/// `framesLeft` has run out or the transport rolls, at a CC 123/120, or
/// after a deactivation, so that it can never be left sounding.
///
/// Value type; audio thread; every operation O(1).
@usableFromInline
struct Audition: Sendable, BitwiseCopyable {
    /// How long an auditioned note sounds at least, in seconds.
    static var seconds: Double { 0.25 }

    /// Whether a note-on was sent and its note-off is still owed.
    @usableFromInline var isSounding = false
    /// The sounding note's status byte for its note-off (`0x80 | channel`).
    var noteOffStatus: UInt8 = 0x80
    var key: UInt8 = 0
    /// Frames from the current block's first frame to the earliest frame its note-off may go out.
    var framesLeft: Int64 = 0

    /// `0.25 × sampleRate` frames, rounded up.
    static func duration(sampleRate: Double) -> Int64 {
        Audition.frames(seconds: seconds, sampleRate: sampleRate)
    }

    /// `seconds × sampleRate` frames rounded up, at least 1 and at most 2^62
    /// (a host may give an absurd rate; the product must still be a frame count).
    static func frames(seconds: Double, sampleRate: Double) -> Int64 {
        let frames = (sampleRate * seconds).rounded(.up)
        guard frames >= 1 else { return 1 }
        return frames < 4.6e18 ? Int64(frames) : 1 << 62
    }
}
