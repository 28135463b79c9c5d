import TactusEngine

/// One note of the pattern being edited, with an identity that stays the
/// same while the note is moved, resized, re-velocitied, undone and redone.
///
/// Ids are handed out by the document (`EditorDocument`): in text order when
/// a text is loaded, then counting up for each note added; an id is never
/// given to a second note of the same document history. Beats are exact.
public struct EditorNote: Equatable, Sendable {
    /// The note's identity, for selection and undo.
    public let id: UInt32
    /// Index of its lane in `EditorDocument.lanes` (0 in version 1). A note
    /// stays in its lane: edits do not move notes between lanes.
    public internal(set) var lane: Int
    /// Beats from the start of its lane's loop, `0 <= start <` the lane's length.
    public var start: BeatRational
    /// Beats, `> 0`; may run past the loop's end.
    public var duration: BeatRational
    /// MIDI key, 0-127.
    public var key: UInt8
    /// MIDI velocity, 1-127.
    public var velocity: UInt8
    /// MIDI channel as people count it, 1-16.
    public var channel: UInt8
    /// The chance that the note plays in a pass (`prob=`, version 2), `0 < P <= 1`.
    public var probability: BeatRational
    /// Its controller locks (`ccN=V`, version 3, §10.5), kept as written:
    /// the editor moves, resizes and re-velocities a note, never its locks.
    public internal(set) var locks: [ControllerLock]

    init(id: UInt32, _ note: PatternNote) {
        self.id = id
        lane = note.lane
        start = note.start
        duration = note.duration
        key = note.key
        velocity = note.velocity
        channel = note.channel
        probability = note.probability
        locks = note.locks
    }

    /// The note as the pattern model holds it.
    public var patternNote: PatternNote {
        PatternNote(
            start: start, duration: duration, key: key, velocity: velocity, channel: channel, probability: probability,
            lane: lane, locks: locks)
    }

    /// Where the note ends, `start + duration`, as a `Double` (for drawing).
    public var approximateEnd: Double { start.approximateValue + duration.approximateValue }
}
