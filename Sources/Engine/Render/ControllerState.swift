/// What the renderer remembers of the controllers it sends (contract §10):
/// the last value sent for each controller and channel (§10.3), the value
/// the lanes' points would have set (what a restore sends), the locks that
/// hold (§10.5) and which note slot holds which, and the next controller
/// event due. Storage is allocated at `init` (off the audio thread); every
/// other method is allocation-free and lock-free.
struct ControllerState: ~Copyable {
    /// §10.3: the last value sent per slot (`ControllerMemory`), -1 for none.
    let lastSent: UnsafeMutablePointer<Int32>
    /// Where in the block's output the last message of a slot went, and at which frame (for a restore a lock takes back).
    let lastOutput: UnsafeMutablePointer<Int32>
    let lastOutputFrame: UnsafeMutablePointer<Int64>
    /// Whether that last message was a restore, and the value sent before it.
    let lastWasRestore: UnsafeMutablePointer<Bool>
    let beforeRestore: UnsafeMutablePointer<Int32>
    /// §10.5, per control change slot (channel × 120 + controller): the
    /// value sent before the lock (-1 none), and how many sounding notes hold it.
    let beforeLock: UnsafeMutablePointer<Int32>
    let holds: UnsafeMutablePointer<UInt16>
    /// Per note slot (channel × 128 + key): the controllers its note locks, 120 bits.
    let slotLocks: UnsafeMutablePointer<UInt64>
    /// Whether some slot holds a lock (most patterns have none: one test).
    var anyLock = false
    /// §10.6: the lock slots whose restores are due at `pendingRestoreFrame`,
    /// in note-off order (each note's by controller number): they go out once
    /// every note-off of that frame is out. One entry per lock slot at most
    /// (a slot enters when its last hold ends, and no lock starts before the
    /// list is sent), so `lockSlotCount` entries always suffice.
    let pendingRestores: UnsafeMutablePointer<UInt16>
    var pendingRestoreCount = 0
    var pendingRestoreFrame = Int64.min
    /// The next controller event not yet sent, of the playing pattern.
    var cursor: ControlCursor?
    /// §10.4: a chase is due at this absolute frame (`Int64.max`: none).
    var chaseFrame = Int64.max

    static var lockSlotCount: Int { 16 * 120 }

    init() {
        let n = ControllerMemory.slotCount
        lastSent = .allocate(capacity: n)
        lastSent.initialize(repeating: -1, count: n)
        lastOutput = .allocate(capacity: n)
        lastOutput.initialize(repeating: -1, count: n)
        lastOutputFrame = .allocate(capacity: n)
        lastOutputFrame.initialize(repeating: Int64.min, count: n)
        lastWasRestore = .allocate(capacity: n)
        lastWasRestore.initialize(repeating: false, count: n)
        beforeRestore = .allocate(capacity: n)
        beforeRestore.initialize(repeating: -1, count: n)
        let l = ControllerState.lockSlotCount
        beforeLock = .allocate(capacity: l)
        beforeLock.initialize(repeating: -1, count: l)
        holds = .allocate(capacity: l)
        holds.initialize(repeating: 0, count: l)
        slotLocks = .allocate(capacity: 2 * NoteTracker.slotCount)
        slotLocks.initialize(repeating: 0, count: 2 * NoteTracker.slotCount)
        pendingRestores = .allocate(capacity: l)
        pendingRestores.initialize(repeating: 0, count: l)
    }

    deinit {
        lastSent.deallocate()
        lastOutput.deallocate()
        lastOutputFrame.deallocate()
        lastWasRestore.deallocate()
        beforeRestore.deallocate()
        beforeLock.deallocate()
        holds.deallocate()
        slotLocks.deallocate()
        pendingRestores.deallocate()
    }

    /// §10.3: forgets every value sent (a start of play, a jump). O(slots), bounded.
    @_noLocks
    mutating func clearMemory() {
        lastSent.update(repeating: -1, count: ControllerMemory.slotCount)
        lastWasRestore.update(repeating: false, count: ControllerMemory.slotCount)
    }

    /// §10.5: every lock ends without a restore (notes cut by a stop, a
    /// jump, a switch, an all-notes-off, a deactivation). O(slots), bounded.
    @_noLocks
    mutating func endLocks() {
        guard anyLock else { return }
        holds.update(repeating: 0, count: ControllerState.lockSlotCount)
        slotLocks.update(repeating: 0, count: 2 * NoteTracker.slotCount)
        pendingRestoreCount = 0
        anyLock = false
    }

    /// The lock slot of control change `index` (0-119) of memory slot `memory`, or -1.
    @_noLocks @inline(__always)
    static func lockSlot(memory: Int) -> Int {
        let index = memory % ControllerMemory.slotsPerChannel
        return index < 120 ? memory / ControllerMemory.slotsPerChannel * 120 + index : -1
    }
}
