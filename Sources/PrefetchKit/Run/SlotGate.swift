import Foundation

/// Bounds the transfers in flight: the scheduler waits for a slot, a finished transfer frees one.
/// The limit may change between sets (each set has its own `concurrency`).
final class SlotGate: Sendable {
    /// NSCondition guards `state`; it is only touched with the condition locked.
    private nonisolated(unsafe) var state = (inUse: 0, limit: 1)
    private let condition = NSCondition()

    init(limit: Int) {
        state.limit = max(1, limit)
    }

    func setLimit(_ limit: Int) {
        condition.lock()
        state.limit = max(1, limit)
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until fewer than `limit` slots are in use, then takes one. Returns false without a slot
    /// when `stop()` returns true.
    func acquire(unless stop: () -> Bool) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while state.inUse >= state.limit {
            if stop() { return false }
            _ = condition.wait(until: Date(timeIntervalSinceNow: 0.1))
        }
        if stop() { return false }
        state.inUse += 1
        return true
    }

    func release() {
        condition.lock()
        state.inUse -= 1
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until every slot is free.
    func drain() {
        condition.lock()
        while state.inUse > 0 {
            condition.wait()
        }
        condition.unlock()
    }
}
