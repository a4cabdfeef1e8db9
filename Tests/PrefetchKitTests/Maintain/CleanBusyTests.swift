import Foundation
import Synchronization
import Testing
@testable import PrefetchKit

/// A clean against an index whose write lock another process keeps longer than the index's busy
/// handler waits (`IndexDatabase.busyTimeout`, 5 s): the clean tries again until its `busyWait` is spent.
@Suite(.timeLimit(.minutes(5))) struct CleanBusyTests {
    /// How long the other connection keeps the write lock: well past one busy handler's wait.
    private static let held: UInt32 = 10

    @Test func aCleanOutlastsALockHeldPastTheBusyTimeout() throws {
        try TemporaryDirectory.withPath { folder in
            let (cache, released) = try Self.expiredCacheWithTheLockHeldElsewhere(folder)
            let policy = CleanPolicy(maxAge: 86_400, expireBy: .access, orphanSweepRounds: 1, lockWait: 0.2, busyWait: 60)
            let report = try CacheCleaner(cache, policy: policy).run()
            // The lock went away only after the first attempt had given up, so this is a second attempt.
            #expect(released.at.withLock { $0 } != nil)
            #expect(report.expired.entries == 4)
            #expect(try cache.index.entryCount() == 0)
        }
    }

    @Test func aCleanThatWaitsTooLongStopsAndSaysSo() throws {
        try TemporaryDirectory.withPath { folder in
            let (cache, released) = try Self.expiredCacheWithTheLockHeldElsewhere(folder)
            let policy = CleanPolicy(maxAge: 86_400, expireBy: .access, orphanSweepRounds: 1, lockWait: 0.2, busyWait: 1)
            let started = ContinuousClock.now
            #expect(throws: MaintenanceError.indexBusy(path: cache.index.path, waited: 1)) {
                try CacheCleaner(cache, policy: policy).run()
            }
            // It gave up after one busy wait of about 5 s (and at most a second more on its way out),
            // while the lock was still held.
            #expect(ContinuousClock.now - started < .seconds(9))
            #expect(released.at.withLock { $0 } == nil)
            // Nothing was removed: every file still has its row.
            #expect(try cache.index.entryCount() == 4)
            #expect(try scanFiles(cache).count == 4)
        }
    }

    /// When the other connection let go of the index.
    final class Release: Sendable {
        let at = Mutex<Date?>(nil)
    }

    /// Four entries last used 30 days ago, and another connection (as another process would hold it)
    /// inside a write transaction for `held` seconds from now; `released` is set when it commits.
    private static func expiredCacheWithTheLockHeldElsewhere(
        _ folder: String
    ) throws -> (DiskCache, Release) {
        let cache = try DiskCache.open(at: folder, layout: .native)
        let keys = try fillCache(cache, count: 4)
        try setAllClocks(cache, keys: keys) { _ in Date().addingTimeInterval(-30 * 86_400) }
        let other = try DiskCache.open(at: folder, layout: .native)
        let released = Release()
        let holding = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            _ = try? other.index.inWriteTransaction { _ throws(CacheError) in
                holding.signal()
                sleep(held)
            }
            released.at.withLock { $0 = Date() }
        }
        holding.wait()
        return (cache, released)
    }
}
