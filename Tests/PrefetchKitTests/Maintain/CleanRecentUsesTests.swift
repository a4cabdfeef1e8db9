import Foundation
import Testing
@testable import PrefetchKit

/// A clean counts the uses runs recorded apart from the rows (`IndexRecentUses`) as last uses: an
/// entry a run used is neither expired by access nor trimmed as least recently used.
@Suite(.timeLimit(.minutes(1))) struct CleanRecentUsesTests {
    /// Ten entries last used 30 days ago; the first three used now by another process's run, whose uses
    /// are written beside the rows.
    private func cacheWithRecentUses(_ folder: String) throws -> (keys: [String], used: [String]) {
        let cache = try DiskCache.open(at: folder, layout: .native)
        let keys = try fillAgedCache(cache, count: 10, days: 30)
        let run = try DiskCache.open(at: folder, layout: .native)
        for key in keys.prefix(3) { try run.touch(key: key) }
        try run.flush()
        #expect(try IndexDatabase(path: folder + "/index.sqlite").text("SELECT count(*) FROM recent_uses") == "3")
        return (keys, Array(keys.prefix(3)))
    }

    @Test func anExpiryByAccessKeepsTheEntriesARunUsed() throws {
        try TemporaryDirectory.withPath { folder in
            let (keys, used) = try cacheWithRecentUses(folder)
            let cache = try DiskCache.open(at: folder, layout: .native)
            let report = try CacheCleaner(cache, policy: testPolicy(maxAge: 7 * 86_400)).run()
            #expect(report.expired.entries == 7)
            for key in keys { #expect((try cache.lookup(key: key) != nil) == used.contains(key), "\(key)") }
            #expect(try cache.index.totalsDrift() == nil)
        }
    }

    @Test func aTrimTakesTheLeastRecentlyUsedCountingTheRunsUses() throws {
        try TemporaryDirectory.withPath { folder in
            let (keys, used) = try cacheWithRecentUses(folder)
            let cache = try DiskCache.open(at: folder, layout: .native)
            // Room for three of the ten (each body 300-309 bytes) once trimmed to 80 % of the cap
            let report = try CacheCleaner(cache, policy: testPolicy(maxSize: 1_200)).run()
            #expect(report.trimmed.entries == 7)
            for key in keys { #expect((try cache.lookup(key: key) != nil) == used.contains(key), "\(key)") }
        }
    }

    /// A use committed after a clean listed its rows, before its batch removes them: the batch folds it
    /// in and checks its rule again, so the row stays.
    @Test func aUseCommittedBeforeTheBatchKeepsItsRow() throws {
        try TemporaryDirectory.withPath { folder in
            let cache = try DiskCache.open(at: folder, layout: .native)
            let keys = try fillAgedCache(cache, count: 4, days: 30)
            let rule = RemovalRule.olderThan(Date().addingTimeInterval(-7 * 86_400), by: .access)
            let listed = try cache.index.ids(where: rule)
            #expect(listed.count == 4)

            let run = try DiskCache.open(at: folder, layout: .native)
            try run.touch(key: keys[0])
            try run.flush()

            let taken = try cache.index.inWriteTransaction { transaction throws(CacheError) in
                try transaction.foldRecentUses()
                return try transaction.removalRows(ids: listed[...], where: rule).rows.map(\.relativePath)
            }
            #expect(Set(taken) == Set(keys.dropFirst().map(cache.relativePath(forKey:))))
        }
    }
}
