/// What the tracker knows about one sounding note.
public struct TrackedNote: Sendable, BitwiseCopyable {
    /// The beat its note-off is due at; `NoteTracker.cutBeat` when cut (due at once).
    public var offBeat: BeatPosition
    /// Absolute frame of its note-on (its note-off comes at least one frame later).
    public var onFrame: Int64
    /// Loop pass, exact end rank and index in the pattern of the onset that
    /// started it (for the same-frame merge rule).
    public var loop: Int64
    public var endRank: Int32
    public var noteIndex: Int32
    public var velocity: UInt8
    /// Position in the off-heap; -1 when the slot is silent.
    var heapIndex: Int32
    /// Index in the renderer's same-frame staging list while its note-on is staged, else -1.
    var stagedIndex: Int32
}

/// Every sounding note, one slot per (channel, key): 16 × 128 = 2048 slots,
/// with the note-offs ordered by beat in a binary heap.
///
/// The tracker is what makes "no stuck notes" hold: every note-on the renderer
/// emits enters it, and leaves it only through a note-off. Stop, jump, CC 123,
/// CC 120 and deactivation mark every note due now (`cutAll`).
///
/// Storage is allocated once at `init` (off the audio thread); after that
/// every operation is O(log 2048) or O(2048) at worst (`cutAll`), allocation-free
/// and `@_noLocks`. Owned by the audio thread.
public struct NoteTracker: ~Copyable {
    public static var slotCount: Int { @_noLocks get { 2048 } }
    /// The off beat of a cut note: before every real beat, so it is due at once.
    public static var cutBeat: BeatPosition { @_noLocks get { BeatPosition(whole: Int64.min / 2, fraction: 0) } }

    private let slots: UnsafeMutablePointer<TrackedNote>
    private let heap: UnsafeMutablePointer<UInt16>
    /// Number of sounding notes.
    public private(set) var count = 0

    public init() {
        slots = .allocate(capacity: NoteTracker.slotCount)
        slots.initialize(
            repeating: TrackedNote(
                offBeat: .zero, onFrame: 0, loop: 0, endRank: 0, noteIndex: 0, velocity: 0, heapIndex: -1, stagedIndex: -1),
            count: NoteTracker.slotCount)
        heap = .allocate(capacity: NoteTracker.slotCount)
        heap.initialize(repeating: 0, count: NoteTracker.slotCount)
    }

    deinit {
        slots.deallocate()
        heap.deallocate()
    }

    @_noLocks @inline(__always)
    public func isSounding(_ slot: Int) -> Bool { slots[slot].heapIndex >= 0 }

    @_noLocks @inline(__always)
    public func note(_ slot: Int) -> TrackedNote { slots[slot] }

    /// The slot whose note-off is due first, or nil when nothing sounds.
    public var first: Int? {
        @_noLocks get { count > 0 ? Int(heap[0]) : nil }
    }

    @_noLocks
    mutating func setStagedIndex(_ slot: Int, _ index: Int32) { slots[slot].stagedIndex = index }

    /// Starts a note in a silent slot.
    @_noLocks
    public mutating func start(
        slot: Int, offBeat: BeatPosition, onFrame: Int64, loop: Int64, endRank: Int32, noteIndex: Int32, velocity: UInt8, stagedIndex: Int32
    ) {
        slots[slot] = TrackedNote(
            offBeat: offBeat, onFrame: onFrame, loop: loop, endRank: endRank, noteIndex: noteIndex, velocity: velocity,
            heapIndex: Int32(count), stagedIndex: stagedIndex)
        heap[count] = UInt16(slot)
        count += 1
        siftUp(count - 1)
    }

    /// Silences a sounding slot (its note-off has been written).
    @_noLocks
    public mutating func end(slot: Int) {
        let i = Int(slots[slot].heapIndex)
        guard i >= 0 else { return }
        slots[slot].heapIndex = -1
        slots[slot].stagedIndex = -1
        count -= 1
        if i == count { return }
        heap[i] = heap[count]
        slots[Int(heap[i])].heapIndex = Int32(i)
        siftDown(i)
        siftUp(i)
    }

    /// Replaces the onset a sounding slot plays (same-frame merge, §5).
    @_noLocks
    public mutating func replace(slot: Int, offBeat: BeatPosition, loop: Int64, endRank: Int32, noteIndex: Int32, velocity: UInt8) {
        let i = Int(slots[slot].heapIndex)
        guard i >= 0 else { return }
        slots[slot].offBeat = offBeat
        slots[slot].loop = loop
        slots[slot].endRank = endRank
        slots[slot].noteIndex = noteIndex
        slots[slot].velocity = velocity
        siftDown(i)
        siftUp(i)
    }

    /// Makes every sounding note due at once. O(2048).
    @_noLocks
    public mutating func cutAll() {
        guard count > 0 else { return }
        for i in 0..<count { slots[Int(heap[i])].offBeat = NoteTracker.cutBeat }
        // All keys are now equal; the heap orders ties by slot, so rebuild it.
        var i = count / 2
        while i > 0 {
            i -= 1
            siftDown(i)
        }
    }

    @_noLocks @inline(__always)
    private func precedes(_ a: Int, _ b: Int) -> Bool {
        let x = slots[a].offBeat
        let y = slots[b].offBeat
        if x == y { return a < b }
        return x < y
    }

    @_noLocks
    private mutating func siftUp(_ start: Int) {
        var i = start
        let slot = Int(heap[i])
        while i > 0 {
            let parent = (i - 1) >> 1
            let p = Int(heap[parent])
            guard precedes(slot, p) else { break }
            heap[i] = UInt16(p)
            slots[p].heapIndex = Int32(i)
            i = parent
        }
        heap[i] = UInt16(slot)
        slots[slot].heapIndex = Int32(i)
    }

    @_noLocks
    private mutating func siftDown(_ start: Int) {
        var i = start
        let slot = Int(heap[i])
        while true {
            var child = 2 * i + 1
            if child >= count { break }
            if child + 1 < count && precedes(Int(heap[child + 1]), Int(heap[child])) { child += 1 }
            let c = Int(heap[child])
            guard precedes(c, slot) else { break }
            heap[i] = UInt16(c)
            slots[c].heapIndex = Int32(i)
            i = child
        }
        heap[i] = UInt16(slot)
        slots[slot].heapIndex = Int32(i)
    }
}
