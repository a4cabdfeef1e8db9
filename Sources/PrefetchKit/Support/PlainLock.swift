internal import Glibc

/// A plain pthread mutex: a waiter sleeps in the kernel at once. For a lock held across system calls
/// and contended by several threads (the index's connection: a store holds it over the link of a body
/// and its row, while the scheduling thread's lookups wait), where `Mutex` from Synchronization costs
/// more: on Linux it spins before it sleeps and sleeps on a priority-inheriting futex, CPU that a
/// run on two cores has no room for (bench/RESULTS.md, "Design figures").
final class PlainLock: Sendable {
    /// Allocated once and never moved, as a pthread mutex requires; only touched through pthread calls.
    private nonisolated(unsafe) let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func withLock<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}
