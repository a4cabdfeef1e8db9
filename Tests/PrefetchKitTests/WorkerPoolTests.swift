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
