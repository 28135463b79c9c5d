import Glibc

/// Threads and the clock for the command line, from the C library alone: the
/// `tactus` executable links no Foundation and no Dispatch (README,
/// "Installing": what it needs and its size).
public enum Threads {
    /// Runs `body(i)` for each `i` in `0..<count`, each on a thread of its
    /// own, and returns when all have returned (what Dispatch's
    /// `concurrentPerform` does, for a batch's few workers).
    public static func concurrentPerform(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        let threads = (0..<count).map { i in start { body(i) } }
        for thread in threads { join(thread) }
    }

    /// Starts `body` on a new thread.
    public static func start(_ body: @escaping @Sendable () -> Void) -> pthread_t {
        final class Box {
            let body: @Sendable () -> Void
            init(_ body: @escaping @Sendable () -> Void) { self.body = body }
        }
        var thread = pthread_t()
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        let status = pthread_create(&thread, nil, { context in
            let box = Unmanaged<Box>.fromOpaque(context!).takeRetainedValue()
            box.body()
            return nil
        }, box)
        // Only a machine out of threads refuses one: run the work here instead.
        if status != 0 {
            Unmanaged<Box>.fromOpaque(box).takeRetainedValue().body()
            return pthread_self()
        }
        return thread
    }

    /// Waits for a thread `start` returned (nothing when it ran the work itself).
    public static func join(_ thread: pthread_t) {
        if pthread_equal(thread, pthread_self()) == 0 { pthread_join(thread, nil) }
    }

    /// Processors this process may run on (`nproc`).
    public static var processorCount: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }
}

/// Seconds on the monotonic clock (for elapsed times; never goes back).
public enum MonotonicClock {
    public static func now() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }
}
