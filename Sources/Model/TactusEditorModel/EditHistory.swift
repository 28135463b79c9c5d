import TactusEngine
import TactusModel

/// The editor's undo and redo stacks: whole-document snapshots (a document
/// is a value; its arrays are shared until changed).
///
/// At most `depth` steps are kept, and fewer for big patterns: the undo
/// stack's snapshots hold at most `noteBudget` notes together (2^20, about
/// 70 MB; every step is kept for patterns of up to 5,242 notes), the oldest
/// going first. Recording an edit clears the redo stack. O(1) amortized per
/// step, plus O(depth) when the oldest snapshot is dropped.
struct EditHistory {
    /// What undo restores: the document, and what was selected in which lane.
    struct Snapshot {
        var document: EditorDocument
        var selection: NoteSelection
        var laneIndex: Int
    }

    static var depth: Int { 200 }
    static var noteBudget: Int { 1 << 20 }

    private(set) var undoStack: [Snapshot] = []
    private(set) var redoStack: [Snapshot] = []
    /// The notes held by `undoStack`'s snapshots together.
    private var undoNotes = 0

    /// `before` is the state an edit just left.
    mutating func record(_ before: Snapshot) {
        push(before)
        redoStack.removeAll()
    }

    /// Forgets every step.
    mutating func removeAll() {
        undoStack.removeAll()
        redoStack.removeAll()
        undoNotes = 0
    }

    /// The state to go back to, with `current` kept for redo; nil when there is none.
    mutating func undo(from current: Snapshot) -> Snapshot? {
        guard let previous = undoStack.popLast() else { return nil }
        undoNotes -= previous.document.notes.count
        redoStack.append(current)
        return previous
    }

    /// The state to go forward to, with `current` kept for undo; nil when there is none.
    mutating func redo(from current: Snapshot) -> Snapshot? {
        guard let next = redoStack.popLast() else { return nil }
        push(current)
        return next
    }

    private mutating func push(_ s: Snapshot) {
        undoStack.append(s)
        undoNotes += s.document.notes.count
        while undoStack.count > 1, undoStack.count > EditHistory.depth || undoNotes > EditHistory.noteBudget {
            undoNotes -= undoStack.removeFirst().document.notes.count
        }
    }
}
