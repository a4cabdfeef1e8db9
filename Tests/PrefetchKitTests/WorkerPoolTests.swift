import Foundation
import Synchronization
import Testing
@testable import PrefetchKit

@Suite struct WorkerPoolTests {
    @Test func aPoolOfOneRunsWorkInOrderAndWaitsForAllOfIt() {
        let pool = WorkerPool(name: "test.serial", width: 1)
        let seen = Mutex<[Int]>([])
        for number in 0..<2_000 {
            pool.submit { seen.withLock { $0.append(number) } }
        }
        pool.waitUntilIdle()
        #expect(seen.withLock { $0 } == Array(0..<2_000))
    }

    @Test func workersRunSideBySide() {
        // Two items that each wait for the other can only both finish on two threads at once.
        let pool = WorkerPool(name: "test.wide", width: 2)
        let first = DispatchSemaphore(value: 0)
        let second = DispatchSemaphore(value: 0)
        let finished = Mutex(0)
        pool.submit {
            first.signal()
            if second.wait(timeout: .now() + 10) == .success { finished.withLock { $0 += 1 } }
        }
        pool.submit {
            second.signal()
            if first.wait(timeout: .now() + 10) == .success { finished.withLock { $0 += 1 } }
        }
        pool.waitUntilIdle()
        #expect(finished.withLock { $0 } == 2)
    }

    @Test func aPoolWithANiceValueRunsItsWorkAtIt() {
        // Given a pool whose threads are niced and one whose are not
        let niced = WorkerPool(name: "test.niced", width: 2, niceness: 10)
        let plain = WorkerPool(name: "test.plain", width: 1)
        let seen = Mutex<[String: Int32]>([:])

        // When each of their items reads its thread's nice value (getpriority of "this process",
        // which on Linux is the calling thread)
        for (name, pool) in [("niced", niced), ("plain", plain)] {
            for _ in 0..<4 {
                pool.submit {
                    errno = 0
                    let value = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
                    seen.withLock { $0[name] = max($0[name] ?? value, value) }
                }
            }
            pool.waitUntilIdle()
        }
        let own = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)

        // Then the niced pool's items ran at 10 (or the limit 19, if the tests themselves run niced),
        // and the other pool's at the test's own
        #expect(seen.withLock { $0["niced"] } == min(19, own + 10))
        #expect(seen.withLock { $0["plain"] } == own)
    }

    @Test func aWorkerKnowsItIsOne() {
        let pool = WorkerPool(name: "test.self", width: 1)
        let inside = Mutex<Bool?>(nil)
        pool.submit { inside.withLock { $0 = pool.isCurrentThreadWorker } }
        pool.waitUntilIdle()
        #expect(inside.withLock { $0 } == true)
        #expect(!pool.isCurrentThreadWorker)
    }

    @Test func workSubmittedWhileWaitingIsWaitedFor() {
        let pool = WorkerPool(name: "test.chain", width: 1)
        let count = Mutex(0)
        pool.submit {
            Thread.sleep(forTimeInterval: 0.05)
            pool.submit { count.withLock { $0 += 1 } }
        }
        pool.waitUntilIdle()
        #expect(count.withLock { $0 } == 1)
    }
}
