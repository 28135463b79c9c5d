import Foundation
import Synchronization
import Testing
import TactusEngine
import TactusModel

#if canImport(Glibc)
import Glibc
#endif

// Helpers are private so they cannot collide with other test files of this target.

/// The queues are `~Copyable`: threads reach them through one shared object,
/// as the plugin instance does.
private final class QueueBox: @unchecked Sendable {
    let queue: SPSCQueue<UInt64>
    init(capacity: Int) { queue = SPSCQueue(capacity: capacity) }
}

private final class ExchangeBox: @unchecked Sendable {
    let exchange: SnapshotExchange
    init(budget: Int) { exchange = SnapshotExchange(budget: budget) }
}

/// What one thread records, read by the test after the thread has signalled it is done.
private final class Record<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}

private final class Flag: Sendable {
    private let raised = Atomic<Bool>(false)
    func raise() { raised.store(true, ordering: .releasing) }
    var isRaised: Bool { raised.load(ordering: .acquiring) }
}

/// Runs `body` on a new thread; the returned semaphore is signalled when it returns.
private func spawn(_ name: String, _ body: @escaping @Sendable () -> Void) -> DispatchSemaphore {
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        body()
        done.signal()
    }
    thread.name = name
    thread.start()
    return done
}

/// Gives the other side a chance to run (the test machine may have few cores).
private func backOff() { _ = sched_yield() }

/// A snapshot whose pattern encodes `sequence`, so it can be identified after its
/// address has been reused by a later allocation.
private func numberedSnapshot(_ sequence: Int) -> PatternSnapshot {
    PatternSnapshot.make(Pattern(length: BeatRational(Int64(sequence) + 1), notes: [
        PatternNote(start: .zero, duration: BeatRational(1), key: UInt8(sequence % 128), velocity: 100),
    ]))
}

private func sequence(of snapshot: PatternSnapshot) -> Int { Int(snapshot.length.numerator) - 1 }

@Suite("SPSC queue")
struct SPSCQueueTests {
    @Test(arguments: [(0, 2), (1, 2), (2, 2), (3, 4), (4, 4), (5, 8), (64, 64), (65, 128), (1000, 1024)])
    func capacityRoundsUpToAPowerOfTwo(requested: Int, actual: Int) {
        let queue = SPSCQueue<UInt64>(capacity: requested)
        #expect(queue.capacity == actual)
    }

