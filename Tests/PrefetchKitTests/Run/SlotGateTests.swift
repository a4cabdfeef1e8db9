import Foundation
import Synchronization
import Testing
@testable import PrefetchKit

@Suite struct SlotGateTests {
    /// Takes a place on another thread; `taken` is signalled once it has one.
    private final class Taker: Sendable {
        let taken = DispatchSemaphore(value: 0)
        let done = Atomic<Bool>(false)

        init(_ gate: SlotGate) {
            Thread { [self] in
                _ = gate.acquire(unless: { false })
                done.store(true, ordering: .releasing)
                taken.signal()
            }.start()
        }
    }

    /// Polls `condition` for up to five seconds.
    private func waitUntil(_ condition: () -> Bool) -> Bool {
        for _ in 0..<500 {
            if condition() { return true }
            usleep(10_000)
        }
        return condition()
    }

    @Test func theEngineIsHandedTwiceTheLimitWithoutWaiting() {
        let gate = SlotGate(limit: 8, heldAtMost: 1000)
        for _ in 0..<16 { #expect(gate.acquire(unless: { false })) }
        #expect(!gate.isIdle)
    }

    @Test func aSchedulerWithoutRoomWaitsForSeveralPlacesNotOne() {
        // Limit 8: the engine holds 16; a scheduler that finds none free waits for 8 / 4 = 2.
        let gate = SlotGate(limit: 8, heldAtMost: 1000)
        for _ in 0..<16 { _ = gate.acquire(unless: { false }) }
        let taker = Taker(gate)
        #expect(waitUntil { gate.isSchedulerWaiting })
        gate.transferFinished()
        gate.release()
        // One place is free: not enough to wake for (its wait also times out every 0.1 s and looks again).
        #expect(taker.taken.wait(timeout: .now() + 0.35) == .timedOut)
        let done = taker.done.load(ordering: .acquiring)
        #expect(!done)
        gate.transferFinished()
        #expect(taker.taken.wait(timeout: .now() + 5) == .success)
    }

    @Test func storingBodiesHoldPlacesUntilReleased() {
        // 3 x limit between hand-over and the end of the store: 16 handed over, 8 storing, none free.
        let gate = SlotGate(limit: 8, heldAtMost: 1000)
        for _ in 0..<16 { _ = gate.acquire(unless: { false }) }
        for _ in 0..<8 { gate.transferFinished() }
        for _ in 0..<8 { _ = gate.acquire(unless: { false }) }
        let taker = Taker(gate)
        #expect(waitUntil { gate.isSchedulerWaiting })
        for _ in 0..<8 { gate.transferFinished() }
        // 8 handed over, 16 storing: 24 held, the most there may be.
        #expect(taker.taken.wait(timeout: .now() + 0.35) == .timedOut)
        gate.release()
        gate.release()
        #expect(taker.taken.wait(timeout: .now() + 5) == .success)
    }

    @Test func aLimitLoweredWhileTheSchedulerWaitsStillLetsItOnOnceThereIsRoom() {
        let gate = SlotGate(limit: 16, heldAtMost: 1000)
        for _ in 0..<32 { _ = gate.acquire(unless: { false }) }
        let taker = Taker(gate)
        #expect(waitUntil { gate.isSchedulerWaiting })
        gate.setLimit(1)
        // Limit 1: room once fewer than 2 are handed over, whatever the scheduler first waited for.
        for _ in 0..<31 {
            gate.transferFinished()
            gate.release()
        }
        #expect(taker.taken.wait(timeout: .now() + 5) == .success)
    }

    @Test func aStopEndsTheWaitWithoutAPlace() {
        let gate = SlotGate(limit: 1, heldAtMost: 1000)
        _ = gate.acquire(unless: { false })
        _ = gate.acquire(unless: { false })
        let stop = Locked(false)
        let finished = DispatchSemaphore(value: 0)
        let got = Locked(true)
        Thread {
            let acquired = gate.acquire(unless: { stop.withLock { $0 } })
            got.withLock { $0 = acquired }
            finished.signal()
        }.start()
        stop.withLock { $0 = true }
        #expect(finished.wait(timeout: .now() + 5) == .success)
        #expect(!got.withLock { $0 })
    }

    @Test func drainReturnsOnceEveryPlaceIsFree() {
        let gate = SlotGate(limit: 4, heldAtMost: 1000)
        for _ in 0..<8 { _ = gate.acquire(unless: { false }) }
        let drained = DispatchSemaphore(value: 0)
        Thread {
            gate.drain()
            drained.signal()
        }.start()
        for _ in 0..<7 {
            gate.transferFinished()
            gate.release()
        }
        #expect(drained.wait(timeout: .now() + 0.35) == .timedOut)
        gate.transferFinished()
        gate.release()
        #expect(drained.wait(timeout: .now() + 5) == .success)
        #expect(gate.isIdle)
    }
}
