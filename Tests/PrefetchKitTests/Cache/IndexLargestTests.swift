import Foundation
import Testing
@testable import PrefetchKit

@Suite struct IndexLargestTests {
    /// The largest entries by a scan of every row: what the table must agree with.
    private func scanned(_ cache: DiskCache, limit: Int) throws -> [String] {
        try cache.flush()
        return try cache.index.withConnection { connection throws(CacheError) in
            try connection.query("SELECT relative_path FROM entries ORDER BY byte_size DESC, id LIMIT ?", [.int(limit)]) {
                $0.text(0) ?? ""
            }
        }
    }

    private func answered(_ cache: DiskCache, limit: Int) throws -> [String] {
        try cache.flush()
        return try cache.index.largestEntries(limit: limit).map(\.relativePath)
    }

    /// Rows in the table, and its floor.
    private func kept(_ cache: DiskCache) throws -> (rows: Int, floor: Int64) {
        try cache.index.withConnection { connection throws(CacheError) in
            try connection.query("SELECT count(*), \(IndexLargest.floor) FROM largest_entries", []) {
                (Int($0.int64(0)), $0.int64(1))
            }.first ?? (0, 0)
        }
    }

    @Test func largestEntriesFollowStoresResizesRemovalsAndARefill() throws {
        try TemporaryDirectory.withPath { folder in
            let cache = try DiskCache.open(at: folder, layout: .native)
            // Sizes in a scrambled order with ties (number * 37 mod 301), more entries than the table keeps.
            let count = 3 * IndexLargest.keep
            let keys = try fillCache(cache, count: count, length: { 100 + ($0 * 37) % 301 })
            #expect(try answered(cache, limit: 10) == scanned(cache, limit: 10))
            var table = try kept(cache)
            #expect(table.rows <= 2 * IndexLargest.keep && table.floor > 0, "the floor rose and kept the table small")

            // The largest shrink, a small one grows.
            let top = try cache.index.largestEntries(limit: 5).compactMap(\.url)
            for key in top { try cache.store(data: pngLikeBody(1, length: 10), as: NewEntry(url: key, key: key)) }
            try cache.store(data: pngLikeBody(2, length: 5_000), as: NewEntry(url: keys[0], key: keys[0]))
            #expect(try answered(cache, limit: 10) == scanned(cache, limit: 10))
            #expect(try answered(cache, limit: 1) == [cache.relativePath(forKey: keys[0])])

            // Removals through the clean's delete: the rows left still answer.
            let members = try cache.index.largestEntries(limit: kept(cache).rows).compactMap(\.url)
            #expect(members.count > 30)
            for key in members.prefix(20) { try cache.remove(key: key) }
            #expect(try answered(cache, limit: 10) == scanned(cache, limit: 10))

            // So many removed that the table is short: the answer comes from a scan, still right.
            for key in members.dropFirst(20).dropLast(5) { try cache.remove(key: key) }
            table = try kept(cache)
            #expect(table.rows == 5)
            #expect(try answered(cache, limit: 10) == scanned(cache, limit: 10))

            // A refill starts the table again from one scan.
            try cache.index.refillLargestIfShort()
            table = try kept(cache)
            #expect(table.rows >= 10 && table.rows <= IndexLargest.keep)
            #expect(try answered(cache, limit: 10) == scanned(cache, limit: 10))
            #expect(try answered(cache, limit: table.rows) == scanned(cache, limit: table.rows))
        }
    }

    /// Entries of one size (a job fetching one image under many URLs) tie in size at every floor: the
    /// row id splits the tie, so the table stays small instead of taking every store, yet keeps enough
    /// rows to answer without a scan, and the answer agrees with one.
    @Test func entriesOfOneSizeDoNotGrowTheTable() throws {
        try TemporaryDirectory.withPath { folder in
            let cache = try DiskCache.open(at: folder, layout: .native)
            _ = try fillCache(cache, count: 5 * IndexLargest.keep, length: { _ in 145 })
            try cache.flush()
            let table = try kept(cache)
            #expect(table.rows <= 2 * IndexLargest.keep)
            #expect(table.rows >= IndexLargest.keep)
            #expect(try !cache.index.withConnection { connection throws(CacheError) in try connection.largestAreShort(of: 10) })
            #expect(try answered(cache, limit: 10) == scanned(cache, limit: 10))
            #expect(table.floor > 0)
            let top = try answered(cache, limit: 10)
            #expect(top.count == 10)
            #expect(try Set(top).isSubset(of: Set(scanned(cache, limit: 5 * IndexLargest.keep))))
            #expect(try cache.index.largestEntries(limit: 10).allSatisfy { $0.size == 145 + 8 })
        }
    }

    @Test func aSmallCacheKeepsEveryEntryAndAFloorOfZero() throws {
        try TemporaryDirectory.withPath { folder in
            let cache = try DiskCache.open(at: folder, layout: .native)
            let keys = try fillCache(cache, count: 30, length: { 300 - $0 })
            for key in keys.prefix(3) { try cache.remove(key: key) }
            try cache.flush()
            #expect(try kept(cache) == (27, 0))
            // A refill of a cache of exactly `keep` entries keeps them all, with a floor of 0.
            _ = try fillCache(cache, count: IndexLargest.keep, length: { 200 + $0 })  // the same first keys, and more
            #expect(try cache.index.entryCount() == IndexLargest.keep)
            try cache.index.withConnection { connection throws(CacheError) in try connection.database.execute(IndexLargest.refill) }
            #expect(try kept(cache) == (IndexLargest.keep, 0))
            #expect(try answered(cache, limit: 40) == scanned(cache, limit: 40))
        }
    }

    @Test func aCleanThatTakesTheLargestRefillsTheTable() throws {
        try TemporaryDirectory.withPath { folder in
            let cache = try DiskCache.open(at: folder, layout: .native)
            // The largest entries are the oldest: the trim takes them all.
            let count = 3 * IndexLargest.keep
            let keys = try fillCache(cache, count: count, length: { 2_000 - $0 })
            let start = Date().addingTimeInterval(-10 * 86_400)
            for (number, key) in keys.enumerated() {
                let when = start.addingTimeInterval(Double(number) * 60)
                try setClocks(cache, key: key, fetched: when, modified: when, accessed: when)
            }
            let report = try CacheCleaner(cache, policy: testPolicy(maxSize: 300_000, trimTo: 0.5)).run()
            #expect(report.trimmed.entries > IndexLargest.keep)
            let table = try kept(cache)
            #expect(table.rows >= 10, "the clean refilled the table")
            #expect(try answered(cache, limit: 10) == scanned(cache, limit: 10))
        }
    }
}
