import TactusEngine

/// Why the document refused an edit. A refused edit changes nothing.
public enum EditRejection: Error, Sendable {
    /// No note has this id (it was deleted, or belongs to another history).
    case noSuchNote(UInt32)
    /// No lane has this index.
    case noSuchLane(Int)
    /// A lane's length would leave `count` of its notes starting at or after
    /// it: the loop cannot shrink past a note (the prompt's `length` says the same).
    case notesAtOrAfterLength(count: Int)
    /// The edit breaks a rule of the pattern format (the same rules and
    /// reasons as parsing; no line number).
    case breaksFormat(PatternError)

    /// The reason as a sentence for a person.
    public var message: String {
        switch self {
        case .noSuchNote(let id): return "there is no note \(id)"
        case .noSuchLane(let lane): return "there is no lane \(lane + 1)"
        case .notesAtOrAfterLength(let count):
            return count == 1
                ? "a note starts at or after that length; move or delete it first"
                : "\(count) notes start at or after that length; move or delete them first"
        case .breaksFormat(let error): return error.reasonText
        }
    }
}
