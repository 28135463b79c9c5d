import TactusEngine
import TactusModel

/// The selected notes, by id: a sorted array (no hashing, which the
/// Embedded build of the core cannot seed).
///
/// `contains`, `insert` and `remove` are O(log n) to find plus O(n) to move
/// the array's tail; value type.
public struct NoteSelection: Equatable, Sendable {
    /// The selected ids, ascending, without repeats.
    public private(set) var ids: [UInt32] = []

    public init() {}

    public init(_ ids: [UInt32]) {
        for id in ids { insert(id) }
    }

    public var isEmpty: Bool { ids.isEmpty }
    public var count: Int { ids.count }

    public func contains(_ id: UInt32) -> Bool {
        let i = place(of: id)
        return i < ids.count && ids[i] == id
    }

    public mutating func insert(_ id: UInt32) {
        let i = place(of: id)
        if i == ids.count || ids[i] != id { ids.insert(id, at: i) }
    }

    public mutating func remove(_ id: UInt32) {
        let i = place(of: id)
        if i < ids.count, ids[i] == id { ids.remove(at: i) }
    }

    /// Selects `id` if it was not selected, unselects it if it was.
    public mutating func toggle(_ id: UInt32) {
        if contains(id) { remove(id) } else { insert(id) }
    }

    public mutating func removeAll() { ids.removeAll() }

    /// Keeps only the ids for which `keep` is true. O(n).
    mutating func filter(_ keep: (UInt32) -> Bool) {
        ids = ids.filter(keep)
    }

    /// The first index whose id is not below `id`.
    private func place(of id: UInt32) -> Int {
        var low = 0
        var high = ids.count
        while low < high {
            let mid = (low + high) / 2
            if ids[mid] < id { low = mid + 1 } else { high = mid }
        }
        return low
    }
}
