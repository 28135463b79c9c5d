import Synchronization

/// A bounded, lock-free, wait-free single-producer / single-consumer queue of
/// trivially copyable values, in a ring allocated once at `init`.
///
/// One thread may `push`, one other thread may `pop`; both are O(1), never
/// allocate, never lock and never block, so either side may be the audio
/// thread. The indices are `Synchronization.Atomic` counters with
/// acquire/release ordering, each on its own cache line; an element written by
/// `push` is visible to the `pop` that returns it.
///
/// The queue is `~Copyable`; share it between its two threads by address (it
/// lives inside the object both threads reach, such as a plugin instance).
/// The methods are `@inlinable`: their concrete specializations are compiled
/// into, and checked by, the `@_noLocks` callers that use them, in this module
/// or another (`tactus jack`'s process callback pushes its journal here).
public struct SPSCQueue<Element: BitwiseCopyable>: ~Copyable, @unchecked Sendable {
    @usableFromInline let slots: UnsafeMutablePointer<Element>
    @usableFromInline let mask: Int
    /// Two cache lines: the consumer's index in the first, the producer's in the second.
    @usableFromInline let indices: UnsafeMutableRawPointer

    /// A queue holding up to `capacity` elements (rounded up to a power of two).
    public init(capacity: Int) {
        var size = 2
        while size < capacity { size <<= 1 }
        slots = .allocate(capacity: size)
        mask = size - 1
        indices = .allocate(byteCount: 256, alignment: 128)
        indices.bindMemory(to: Atomic<Int>.self, capacity: 1).initialize(to: Atomic(0))
        (indices + 128).bindMemory(to: Atomic<Int>.self, capacity: 1).initialize(to: Atomic(0))
    }

    deinit {
        slots.deallocate()
        indices.deallocate()
    }

    /// The most elements the queue holds.
    @inlinable
    public var capacity: Int { mask + 1 }

    @inlinable
    var head: UnsafeMutablePointer<Atomic<Int>> { indices.assumingMemoryBound(to: Atomic<Int>.self) }
    @inlinable
    var tail: UnsafeMutablePointer<Atomic<Int>> { (indices + 128).assumingMemoryBound(to: Atomic<Int>.self) }

    /// Producer side: appends `element`; false (and nothing written) when full.
    @inlinable @inline(__always)
    public func push(_ element: Element) -> Bool {
        let t = tail.pointee.load(ordering: .relaxed)
        let h = head.pointee.load(ordering: .acquiring)
        guard t &- h <= mask else { return false }
        slots[t & mask] = element
        tail.pointee.store(t &+ 1, ordering: .releasing)
        return true
    }

    /// Consumer side: removes the oldest element, or nil when empty.
    @inlinable @inline(__always)
    public func pop() -> Element? {
        let h = head.pointee.load(ordering: .relaxed)
        let t = tail.pointee.load(ordering: .acquiring)
        guard h != t else { return nil }
        let element = slots[h & mask]
        head.pointee.store(h &+ 1, ordering: .releasing)
        return element
    }

    /// Either side: elements in the queue at this instant (exact for the calling side's own operations).
    @inlinable @inline(__always)
    public var count: Int {
        tail.pointee.load(ordering: .acquiring) &- head.pointee.load(ordering: .acquiring)
    }

    /// Producer side: whether a `push` now would succeed.
    @inlinable @inline(__always)
    public var hasSpace: Bool { count <= mask }
}
