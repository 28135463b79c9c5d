/// Hands pattern snapshots to the audio thread and takes them back, without a
/// lock, an allocation or a free on the audio thread.
///
/// Two `SPSCQueue`s: `pending` carries new snapshots from one non-realtime
/// producer (a state restore, an editing prompt) to the audio thread;
/// `retired` carries the snapshots the audio thread has replaced back to one
/// non-realtime reclaimer, which frees them. The audio thread takes a pending
/// snapshot only when it can retire the one it replaces, so nothing is ever
/// freed, dropped or leaked on its side.
///
/// Threads: `offer` and `reclaim` run on the producer/reclaimer side (which
/// may be one thread or two, each one at a time); `takePending` and `retire`
/// run on the audio thread.
public struct SnapshotExchange: ~Copyable, @unchecked Sendable {
    public let pending: SPSCQueue<PatternSnapshot>
    public let retired: SPSCQueue<PatternSnapshot>

    /// Room for `capacity` snapshots in flight each way.
    public init(capacity: Int = 16) {
        pending = SPSCQueue(capacity: capacity)
        // Room for every pending snapshot plus the one playing, so retiring never fails.
        retired = SPSCQueue(capacity: 2 * capacity + 2)
    }

    deinit {
        while let s = pending.pop() { s.destroy() }
        while let s = retired.pop() { s.destroy() }
    }

    /// Producer side: queues `snapshot` for the audio thread. False when the
    /// queue is full; the caller still owns `snapshot` then.
    public func offer(_ snapshot: PatternSnapshot) -> Bool {
        pending.push(snapshot)
    }

    /// Reclaimer side: frees every retired snapshot. Returns how many.
    @discardableResult
    public func reclaim() -> Int {
        var n = 0
        while let s = retired.pop() {
            s.destroy()
            n += 1
        }
        return n
    }

    /// Audio thread: the newest pending snapshot, if any, retiring older pending
    /// ones. Takes nothing while the retired queue lacks room for what it would
    /// replace (`replacing` counts whether a snapshot is playing).
    @_noLocks
    public func takePending(replacing playing: Bool) -> PatternSnapshot? {
        var newest: PatternSnapshot? = nil
        while retired.count + (playing ? 1 : 0) + (newest == nil ? 0 : 1) < retired.capacity,
            let next = pending.pop()
        {
            if let older = newest { _ = retired.push(older) }
            newest = next
        }
        return newest
    }

    /// Audio thread: whether a snapshot is waiting for `takePending`. Reads the
    /// pending queue's indices only, so that a block with nothing to install
    /// (nearly every block) finds that out cheaply.
    public var hasPending: Bool {
        @_noLocks get { pending.count > 0 }
    }

    /// Audio thread: hands a replaced snapshot back for freeing. False only if
    /// the retired queue is full (then the caller keeps it and retries later).
    @_noLocks
    public func retire(_ snapshot: PatternSnapshot) -> Bool {
        retired.push(snapshot)
    }
}
