import Synchronization

/// Hands pattern snapshots to the audio thread and takes them back, without a
/// lock, an allocation or a free on the audio thread, and without ever
/// dropping or leaking one.
///
/// A fixed budget of live snapshots bounds everything: each snapshot, from
/// the moment it is built until it is freed (waiting, prepared, playing or
/// retired), holds one of `budget` tickets. `reserve` (or `offer`) takes a
/// ticket and fails when none is left, so a producer learns at once that the
/// audio thread is behind, and the pattern in use stays. `reclaim` gives the
/// tickets of the snapshots it frees back. Because at most `budget` snapshots
/// are alive, the queues below never fill: the audio thread can always take
/// what is pending and always hand back what it replaces.
///
/// Two `SPSCQueue`s: `pending` carries new snapshots from one non-realtime
/// producer (a state restore, an editing prompt) to the audio thread;
/// `retired` carries the snapshots the audio thread has replaced back to one
/// non-realtime reclaimer, which frees them.
///
/// Threads: `offer` runs on the one producer, `reclaim` on the one reclaimer
/// (one thread or two); `reserve` and `release` on any non-realtime thread;
/// `takePending`, `retire` and `hasPending` on the audio thread.
public struct SnapshotExchange: ~Copyable, @unchecked Sendable {
    public let pending: SPSCQueue<PatternSnapshot>
    public let retired: SPSCQueue<PatternSnapshot>
    /// Tickets in use: snapshots built and not yet freed.
    private let live = Atomic<Int>(0)
    /// The most snapshots alive at once.
    public let budget: Int

    /// The live-snapshot budget of the plugin and of `tactus jack`: a restore,
    /// an edit and the pattern playing, many times over. It is reached only
    /// when the audio thread stops taking patterns (a host that stopped
    /// calling `run()`) while edits keep coming.
    public static var defaultBudget: Int { @_noLocks get { 16 } }

    /// An exchange for at most `budget` live snapshots (at least 2).
    public init(budget: Int = SnapshotExchange.defaultBudget) {
        precondition(budget >= 2)
        self.budget = budget
        // Each queue holds every live snapshot at once, so neither ever fills.
        pending = SPSCQueue(capacity: budget)
        retired = SPSCQueue(capacity: budget)
    }

    deinit {
        while let s = pending.pop() { s.destroy() }
        while let s = retired.pop() { s.destroy() }
    }

    /// Any non-realtime thread: takes a ticket for a snapshot about to be
    /// built. False when `budget` snapshots are alive; nothing is taken then.
    @_noLocks
    public func reserve() -> Bool {
        var used = live.load(ordering: .relaxed)
        while used < budget {
            let (exchanged, original) = live.compareExchange(expected: used, desired: used + 1, ordering: .acquiringAndReleasing)
            if exchanged { return true }
            used = original
        }
        return false
    }

    /// Any non-realtime thread: gives back the ticket of a snapshot freed
    /// without passing through the exchange (a build that failed, a response
    /// the host could not deliver).
    @_noLocks
    public func release() {
        live.subtract(1, ordering: .acquiringAndReleasing)
    }

    /// Snapshots alive now (for reports and tests).
    public var liveCount: Int { @_noLocks get { live.load(ordering: .acquiring) } }

    /// Producer side: queues `snapshot` for the audio thread, taking a ticket
    /// for it. False when the budget is used up; the caller still owns
    /// `snapshot` then (and frees it: the pattern in use stays).
    @_noLocks
    public func offer(_ snapshot: PatternSnapshot) -> Bool {
        guard reserve() else { return false }
        return offerReserved(snapshot)
    }

    /// Producer side: queues `snapshot`, whose ticket the caller already holds.
    @_noLocks
    public func offerReserved(_ snapshot: PatternSnapshot) -> Bool {
        // Cannot fail: at most `budget` snapshots are alive.
        pending.push(snapshot)
    }

    /// Reclaimer side: frees every retired snapshot and gives their tickets
    /// back. Returns how many.
    @discardableResult
    public func reclaim() -> Int {
        var n = 0
        while let s = retired.pop() {
            s.destroy()
            n += 1
        }
        if n > 0 { live.subtract(n, ordering: .acquiringAndReleasing) }
        return n
    }

    /// Audio thread: the newest pending snapshot, if any; older pending ones
    /// are retired unplayed.
    @_noLocks
    public func takePending() -> PatternSnapshot? {
        var newest: PatternSnapshot? = nil
        while let next = pending.pop() {
            if let older = newest { retire(older) }
            newest = next
        }
        return newest
    }

    /// Audio thread: whether a snapshot is waiting for `takePending`. Reads the
    /// pending queue's indices only, so that a block with nothing to install
    /// (nearly every block) finds that out cheaply.
    public var hasPending: Bool {
        @_transparent @_noLocks get { pending.count > 0 }
    }

    /// Audio thread: hands a replaced snapshot back for freeing. Never fails:
    /// the retired queue has room for every live snapshot.
    @_noLocks
    public func retire(_ snapshot: PatternSnapshot) {
        _ = retired.push(snapshot)
    }

    /// Audio thread: whether retired snapshots wait for `reclaim`.
    public var hasRetired: Bool {
        @_noLocks get { retired.count > 0 }
    }
}
