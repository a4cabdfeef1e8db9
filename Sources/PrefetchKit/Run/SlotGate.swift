import Foundation

/// Bounds the work in flight: the scheduler waits for room before it hands a key to the engine; a
/// finished transfer gives back its place at the engine at once, and its whole place once its body is
/// validated and stored.
///
/// The engine holds up to `2 x limit` keys: up to `limit` transferring (the request's own
/// `concurrency`, which the engine applies) and the rest waiting there, so that the network thread
/// starts the next transfer the moment one ends, without a round trip through this thread (figures
/// in bench/RESULTS.md, "Design figures"). At most `3 x limit` keys are
/// between hand-over and the end of their store, each holding an open file; the network never waits
/// on the workers while they keep up. The limit may change between sets (each set has its own
/// `concurrency`). Whatever the limit, at most `heldAtMost` keys are held at once, so that their files
/// and connections fit the process's open-file limit. A scheduler that finds no room sleeps until
/// several keys fit (`State.refill`) and is woken only then, not at every finished transfer: one
/// wake-up, and one trip of the scheduling thread, for several keys.
final class SlotGate: Sendable {
    private struct State {
        /// Handed to the engine and not yet finished there: transferring, or waiting to.
        var handedOver = 0
        var storing = 0
        var limit = 1
        let heldAtMost: Int

        /// The scheduler is asleep in `acquire`, to be woken once `places` keys fit.
        var sleeper: Int?

        var hasRoom: Bool { hasRoom(for: 1) }
        var isIdle: Bool { handedOver + storing == 0 }

        func hasRoom(for places: Int) -> Bool {
            handedOver + places <= 2 * limit && handedOver + storing + places <= min(3 * limit, heldAtMost)
        }

        /// What a scheduler without room waits for: room for a quarter of the limit's keys (as many
        /// as may be held at all, when that is fewer), so that it wakes once for several keys instead
        /// of once for each; the engine still holds the rest of the keys it was handed.
        var refill: Int { max(1, min(limit / 4, heldAtMost)) }

        /// Whether a waiter is to be woken: the scheduler sleeps and the room it waits for is there,
        /// or the gate is idle (what `drain` waits for).
        var wakes: Bool { isIdle || sleeper.map(hasRoom(for:)) == true }
    }

    /// NSCondition guards `state`; it is only touched with the condition locked.
    private nonisolated(unsafe) var state: State
    private let condition = NSCondition()

    init(limit: Int, heldAtMost: Int) {
        state = State(heldAtMost: max(1, heldAtMost))
        state.limit = max(1, limit)
    }

    func setLimit(_ limit: Int) {
        condition.lock()
        state.limit = max(1, limit)
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until the engine may be handed another key, then takes a place. Returns false without a
    /// place when `stop()` returns true.
    func acquire(unless stop: () -> Bool) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        if !state.hasRoom {
            defer { state.sleeper = nil }
            while true {
                let places = state.refill
                if state.hasRoom(for: places) { break }
                state.sleeper = places
                if stop() { return false }
                _ = condition.wait(until: Date(timeIntervalSinceNow: 0.1))
            }
        }
        if stop() { return false }
        state.handedOver += 1
        return true
    }

    /// The key's transfer is over; its body waits to be stored.
    func transferFinished() {
        condition.lock()
        state.handedOver -= 1
        state.storing += 1
        if state.wakes { condition.broadcast() }
        condition.unlock()
    }

    /// The key's place is free: its body is stored, or it failed. Only after `transferFinished()`.
    func release() {
        condition.lock()
        state.storing -= 1
        if state.wakes { condition.broadcast() }
        condition.unlock()
    }

    /// True while the scheduler sleeps in `acquire`, waiting for room.
    var isSchedulerWaiting: Bool {
        condition.lock()
        defer { condition.unlock() }
        return state.sleeper != nil
    }

    /// True when no transfer is running and no body waits to be stored.
    var isIdle: Bool {
        condition.lock()
        defer { condition.unlock() }
        return state.isIdle
    }

    /// Waits until every place is free.
    func drain() {
        condition.lock()
        while !state.isIdle {
            condition.wait()
        }
        condition.unlock()
    }
}
