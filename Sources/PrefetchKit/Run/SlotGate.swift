import Foundation

/// Bounds the work in flight: the scheduler waits for a slot; a finished transfer frees its network
/// slot at once, and its whole slot once the body is validated and stored.
///
/// Two limits, so the network never waits on the workers while the workers keep up: at most `limit`
/// transfers at a time, and at most `2 x limit` keys between the start of their transfer and the end
/// of their store (a body waiting for a worker holds an open file). The limit may change between
/// sets (each set has its own `concurrency`).
final class SlotGate: Sendable {
    private struct State {
        var transferring = 0
        var storing = 0
        var limit = 1

        var hasRoom: Bool { transferring < limit && transferring + storing < 2 * limit }
        var isIdle: Bool { transferring + storing == 0 }
    }

    /// NSCondition guards `state`; it is only touched with the condition locked.
    private nonisolated(unsafe) var state = State()
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

    /// Waits until there is room for another transfer, then takes a slot. Returns false without a
    /// slot when `stop()` returns true.
    func acquire(unless stop: () -> Bool) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !state.hasRoom {
            if stop() { return false }
            _ = condition.wait(until: Date(timeIntervalSinceNow: 0.1))
        }
        if stop() { return false }
        state.transferring += 1
        return true
    }

    /// The slot's transfer is over; its body waits to be stored.
    func transferFinished() {
        condition.lock()
        state.transferring -= 1
        state.storing += 1
        condition.broadcast()
        condition.unlock()
    }

    /// The slot is free: its body is stored, or it failed. Only after `transferFinished()`.
    func release() {
        condition.lock()
        state.storing -= 1
        condition.broadcast()
        condition.unlock()
    }

    /// True when no transfer is running and no body waits to be stored.
    var isIdle: Bool {
        condition.lock()
        defer { condition.unlock() }
        return state.isIdle
    }

    /// Waits until every slot is free.
    func drain() {
        condition.lock()
        while !state.isIdle {
            condition.wait()
        }
        condition.unlock()
    }
}
