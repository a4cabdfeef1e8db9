import Foundation

/// A fixed set of threads running submitted work in arrival order (in order, one at a time, when
/// `width` is 1): the engine's delivery thread, and the workers that validate and store finished
/// transfers. Lighter than an OperationQueue or a dispatch queue (no operation object, no dispatch
/// group, no thread wake-up per item): a worker takes what is queued until the queue is empty before
/// it sleeps, and `submit` wakes a worker only when one is asleep.
final class WorkerPool: Sendable {
    private let core = Core()

    init(name: String, width: Int) {
        for number in 0..<max(1, width) {
            let thread = Thread { [core] in core.work() }
            thread.name = "\(name).\(number)"
            thread.start()
        }
    }

    deinit {
        core.close()
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
            var sleeping = 0
            var idleWaiters = 0
            var busy = 0
            var closed = false
            var threads: [pthread_t] = []

            var isIdle: Bool { head == queue.count && busy == 0 }
        }

        /// NSCondition guards `state`; it is only touched with the condition locked.
        private nonisolated(unsafe) var state = State()
        private let condition = NSCondition()

        func submit(_ work: @escaping @Sendable () -> Void) {
            condition.lock()
            state.queue.append(work)
            // One condition serves sleeping workers and `waitUntilIdle`: a lone signal could wake
            // the wrong one.
            if state.idleWaiters > 0 {
                condition.broadcast()
            } else if state.sleeping > 0 {
                condition.signal()
            }
            condition.unlock()
        }

        func waitUntilIdle() {
            condition.lock()
            state.idleWaiters += 1
            while !state.isIdle {
                condition.wait()
            }
            state.idleWaiters -= 1
            condition.unlock()
        }

        var isCurrentThreadWorker: Bool {
            condition.lock()
            defer { condition.unlock() }
            let current = pthread_self()
            return state.threads.contains { pthread_equal($0, current) != 0 }
        }

        func close() {
            condition.lock()
            state.closed = true
            condition.broadcast()
            condition.unlock()
        }

        /// A worker thread's loop; returns once the pool is closed and its queue empty.
        func work() {
            condition.lock()
            state.threads.append(pthread_self())
            while true {
                if state.head < state.queue.count {
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
                    condition.unlock()
                    item()
                    condition.lock()
                    state.busy -= 1
                    // Waiters of `waitUntilIdle` sleep on the same condition as idle workers.
                    if state.isIdle { condition.broadcast() }
                    continue
                }
                if state.closed { break }
                state.sleeping += 1
                condition.wait()
                state.sleeping -= 1
            }
            condition.unlock()
        }
    }
}
