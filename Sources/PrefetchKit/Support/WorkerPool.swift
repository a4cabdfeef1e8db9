internal import CShims
import Foundation

/// A fixed set of threads running submitted work in arrival order (in order, one at a time, when
/// `width` is 1): the engine's delivery and body-writing threads, and the workers that validate and
/// store finished transfers. Lighter than an OperationQueue or a dispatch queue (no operation object,
/// no dispatch group): `submit` queues the item and signals a semaphore, which wakes a worker only
/// when one is asleep, and a worker takes items without sleeping while the semaphore counts some.
final class WorkerPool: Sendable {
    private let core = Core()
    private let width: Int

    /// `niceness` above 0 lowers the threads' priority (their nice value): they then run on what
    /// CPU the process's other threads leave.
    init(name: String, width: Int, niceness: Int32 = 0) {
        self.width = max(1, width)
        for number in 0..<self.width {
            let thread = Thread { [core] in
                if niceness > 0 { _ = pf_set_thread_niceness(niceness) }
                core.work()
            }
            thread.name = "\(name).\(number)"
            thread.start()
        }
    }

    deinit {
        core.close(threads: width)
    }

    func submit(_ work: @escaping @Sendable () -> Void) {
        core.submit(work)
    }

    /// Waits until everything submitted so far has run.
    func waitUntilIdle() {
        core.waitUntilIdle()
    }

    /// True on one of this pool's threads (where waiting for the pool would never end).
    var isCurrentThreadWorker: Bool {
        core.isCurrentThreadWorker
    }

    private final class Core: Sendable {
        private struct State {
            var queue: [@Sendable () -> Void] = []
            var head = 0
            var busy = 0
            var idleWaiters = 0
            var closed = false
            var threads: [pthread_t] = []

            var isIdle: Bool { head == queue.count && busy == 0 }
        }

        /// Guarded by `lock`, a plain mutex held only to queue or take an item.
        private nonisolated(unsafe) var state = State()
        private let lock = PlainLock()
        /// One signal per queued item, and one per thread at close; an idle worker sleeps on it.
        /// Signalling never blocks, where a condition variable's signal can wait for the thread it
        /// woke last to run (glibc): on two busy cores the network thread, which submits the body
        /// writes, was stopped that way about a thousand times per 20,000 bodies.
        private let available = DispatchSemaphore(value: 0)
        /// Wakes `waitUntilIdle` callers; touched only while one waits.
        private let idle = NSCondition()

        func submit(_ work: @escaping @Sendable () -> Void) {
            lock.withLock { state.queue.append(work) }
            available.signal()
        }

        func waitUntilIdle() {
            idle.lock()
            lock.withLock { state.idleWaiters += 1 }
            while !lock.withLock({ state.isIdle }) {
                idle.wait()
            }
            lock.withLock { state.idleWaiters -= 1 }
            idle.unlock()
        }

        var isCurrentThreadWorker: Bool {
            let current = pthread_self()
            return lock.withLock { state.threads.contains { pthread_equal($0, current) != 0 } }
        }

        func close(threads: Int) {
            lock.withLock { state.closed = true }
            for _ in 0..<threads {
                available.signal()
            }
        }

        /// A worker thread's loop; returns once the pool is closed and its queue empty.
        func work() {
            lock.withLock { state.threads.append(pthread_self()) }
            while true {
                available.wait()
                guard let item = take() else {
                    if lock.withLock({ state.closed }) { return }
                    continue
                }
                item()
                let wakeIdleWaiters = lock.withLock { () -> Bool in
                    state.busy -= 1
                    return state.isIdle && state.idleWaiters > 0
                }
                if wakeIdleWaiters {
                    idle.lock()
                    idle.broadcast()
                    idle.unlock()
                }
            }
        }

        /// The oldest queued item, counted busy; nil when the queue is empty.
        private func take() -> (@Sendable () -> Void)? {
            lock.withLock { () -> (@Sendable () -> Void)? in
                guard state.head < state.queue.count else { return nil }
                let item = state.queue[state.head]
                state.head += 1
                if state.head == state.queue.count {
                    state.queue.removeAll(keepingCapacity: true)
                    state.head = 0
                } else if state.head >= 1024 {
                    state.queue.removeFirst(state.head)
                    state.head = 0
                }
                state.busy += 1
                return item
            }
        }
    }
}
