import Foundation
import Testing
@testable import PrefetchKit

@Suite(.timeLimit(.minutes(3))) struct CacheIndexRebuildTests {
    /// Stores two entries, then lets `damage` spoil the index, then reopens.
    private func reopen(layout: CacheLayout, after damage: (String) throws -> Void) throws {
        try TemporaryDirectory.withPath { folder in
            let keys = ["https://cdn.example.com/p/1.png", "https://cdn.example.com/p/2"]
            var checksums: [String?] = []
            do {
                let cache = try DiskCache.open(at: folder, layout: layout)
                for (number, key) in keys.enumerated() {
                    checksums.append(try cache.store(data: pngLikeBody(number), as: NewEntry(url: key, key: key)).checksum)
                }
                #expect(!cache.rebuiltIndex)
            }
            try damage(folder + "/index.sqlite")

            let cache = try DiskCache.open(at: folder, layout: layout)
            #expect(cache.rebuiltIndex)
            #expect(try cache.index.entryCount() == 2)
            for (number, key) in keys.enumerated() {
                let entry = try #require(try cache.lookup(key: key))
                #expect(entry.url == nil)
                #expect(entry.size == Int64(pngLikeBody(number).count))
                #expect(entry.format == .png)
                #expect(entry.checksum == checksums[number])
            }
            #expect(try CacheChecker(cache).check().isEmpty)
        }
    }

    /// A way the index can be spoilt, and the layout of the cache it is spoilt in.
    struct Damage: Sendable, CustomTestStringConvertible {
        let kind: String
        let layout: CacheLayout
        let spoil: @Sendable (_ indexPath: String) throws -> Void
        var testDescription: String { "\(kind), \(layout)" }

        /// Deleted, with its journal files.
        static func deleted(_ layout: CacheLayout) -> Damage {
            Damage(kind: "deleted", layout: layout) { path in
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            }
        }

        /// Overwritten with bytes that are no database.
        static func corrupt(_ layout: CacheLayout) -> Damage {
            Damage(kind: "corrupt", layout: layout) { path in
                for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
                try Data(repeating: 0x5A, count: 8192).write(to: URL(fileURLWithPath: path))
            }
        }

        /// An empty file.
        static func empty(_ layout: CacheLayout) -> Damage {
            Damage(kind: "empty", layout: layout) { path in
                for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
                try Data().write(to: URL(fileURLWithPath: path))
            }
        }

        /// A schema version this prefetchd does not know.
        static func unknownSchema(_ layout: CacheLayout) -> Damage {
            Damage(kind: "of an unknown schema", layout: layout) { path in
                let database = try IndexDatabase(path: path)
                try database.execute("UPDATE meta SET value = 'draft' WHERE key = 'schema_version'")
            }
        }

        static let all = CacheLayout.allCases.map(deleted) + CacheLayout.allCases.map(corrupt)
            + [empty(.native), unknownSchema(.sdwebimage)]
    }

    @Test(arguments: Damage.all)
    func aDamagedIndexIsRebuiltFromTheFiles(_ damage: Damage) throws {
        try reopen(layout: damage.layout, after: damage.spoil)
    }

    /// An index of another numbered schema: the error opening it, and what `stats` says of it.
    struct OtherSchema: Sendable, CustomStringConvertible {
        let version: Int
        let error: @Sendable (String) -> CacheError
        let says: String
        var description: String { "schema \(version)" }

        static let all = [
            OtherSchema(version: 9, error: { .newerIndex(path: $0, version: 9) },
                        says: "has schema version 9, newer than this prefetchd reads (8); nothing was changed"),
            OtherSchema(version: 7, error: { .retiredIndex(path: $0, version: 7) },
                        says: "has schema version 7, written by a pre-release prefetchd; this one reads version 8 only. Nothing was changed"),
        ]
    }

    @Test(arguments: OtherSchema.all)
    func anIndexOfAnotherSchemaIsRefusedAndLeftAsItIs(_ schema: OtherSchema) throws {
        try TemporaryDirectory.withPath { folder in
            // Given an index of two entries, written by a newer or a pre-release prefetchd
            let index = folder + "/index.sqlite"
            do {
                let cache = try DiskCache.open(at: folder, layout: .native)
                _ = try fillCache(cache, count: 2)
                try cache.flush()
            }
            try IndexDatabase(path: index).execute("UPDATE meta SET value = '\(schema.version)' WHERE key = 'schema_version'")
            let before = try #require(FileManager.default.contents(atPath: index))

            // When this one opens it, to write or to read
            #expect(throws: schema.error(index)) {
                try DiskCache.open(at: folder, layout: .native)
            }
            let stats = try Binary.run(["stats", "--cache", folder])

            // Then it refuses, saying why, and the index is as it was, with its rows
            #expect(stats.status == 3)
            #expect(stats.stderr.contains(schema.says), "\(stats.stderr)")
            #expect(FileManager.default.contents(atPath: index) == before)
            let database = try IndexDatabase(path: index)
            #expect(try database.text("SELECT count(url) FROM entries") == "2")
        }
    }

    @Test func theSchemaVersionAndLastRunAreRecorded() throws {
        try TemporaryDirectory.withPath { folder in
            let cache = try DiskCache.open(at: folder, layout: .native)
            #expect(try cache.index.meta("schema_version") == IndexConnection.schemaVersion)
            #expect(try cache.index.meta("layout") == "native")
            #expect(try cache.index.lastRun() == nil)

            let started = Date(timeIntervalSince1970: 1_700_000_000)
            let run = RunRecord(job: "catalog", started: started, duration: 12.5, totals: ["fetched": 3, "failed": 1])
            try cache.index.recordRun(RunRecord(job: "old", started: started.addingTimeInterval(-60), duration: 1, totals: [:]))
            try cache.index.recordRun(run)
            #expect(try cache.index.lastRun() == run)
            #expect(try cache.index.meta("last_run") == "2")
        }
    }
}
