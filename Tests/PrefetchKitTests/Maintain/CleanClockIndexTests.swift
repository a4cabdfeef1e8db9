import Foundation
import Testing
@testable import PrefetchKit

/// A removal of a large share of the rows goes without the clocks' indexes and makes them again
/// (`CacheIndex.dropsClockIndexes`).
@Suite struct CleanClockIndexTests {
    @Test func onlyALargeShareRemovedInManyBatchesDropsThem() {
        // The trims of bench/maintain/floor.sh: half of 1,000,000 and of 200,000 rows in batches of 16,000
        #expect(CacheIndex.dropsClockIndexes(removing: 500_000, of: 1_000_000, batchRows: 16_000))
        #expect(CacheIndex.dropsClockIndexes(removing: 100_000, of: 200_000, batchRows: 16_000))
        // ... and in the batches of the default policy
        #expect(CacheIndex.dropsClockIndexes(removing: 500_000, of: 1_000_000, batchRows: CleanPolicy().batchFiles))
        #expect(CacheIndex.dropsClockIndexes(removing: 100_000, of: 200_000, batchRows: CleanPolicy().batchFiles))
        // A nightly tenth, a quarter of a smaller cache, one batch: the deletes cost less than new indexes
        #expect(!CacheIndex.dropsClockIndexes(removing: 100_000, of: 1_000_000, batchRows: 16_000))
        #expect(!CacheIndex.dropsClockIndexes(removing: 50_000, of: 200_000, batchRows: 16_000))
        #expect(!CacheIndex.dropsClockIndexes(removing: 10_000, of: 20_000, batchRows: 16_000))
        #expect(!CacheIndex.dropsClockIndexes(removing: 0, of: 0, batchRows: 16_000))
    }

    @Test func aTrimWithoutThemRemovesWhatOneWithThemDoes() throws {
        try TemporaryDirectory.withPath { folder in
            // Given two caches of the same 1,200 entries, used in the same order
            let now = Date()
            let caches = try ["dropping", "keeping"].map { name in
                let cache = try DiskCache.open(at: folder + "/" + name, layout: .native)
                let keys = try fillCache(cache, count: 1_200, length: { _ in 992 })
                // (entry `number` last used, fetched and modified `number` seconds after `firstUse(now)`)
                try setAllClocks(cache, keys: keys) { Date(timeIntervalSince1970: firstUse(now) + Double($0)) }
                return cache
            }

            // When one is trimmed by half in batches of 50 rows (which drops the clocks' indexes) and the
            // other in batches of 16,000 (which keeps them), files unlinked in place (no bound on a batch)
            var seenWhileRemoving: Set<String>?
            var removedWithThem = 0
            var policy = testPolicy(maxSize: 1_000_000, trimTo: 0.6)
            policy.batchFiles = 50
            policy.holdsFiles = false
            #expect(CacheIndex.dropsClockIndexes(removing: 600, of: 1_200, batchRows: 50))
            var seenInDryRun: Set<String>?
            let predicted = try CacheCleaner(caches[0], policy: policy).run(dryRun: true, now: now, onItem: { _ in
                if seenInDryRun == nil { seenInDryRun = try? clockIndexes(caches[0]) }
            })
            let dropping = try CacheCleaner(caches[0], policy: policy).run(now: now, onItem: { _ in
                let seen = try? clockIndexes(caches[0])
                if seenWhileRemoving == nil { seenWhileRemoving = seen }
                if seen == Set(IndexSchema.clockIndexes.map(\.name)) { removedWithThem += 1 }
            })
            policy.batchFiles = 16_000
            #expect(!CacheIndex.dropsClockIndexes(removing: 600, of: 1_200, batchRows: 16_000))
            let keeping = try CacheCleaner(caches[1], policy: policy).run(now: now)

            // Then the first went without them while it removed (a dry run before it kept them), both
            // removed the same entries and files, and both indexes are there again
            #expect(seenInDryRun == Set(IndexSchema.clockIndexes.map(\.name)))
            #expect(predicted.trimmed == dropping.trimmed)
            #expect(seenWhileRemoving == [])
            // (the last batch made them: it took a third as many files as rows are left, 600 / 3, so
            // that its unlinks run while they are made; every item is told after its batch's commit)
            #expect(removedWithThem == 600 / CleanPass.rowsIndexedPerUnlink)
            #expect(dropping.trimmed == keeping.trimmed)
            #expect(dropping.trimmed.entries == 600)
            #expect(try indexedPaths(caches[0]) == indexedPaths(caches[1]))
            #expect(Set(try scanFiles(caches[0]).keys) == Set(try scanFiles(caches[1]).keys))
            for cache in caches {
                #expect(try clockIndexes(cache) == Set(IndexSchema.clockIndexes.map(\.name)))
                let stats = try CacheStats.collect(from: cache, now: now)
                #expect(stats.leastRecentlyUsed == Date(timeIntervalSince1970: firstUse(now) + 600))
            }
        }
    }

    @Test func aCleanMakesThemWhenAKilledOneLeftThemDropped() throws {
        try TemporaryDirectory.withPath { folder in
            // Given a cache whose clocks' indexes a clean killed mid-removal left dropped
            let cache = try DiskCache.open(at: folder, layout: .native)
            _ = try fillCache(cache, count: 10)
            try cache.flush()
            try cache.index.dropClockIndexes()
            #expect(try clockIndexes(cache) == [])

            // When the next clean has nothing to remove
            let report = try CacheCleaner(cache, policy: testPolicy(maxSize: 1_000_000)).run()

            // Then it made them again
            #expect(report.trimmed.entries == 0)
            #expect(try clockIndexes(cache) == Set(IndexSchema.clockIndexes.map(\.name)))
        }
    }

    /// When entry 0 was last used (and fetched): half an hour before `now`, in whole seconds.
    private func firstUse(_ now: Date) -> TimeInterval { (now.timeIntervalSince1970 - 1_800).rounded(.down) }

    /// The clocks' indexes the cache's index file holds, read by a connection of its own.
    private func clockIndexes(_ cache: DiskCache) throws -> Set<String> {
        let database = try IndexDatabase(path: cache.root + "/index.sqlite")
        let names = IndexSchema.clockIndexes.map(\.name)
        return Set(try names.filter {
            try database.text("SELECT name FROM sqlite_master WHERE type = 'index' AND name = '\($0)'") != nil
        })
    }
}
