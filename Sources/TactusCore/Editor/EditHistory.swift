/// The editor's undo and redo stacks: whole-document snapshots (a document
/// is a value; its arrays are shared until changed), at most `depth` of each.
///
/// Recording an edit clears the redo stack. O(1) amortized per step, plus
/// O(depth) when the oldest snapshot is dropped.
struct EditHistory {
    /// What undo restores: the document, and what was selected in which lane.
    struct Snapshot {
        var document: EditorDocument
        var selection: NoteSelection
        var laneIndex: Int
    }

    static var depth: Int { 200 }

    private(set) var undoStack: [Snapshot] = []
    private(set) var redoStack: [Snapshot] = []

    /// `before` is the state an edit just left.
    mutating func record(_ before: Snapshot) {
        undoStack.append(before)
        if undoStack.count > EditHistory.depth { undoStack.removeFirst() }
        redoStack.removeAll()
    }

    /// The state to go back to, with `current` kept for redo; nil when there is none.
    mutating func undo(from current: Snapshot) -> Snapshot? {
        guard let previous = undoStack.popLast() else { return nil }
        redoStack.append(current)
        return previous
    }

    /// The state to go forward to, with `current` kept for undo; nil when there is none.
    mutating func redo(from current: Snapshot) -> Snapshot? {
        guard let next = redoStack.popLast() else { return nil }
        undoStack.append(current)
        return next
    }
}