    @Test func singleThreadIsFirstInFirstOut() {
        let queue = SPSCQueue<UInt64>(capacity: 8)
        for v: UInt64 in [5, 3, 9, 1] { #expect(queue.push(v) == true) }
        #expect(queue.count == 4)
        #expect(queue.pop() == 5)
        #expect(queue.pop() == 3)
        #expect(queue.push(7) == true)
        #expect(queue.pop() == 9)
        #expect(queue.pop() == 1)
        #expect(queue.pop() == 7)
        #expect(queue.pop() == nil)
    }

    @Test func pushFailsWhenFullAndPopIsNilWhenEmpty() {
        let queue = SPSCQueue<UInt64>(capacity: 4)
        #expect(queue.pop() == nil)
        for v: UInt64 in 0..<4 { #expect(queue.push(v) == true) }
        #expect(queue.hasSpace == false)
        #expect(queue.push(99) == false)
        #expect(queue.count == 4)
        // The failed push wrote nothing: the four values come out untouched.
        #expect(queue.pop() == 0)
        #expect(queue.hasSpace == true)
        #expect(queue.push(4) == true)
        #expect([queue.pop(), queue.pop(), queue.pop(), queue.pop()] == [1, 2, 3, 4])
        #expect(queue.pop() == nil)
        #expect(queue.count == 0)
    }

    @Test func indicesWrapAroundTheRingManyTimes() {
        let queue = SPSCQueue<UInt64>(capacity: 4)
        var next: UInt64 = 0
        var expected: UInt64 = 0
        for round in 0..<1_000 {
            for _ in 0..<(round % 4 + 1) {
                #expect(queue.push(next) == true)
                next += 1
            }
            while let v = queue.pop() {
                #expect(v == expected)
                expected += 1
            }
        }
        #expect(expected == next)
    }

    @Test func twoThreadsPassAMillionValuesInOrderThroughASmallQueue() {
        let box = QueueBox(capacity: 64)
        let total: UInt64 = 1_000_000
        let producerDone = spawn("producer") {
            var v: UInt64 = 0
            while v < total {
                if box.queue.push(v) { v += 1 } else { backOff() }
            }
        }
        let problems = Record<[String]>([])
        let received = Record<UInt64>(0)
        let consumerDone = spawn("consumer") {
            var expected: UInt64 = 0
            while expected < total {
                guard let v = box.queue.pop() else { backOff(); continue }
                // One out-of-order value means a loss or a duplicate; keep the first few.
                if v != expected, problems.value.count < 10 { problems.value.append("got \(v), expected \(expected)") }
                expected = v + 1
                received.value += 1
            }
        }
        producerDone.wait()
        consumerDone.wait()
        #expect(problems.value.isEmpty)
        #expect(received.value == total)
        #expect(box.queue.pop() == nil)
    }
}

@Suite("Snapshot exchange")
struct SnapshotExchangeTests {
    @Test func takePendingReturnsTheNewestAndRetiresTheOlderOnes() {
        let exchange = SnapshotExchange(budget: 4)
        let snapshots = (0..<3).map(numberedSnapshot)
        for s in snapshots { #expect(exchange.offer(s) == true) }
        let newest = exchange.takePending()
        #expect(newest.map(sequence) == 2)
        #expect(exchange.takePending() == nil)
        // The two skipped ones went to the reclaimer, oldest first.
        #expect(exchange.retired.pop().map(sequence) == 0)
        #expect(exchange.retired.pop().map(sequence) == 1)
        #expect(exchange.retired.pop() == nil)
        for s in snapshots { s.destroy() }
    }

    /// The budget, not a queue, says no: the caller keeps its snapshot and the
    /// pattern in use stays; freeing retired snapshots makes room again.
    @Test func offerFailsWhenTheBudgetIsUsedAndSucceedsAfterAReclaim() {
        let exchange = SnapshotExchange(budget: 2)
        let a = numberedSnapshot(0), b = numberedSnapshot(1), c = numberedSnapshot(2)
        #expect(exchange.offer(a) == true)
        #expect(exchange.offer(b) == true)
        #expect(exchange.offer(c) == false)
        #expect(exchange.liveCount == 2)
        #expect(exchange.takePending().map(sequence) == 1)  // a is retired unplayed
        #expect(exchange.reclaim() == 1)
        #expect(exchange.liveCount == 1)
        #expect(exchange.offer(c) == true)
        exchange.retire(b)  // as the audio thread does when c replaces b
        // The exchange frees what it still holds when it goes away.
    }

    /// Whatever the order of offers and installs, every live snapshot fits in
    /// the retired queue, so the audio thread never keeps one back (the fifth
    /// of four slots used to be dropped).
    @Test func retiringNeverFailsWhileTheBudgetHolds() {
        let budget = 5
        let exchange = SnapshotExchange(budget: budget)
        var tickets = 0
        while exchange.reserve() { tickets += 1 }
        #expect(tickets == budget)
        for i in 0..<budget { exchange.retire(numberedSnapshot(100 + i)) }
        #expect(exchange.retired.count == budget)
        #expect(exchange.reclaim() == budget)
        #expect(exchange.liveCount == 0)
        #expect(exchange.reserve() == true)
        exchange.release()
    }

    /// The full cycle across three threads: every snapshot made is freed exactly
    /// once, and the audio thread installs them in offer order, ending with the last.
    @Test func threeThreadsHandOffTenThousandSnapshotsAndFreeEachOnce() {
        let count = 10_000
        let box = ExchangeBox(budget: 4)
        let producerDone = spawn("producer") {
            for i in 0..<count {
                let s = numberedSnapshot(i)
                while !box.exchange.offer(s) { backOff() }
            }
        }
        let installed = Record<[Int]>([])
        let audioDone = spawn("audio") {
            var playing: PatternSnapshot? = nil
            while true {
                guard let new = box.exchange.takePending() else {
                    if let p = playing, sequence(of: p) == count - 1 { break }
                    backOff()
                    continue
                }
                if let old = playing { box.exchange.retire(old) }
                playing = new
                installed.value.append(sequence(of: new))
            }
            box.exchange.retire(playing!)
        }
        let freed = Record<[Int]>([])
        let audioFinished = Flag()
        let reclaimerDone = spawn("reclaimer") {
            // Frees by hand rather than with reclaim(), to see which snapshots it frees.
            while true {
                // Read before draining: once raised, one more drain sees the last retire.
                let finishing = audioFinished.isRaised
                while let s = box.exchange.retired.pop() {
                    freed.value.append(sequence(of: s))
                    s.destroy()
                    box.exchange.release()
                }
                if finishing { break }
                backOff()
            }
        }
        producerDone.wait()
        audioDone.wait()
        audioFinished.raise()
        reclaimerDone.wait()
        // Anything still queued now would be freed by the exchange's deinit, uncounted.
        #expect(box.exchange.retired.count == 0)
        #expect(box.exchange.pending.count == 0)

        #expect(freed.value.count == count)
        #expect(Set(freed.value).count == count, "a snapshot was freed twice")
        #expect(Set(freed.value) == Set(0..<count))
        let order = installed.value
        #expect(!order.isEmpty)
        #expect(zip(order, order.dropFirst()).allSatisfy { $0 < $1 }, "installed out of offer order")
        #expect(order.last == count - 1)
    }
}
