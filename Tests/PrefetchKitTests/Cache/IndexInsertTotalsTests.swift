import Foundation
import Testing
@testable import PrefetchKit

/// A batch's inserted rows reach the running totals and the largest entries in one go: whatever else the
/// batch does meanwhile (replace, remove, read, or lose its transaction), the totals match the rows.
/// On the index alone, with a batch that stays open until flushed.
@Suite struct IndexInsertTotalsTests {
    private func openIndex(_ folder: String) throws -> CacheIndex {
        try CacheIndex.open(root: folder, batchRows: 1_000, batchInterval: 3_600).index
    }

    private func entry(_ name: String, size: Int64, in folder: String) -> CacheEntry {
        let now = Date()
        return CacheEntry(
            url: "https://img.example.com/\(name).png", key: "https://img.example.com/\(name).png", setName: "main",
            relativePath: "aa/\(name).png", path: folder + "/aa/\(name).png", size: size, format: .png, width: 1,
            height: 1, etag: nil, lastModified: nil, checksum: nil, fetchedAt: now, modifiedAt: now, accessedAt: now,
            validatedAt: now)
    }

    private func inOpenBatch(_ index: CacheIndex) throws -> Bool {
        try index.withConnection { connection throws(CacheError) in connection.database.isInTransaction }
    }

    /// Largest-entry rows whose entry is gone or has another size.
    private func strayLargest(_ index: CacheIndex) throws -> Int {
        try index.withConnection { connection throws(CacheError) in
            try connection.query(
                """
                SELECT count(*) FROM largest_entries AS l
                WHERE NOT EXISTS (SELECT 1 FROM entries AS e WHERE e.id = l.id AND e.byte_size = l.byte_size)
                """, []) { $0.int(0) ?? 0 }.first ?? 0
        }
    }

    @Test func insertsAreCountedBeforeTheirBatchCommits() throws {
        try TemporaryDirectory.withPath { folder in
            let index = try openIndex(folder)
            for number in 1...5 { try index.upsert(entry("e\(number)", size: Int64(100 * number), in: folder)) }

            #expect(try inOpenBatch(index))
            #expect(try index.totals("all") == [CacheGroupTotal(name: "", entries: 5, bytes: 1_500, frames: 5)])
            #expect(try index.totals("host") == [CacheGroupTotal(name: "img.example.com", entries: 5, bytes: 1_500, frames: 5)])
            #expect(try index.largestEntries(limit: 2).map(\.size) == [500, 400])
            #expect(try index.totalsDrift() == nil)
        }
    }

    @Test func anEntryReplacedAndOneDeletedInTheBatchThatInsertedThemAreCountedOnce() throws {
        try TemporaryDirectory.withPath { folder in
            let index = try openIndex(folder)
            try index.upsert(entry("kept", size: 300, in: folder))
            try index.upsert(entry("gone", size: 9_000, in: folder))

            // When, in the same batch, one is stored again larger and the other is deleted
            try index.upsert(entry("kept", size: 5_000, in: folder))
            try index.deleteEntry(relativePath: "aa/gone.png")
            #expect(try inOpenBatch(index))
            try index.flush()

            // Then each is counted as it ends: one entry of the new size, the largest, and nothing stray
            #expect(try index.totals("all") == [CacheGroupTotal(name: "", entries: 1, bytes: 5_000, frames: 1)])
            #expect(try index.largestEntries(limit: 5).map(\.size) == [5_000])
            #expect(try strayLargest(index) == 0)
            #expect(try index.totalsDrift() == nil)
        }
    }

    @Test func aBatchSQLiteRolledBackIsNotCounted() throws {
        try TemporaryDirectory.withPath { folder in
            let index = try openIndex(folder)
            for number in 1...3 { try index.upsert(entry("e\(number)", size: 100, in: folder)) }

            // When SQLite rolls the batch back by itself (as after a full disk), and a later batch inserts
            try index.withConnection { connection throws(CacheError) in try connection.database.execute("ROLLBACK") }
            try index.upsert(entry("later", size: 700, in: folder))
            try index.flush()

            // Then only the row that exists is counted
            #expect(try index.allEntries().map(\.relativePath) == ["aa/later.png"])
            #expect(try index.totals("all") == [CacheGroupTotal(name: "", entries: 1, bytes: 700, frames: 1)])
            #expect(try strayLargest(index) == 0)
            #expect(try index.totalsDrift() == nil)
        }
    }
}
