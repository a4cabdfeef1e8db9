import Dispatch

/// Work started on a pool's thread whose result one caller waits for later: for reading the next
/// batch of index rows while the current batch is worked through.
final class PendingResult<Value: Sendable, Failure: Error>: @unchecked Sendable {
    /// Written once by the pool's thread before `done` is signalled, read only after `wait` has
    /// taken that signal: the semaphore orders the two.
    private var result: Result<Value, Failure>?
    private let done = DispatchSemaphore(value: 0)

    /// Starts `work` on `pool`.
    init(on pool: WorkerPool, _ work: @escaping @Sendable () throws(Failure) -> Value) {
        pool.submit { [self] in
            result = Result(catching: work)
            done.signal()
        }
    }

    /// Waits for the work to end; its value, or what it threw. Called once.
    func wait() throws(Failure) -> Value {
        done.wait()
        return try result!.get()
    }
}
