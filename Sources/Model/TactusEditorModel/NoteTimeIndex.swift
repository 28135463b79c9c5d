import TactusEngine
import TactusModel

/// Which notes of a lane meet a span of beats, found without walking every
/// note: what a frame of the piano roll draws.
///
/// A note meets `first...last` when it starts at or before `last` and its
/// drawn end, `max(end, start + minimumSpan)` (a note is drawn at least a
/// few pixels wide, `minimumSpan` beats at the zoom in use), is at or after
/// `first`. `EditorDocument.notes(inLane:meeting:minimumSpan:)` is the
/// plain reference (it tests every note); this index gives the same notes
/// in the same order (text order, the order they are drawn in), which the
/// property tests check on random patterns and spans.
///
/// How: each lane's notes sorted by start, in blocks of `blockSize` that
/// know their latest end and, with the blocks before them, the latest end
/// so far (which only grows, so a binary search finds the first block that
/// can reach `first`). A query is O(log n + blocks passed + k log k) for k
/// notes found; only notes that start before the span and end in it make
/// it pass blocks one by one.
///
/// Immutable value; build it once per change of the document (O(n log n)).
public struct NoteTimeIndex: Sendable {
    /// Notes per block.
    public static var blockSize: Int { 32 }

    struct Entry: Sendable {
        var start: Double
        var end: Double
        /// Index in `EditorDocument.notes`.
        var index: Int32
    }

    struct Lane: Sendable {
        /// Sorted by start, then text order.
        var entries: [Entry] = []
        /// The latest end in each block.
        var blockEnd: [Double] = []
        /// The latest end in this block and every block before it.
        var endSoFar: [Double] = []
    }

    private var lanes: [Lane]

    /// The index of `document`'s notes, lane by lane.
    public init(_ document: EditorDocument) {
        var lanes = [Lane](repeating: Lane(), count: document.lanes.count)
        for (i, note) in document.notes.enumerated() where lanes.indices.contains(note.lane) {
            lanes[note.lane].entries.append(Entry(start: note.start.approximateValue, end: note.approximateEnd, index: Int32(i)))
        }
        for l in lanes.indices {
            lanes[l].entries.sort { $0.start < $1.start || ($0.start == $1.start && $0.index < $1.index) }
            let entries = lanes[l].entries
            var soFar = -Double.infinity
            var b = 0
            while b < entries.count {
                var latest = -Double.infinity
                for e in entries[b..<Swift.min(b + NoteTimeIndex.blockSize, entries.count)] { latest = Swift.max(latest, e.end) }
                soFar = Swift.max(soFar, latest)
                lanes[l].blockEnd.append(latest)
                lanes[l].endSoFar.append(soFar)
                b += NoteTimeIndex.blockSize
            }
        }
        self.lanes = lanes
    }

    /// Whether a note from `start` to `end` meets `first...last` (see the type).
    @inline(__always)
    public static func meets(start: Double, end: Double, first: Double, last: Double, minimumSpan: Double) -> Bool {
        start <= last && Swift.max(end, start + minimumSpan) >= first
    }

    /// The indices (in `EditorDocument.notes`, ascending: text order) of the
    /// notes of `lane` that meet `first...last`.
    public func notes(inLane lane: Int, from first: Double, through last: Double, minimumSpan: Double = 0) -> [Int] {
        guard lanes.indices.contains(lane), first <= last else { return [] }
        let span = minimumSpan.isFinite ? Swift.max(minimumSpan, 0) : 0
        let entries = lanes[lane].entries
        // Past `upper` notes start after the span.
        let upper = NoteTimeIndex.firstIndex(in: entries) { $0.start > last }
        // From `late` on every note up to `upper` meets it by its start alone.
        let late = NoteTimeIndex.firstIndex(in: entries) { $0.start >= first - span }
        var found: [Int] = []
        // Before `late`, only notes that end at or after `first`: from the first block that can.
        let blocks = lanes[lane].endSoFar
        var low = 0
        var high = blocks.count
        while low < high {
            let mid = (low + high) / 2
            if blocks[mid] >= first { high = mid } else { low = mid + 1 }
        }
        var i = low * NoteTimeIndex.blockSize
        let earlyEnd = Swift.min(late, upper)
        while i < earlyEnd {
            let block = i / NoteTimeIndex.blockSize
            if lanes[lane].blockEnd[block] < first {
                i = (block + 1) * NoteTimeIndex.blockSize
                continue
            }
            let stop = Swift.min((block + 1) * NoteTimeIndex.blockSize, earlyEnd)
            while i < stop {
                let e = entries[i]
                if NoteTimeIndex.meets(start: e.start, end: e.end, first: first, last: last, minimumSpan: span) { found.append(Int(e.index)) }
                i += 1
            }
        }
        var j = Swift.max(late, 0)
        while j < upper {
            let e = entries[j]
            if NoteTimeIndex.meets(start: e.start, end: e.end, first: first, last: last, minimumSpan: span) { found.append(Int(e.index)) }
            j += 1
        }
        found.sort()
        return found
    }

    /// The first index whose entry satisfies `after` (which is false, then true, along the entries).
    static func firstIndex(in entries: [Entry], where after: (Entry) -> Bool) -> Int {
        var low = 0
        var high = entries.count
        while low < high {
            let mid = (low + high) / 2
            if after(entries[mid]) { high = mid } else { low = mid + 1 }
        }
        return low
    }
}

extension EditorDocument {
    /// The plain reference for `NoteTimeIndex.notes(inLane:from:through:minimumSpan:)`:
    /// every note tested, O(n).
    public func notes(inLane lane: Int, from first: Double, through last: Double, minimumSpan: Double = 0) -> [Int] {
        guard first <= last else { return [] }
        let span = minimumSpan.isFinite ? Swift.max(minimumSpan, 0) : 0
        var found: [Int] = []
        for (i, note) in notes.enumerated() where note.lane == lane {
            if NoteTimeIndex.meets(start: note.start.approximateValue, end: note.approximateEnd, first: first, last: last, minimumSpan: span) {
                found.append(i)
            }
        }
        return found
    }
}
