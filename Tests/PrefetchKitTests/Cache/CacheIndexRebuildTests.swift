import Foundation
import Testing
@testable import PrefetchKit

@Suite(.timeLimit(.minutes(3))) struct CacheIndexRebuildTests {
    /// Stores two entries, then lets `damage` spoil the index, then reopens; an index that was there
    /// but unusable is found set aside as it was.
    private func reopen(layout: CacheLayout, keptAside: Bool, after damage: (String) throws -> Void) throws {
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
            let damaged = FileManager.default.contents(atPath: folder + "/index.sqlite")

            let cache = try DiskCache.open(at: folder, layout: layout)
            #expect(cache.rebuiltIndex)
            let aside = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix("index.sqlite.corrupt-") }
            #expect(aside.count == (keptAside ? 1 : 0), "\(aside)")
            if let kept = aside.first {
                #expect(kept.range(of: #"^index\.sqlite\.corrupt-\d{8}T\d{6}Z$"#, options: .regularExpression) != nil, "\(kept)")
                #expect(FileManager.default.contents(atPath: folder + "/" + kept) == damaged)
            }
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
        /// An index that is there but cannot be used is set aside; a missing or empty one has nothing to keep.
        var keptAside = true
        let spoil: @Sendable (_ indexPath: String) throws -> Void
        var testDescription: String { "\(kind), \(layout)" }

        /// Deleted, with its journal files.
        static func deleted(_ layout: CacheLayout) -> Damage {
            Damage(kind: "deleted", layout: layout, keptAside: false) { path in
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
            Damage(kind: "empty", layout: layout, keptAside: false) { path in
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
        try reopen(layout: damage.layout, keptAside: damage.keptAside, after: damage.spoil)
    }

    /// An index of another numbered schema: the error opening it, and what `stats` says of it.
    struct OtherSchema: Sendable, CustomStringConvertible {
        let version: Int
        let error: @Sendable (String) -> CacheError
        let says: String
        var description: String { "schema \(version)" }

        /// The version after this prefetchd's, and one before the oldest it upgrades.
        static let current = Int(IndexConnection.schemaVersion)!
        static let all = [
            OtherSchema(version: current + 1, error: { .newerIndex(path: $0, version: current + 1) },
                        says: "has schema version \(current + 1), newer than this prefetchd reads (\(current)); nothing was changed"),
            OtherSchema(version: 7, error: { .retiredIndex(path: $0, version: 7) },
                        says: "has schema version 7, written by a pre-release prefetchd; this one reads version \(current) and upgrades versions from 8 on. Nothing was changed"),
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

    @Test func twoRunsAtOnceKeepTheNewerOnesOutcome() throws {
        try TemporaryDirectory.withPath { folder in
            let cache = try DiskCache.open(at: folder, layout: .native)
            // Given a run that started later and ended first, then one that started earlier ends
            let started = Date(timeIntervalSince1970: 1_700_000_000)
            let newer = RunRecord(job: "quick", started: started, duration: 1, totals: [:], outcome: "completed")
            let older = RunRecord(job: "slow", started: started.addingTimeInterval(-30), duration: 40, totals: [:], outcome: "incomplete")
            try cache.index.recordRun(newer)
            try cache.index.recordRun(older)
            // Then the last run, the newer, keeps its outcome
            #expect(try cache.index.lastRun()?.outcome == "completed")
            #expect(try cache.index.recentRuns(limit: 2).map(\.job) == ["quick", "slow"])
        }
    }
}

/// What a rebuilt index lost, said and mended.
@Suite(.timeLimit(.minutes(3))) struct RebuiltIndexTests {
    @Test func aCommandSaysTheIndexWasRebuiltAndWhereTheDamagedOneIsKept() throws {
        let folder = try TemporaryDirectory()
        let root = folder.path + "/cache"
        _ = try fillCache(try DiskCache.open(at: root, layout: .native), count: 2)
        try Data(repeating: 0x5A, count: 8192).write(to: URL(fileURLWithPath: root + "/index.sqlite"))

        let stats = try Binary.run(["stats", "--cache", root])

        #expect(stats.status == 0, "\(stats.stderr)")
        #expect(stats.stderr.contains("could not be used"), "\(stats.stderr)")
        #expect(stats.stderr.contains("it is kept as \(root)/index.sqlite.corrupt-"), "\(stats.stderr)")
        #expect(stats.stderr.contains("the links of variants to their originals, the failure ledger and the run history are lost"), "\(stats.stderr)")
        #expect(stats.stderr.split(separator: "\n").count == 1, "\(stats.stderr)")
    }

    @Test func theNextRunFillsInTheURLAndSetOfEveryEntryItFindsAgain() throws {
        // Given a run's two entries, whose index was then lost and rebuilt from the files
        let folder = try TemporaryDirectory()
        let sets = """
              - { name: photos, urls: ["http://img.test/a.png", "http://img.test/b.png"] }
            """
        _ = try SchedulerTests.run(folder, sets: sets, transport: ScriptedTransport { _ in .body(SchedulerTests.png) })
        // A new file of garbage in the index's place, its WAL gone with it: the run's connection may still
        // be closing on another thread, and its last checkpoint must land in the old file, not this one.
        let index = folder.path + "/cache/index.sqlite"
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: index + suffix) }
        try Data(repeating: 0x5A, count: 8192).write(to: URL(fileURLWithPath: index))
        let rebuilt = try DiskCache.open(at: folder.path + "/cache", layout: .native)
        #expect(try rebuilt.lookup(key: "http://img.test/a.png")?.url == nil)

        // When the job runs again
        let transport = ScriptedTransport { _ in .body(SchedulerTests.png) }
        let outcome = try SchedulerTests.run(folder, sets: sets, transport: transport)

        // Then nothing is fetched, and the entries have their URLs and set again
        #expect(transport.submitted.withLock { $0 }.isEmpty)
        #expect(outcome.report.totals.cached == 2)
        let cache = try DiskCache.open(at: folder.path + "/cache", layout: .native)
        for url in ["http://img.test/a.png", "http://img.test/b.png"] {
            let entry = try #require(try cache.lookup(key: url))
            #expect(entry.url == url)
            #expect(entry.setName == "photos")
        }
        #expect(try CacheStats.collect(from: cache).bySet.map(\.name) == ["photos"])
    }
}
