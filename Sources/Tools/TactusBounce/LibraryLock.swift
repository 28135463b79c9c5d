import Glibc

/// A process-wide lock around what a C library does not make thread-safe:
/// lilv's world loading (serd and sord) when two LV2 instruments are made at
/// once (a test run, a batch). Held for setup and teardown only, never while rendering.
final class LibraryLock: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    init() { pthread_mutex_init(mutex, nil) }

    func lock() { pthread_mutex_lock(mutex) }
    func unlock() { pthread_mutex_unlock(mutex) }

    static let lilv = LibraryLock()
}
