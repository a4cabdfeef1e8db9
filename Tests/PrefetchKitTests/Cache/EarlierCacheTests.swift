import Foundation
import Testing
@testable import PrefetchKit

/// A cache an earlier prefetchd made still opens, answers and takes new entries.
@Suite(.timeLimit(.minutes(1))) struct EarlierCacheTests {
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/caches").path
    static let samples = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("jobs/samples").path
    static let origin = "http://127.0.0.1:18731/"
    static let stored = ["testorig.jpg", "testimgint.jpg", "basi3p08.png", "basn2c08.png", "pngtest.png"]

    /// A copy of the fixture `name` at `<folder>/cache`.
    static func copy(_ name: String, into folder: TemporaryDirectory) throws -> String {
        let path = folder.path + "/cache"
        try FileManager.default.copyItem(atPath: fixtures + "/" + name, toPath: path)
        return path
    }

    static let all = ["schema8-native", "schema8-sdwebimage", "schema9-native", "schema9-sdwebimage",
                      "schema10-native", "schema10-sdwebimage",
                      "schema11-native", "schema11-sdwebimage", "schema12-native", "schema12-sdwebimage",
                      "schema13-native", "schema13-sdwebimage", "schema14-native", "schema14-sdwebimage"]

    /// A copy of the fixture `name` at `<folder>/cache`, its index open as the earlier prefetchd left it,
    /// with its rows and totals (`rows`, `totals`) read before anything upgrades it.
    static func copyAsLeft(_ name: String, into folder: TemporaryDirectory) throws
        -> (root: String, old: IndexDatabase, rows: String?, totals: String?) {
        let root = try copy(name, into: folder)
        let old = try IndexDatabase(path: root + "/index.sqlite")
        return (root, old, try old.text(rows), try old.text(totals))
    }

    /// Every row's path, size, first fetch and last use, as one text.
    static let rows = "SELECT group_concat(relative_path || ':' || byte_size || ':' || fetched_at || ':' || accessed_at, ',') FROM (SELECT * FROM entries ORDER BY relative_path)"

    /// Every kept total, as one text.
    static let totals = "SELECT group_concat(dimension || ':' || value || ':' || entries || ':' || bytes, ',') FROM (SELECT * FROM entry_totals WHERE entries != 0 ORDER BY dimension, value)"

    /// The outcome the fixture's one run recorded: schema 12's prefetchd and later recorded outcomes, the earlier ones did not.
    static func recordedOutcome(_ name: String) -> String? {
        ["schema12", "schema13", "schema14"].contains { name.hasPrefix($0) } ? "completed" : nil
    }

    @Test(arguments: all)
    func itsEntriesLedgerAndRunsAreReadAsTheyWere(_ name: String) throws {
        let folder = try TemporaryDirectory()
        let root = try Self.copy(name, into: folder)
        let cache = try #require(try DiskCache.openExisting(at: root, for: .write))
        #expect(try cache.index.entryCount() == 5)
        for file in Self.stored {
            let path = try #require(try cache.path(forKey: Self.origin + file))
            #expect(FileManager.default.contents(atPath: path) == FileManager.default.contents(atPath: Self.samples + "/" + file))
        }
        #expect(try cache.index.failure(forKey: Self.origin + "gone.png")?.reason == "http_404")
        #expect(try cache.index.recentRuns(limit: 5).map(\.job) == ["fixture"])
        let validator = ImageValidator(level: .decode, maxBytes: 0)
        let problems = try CacheChecker(cache).check { path in
            do throws(ImageError) {
                _ = try validator.validate(fileAt: path)
                return nil
            } catch {
                return error.reason
            }
        }
        #expect(problems.isEmpty, "\(problems)")
    }

    /// Stats over an index from before cleans (and, before schema 12, run outcomes) were recorded: none
    /// shown, nothing upgraded; the next clean and run are recorded beside the earlier rows.
    @Test(arguments: all)
    func statsShowsNoCleanAndNoOutcomeUntilTheyAreRecorded(_ name: String) throws {
        let folder = try TemporaryDirectory()
        let cache = try #require(try DiskCache.openExisting(at: try Self.copy(name, into: folder), for: .write))
        let before = try CacheStats.collect(from: cache)
        #expect(before.lastClean == nil)
        #expect(before.runs.map(\.outcome) == [Self.recordedOutcome(name)])
        #expect(before.failuresByHost.map(\.name) == ["127.0.0.1:18731"])
        _ = try CacheCleaner(cache, policy: testPolicy()).run()
        try cache.index.recordRun(RunRecord(job: "next", started: Date(), duration: 1, totals: [:], outcome: "completed"))
        let after = try CacheStats.collect(from: cache)
        #expect(after.lastClean?.removedEntries == 0)
        // (the index keeps the outcome of its last run only)
        #expect(after.runs.map(\.outcome) == ["completed", nil])
    }

    @Test(arguments: all)
    func aRunOverItFetchesOnlyWhatItLacks(_ name: String) throws {
        let folder = try TemporaryDirectory()
        _ = try Self.copy(name, into: folder)
        let layout = name.hasSuffix("sdwebimage") ? "sdwebimage" : "native"
        let transport = ScriptedTransport { _ in .body(SchedulerTests.png) }
        let outcome = try SchedulerTests.run(folder, layout: layout, sets: """
              - { name: s, urls: ["\(Self.origin)testorig.jpg", "\(Self.origin)new.png"] }
            """, transport: transport)
        #expect(transport.submitted.withLock { $0 } == [Self.origin + "new.png"])
        #expect(outcome.report.totals.cached == 1)
        #expect(outcome.report.totals.fetched == 1)
        let cache = try #require(try DiskCache.openExisting(at: folder.path + "/cache", for: .read))
        #expect(try cache.index.entryCount() == 6)
        #expect(try CacheChecker(cache).check().isEmpty)
    }

    /// The schema-8 index is upgraded in place by the first writer: its rows and totals stay, each
    /// entry counted as one frame (its frames unknown), and a new body records its frames.
    @Test(arguments: ["schema8-native", "schema8-sdwebimage"])
    func itsIndexIsUpgradedInPlaceToRecordFrames(_ name: String) throws {
        let folder = try TemporaryDirectory()
        let root = try Self.copy(name, into: folder)
        #expect(try IndexDatabase(path: root + "/index.sqlite").text("SELECT value FROM meta WHERE key='schema_version'") == "8")
        let cache = try #require(try DiskCache.openExisting(at: root, for: .write))
        let database = try IndexDatabase(path: root + "/index.sqlite")
        #expect(try database.text("SELECT value FROM meta WHERE key='schema_version'") == IndexConnection.schemaVersion)
        #expect(try database.text("SELECT count(*) FROM entries WHERE frames IS NULL") == "5")
        let byFormat = try CacheStats.collect(from: cache).byFormat
        #expect(byFormat.allSatisfy { $0.frames == $0.entries }, "\(byFormat)")
        #expect(try CacheChecker(cache).check().isEmpty)
    }

    /// The schema-9 index (and the schema-8 one, after its first step) is upgraded in place to keep
    /// partial bodies and per-entry freshness: two new tables, empty, and every row, total and run
    /// as it was.
    @Test(arguments: ["schema8-native", "schema9-native", "schema9-sdwebimage"])
    func itsIndexIsUpgradedInPlaceToKeepPartialsAndFreshness(_ name: String) throws {
        let folder = try TemporaryDirectory()
        let root = try Self.copy(name, into: folder)
        let before = try IndexDatabase(path: root + "/index.sqlite")
        let version = try #require(try before.text("SELECT value FROM meta WHERE key='schema_version'"))
        #expect(version == String(name.dropFirst("schema".count).prefix { $0.isNumber }))
        #expect(try before.text("SELECT name FROM sqlite_master WHERE name='partials'") == nil)
        let totalsBefore = try before.text("SELECT group_concat(dimension || value || entries || bytes, ',') FROM entry_totals")
        let cache = try #require(try DiskCache.openExisting(at: root, for: .write))
        let database = try IndexDatabase(path: root + "/index.sqlite")
        #expect(try database.text("SELECT value FROM meta WHERE key='schema_version'") == IndexConnection.schemaVersion)
        #expect(IndexConnection.schemaVersion == "15")
        #expect(try database.text("SELECT count(*) FROM partials") == "0")
        #expect(try database.text("SELECT count(*) FROM freshness") == "0")
        #expect(try database.text("SELECT group_concat(dimension || value || entries || bytes, ',') FROM entry_totals") == totalsBefore)
        #expect(try cache.index.entryCount() == 5)
        #expect(try cache.index.partials().isEmpty)
        #expect(try CacheChecker(cache).check().isEmpty)
        // The new tables take rows, as a run writes them.
        try cache.index.recordPartial(PartialRecord(key: "k", relativePath: "tmp/k.resume", url: "u", size: 3, etag: "\"e\"",
                                                    lastModified: nil, recordedAt: Date(), expiresAt: Date()))
        try cache.flush()
        #expect(try cache.index.partial(forKey: "k")?.size == 3)
    }

    /// The schema-9 and schema-10 indexes are upgraded in place by the first writer to rank the largest
    /// entries by row id after size: the floor gains the highest row id, so the table keeps what it
    /// held, and the largest entries read from it agree with a scan; a schema-8 index goes through
    /// every step.
    @Test(arguments: ["schema8-native", "schema9-native", "schema9-sdwebimage", "schema10-native", "schema10-sdwebimage"])
    func itsLargestEntriesAreRankedByRowIDAfterTheUpgrade(_ name: String) throws {
        let folder = try TemporaryDirectory()
        let root = try Self.copy(name, into: folder)
        let cache = try #require(try DiskCache.openExisting(at: root, for: .write))
        let database = try IndexDatabase(path: root + "/index.sqlite")
        #expect(try database.text("SELECT value FROM meta WHERE key='schema_version'") == IndexConnection.schemaVersion)
        #expect(try database.text("SELECT value FROM meta WHERE key='largest_floor_id'") == String(IndexLargest.lowestFloorID))
        #expect(try database.text("SELECT count(*) FROM largest_entries") == "5")
        let scanned = try database.text("SELECT group_concat(relative_path) FROM (SELECT relative_path FROM entries ORDER BY byte_size DESC, id)")
        #expect(try cache.index.largestEntries(limit: 5).map(\.relativePath).joined(separator: ",") == scanned)
    }

    /// The schema-12 index (and a schema-8 one, through every step) is upgraded in place by the first
    /// writer to split the totals' update trigger: the totals stay as they were; then a use in another
    /// hour moves the entry between its two access hours alone, a new body moves it everywhere, and
    /// the totals still agree with the rows.
    @Test(arguments: ["schema8-native", "schema12-native", "schema12-sdwebimage"])
    func itsTotalsTriggerIsSplitByTheUpgrade(_ name: String) throws {
        let folder = try TemporaryDirectory()
        let root = try Self.copy(name, into: folder)
        let before = try IndexDatabase(path: root + "/index.sqlite").text(Self.totals)
        let cache = try #require(try DiskCache.openExisting(at: root, for: .write))
        let database = try IndexDatabase(path: root + "/index.sqlite")
        #expect(try database.text("SELECT value FROM meta WHERE key='schema_version'") == IndexConnection.schemaVersion)
        #expect(try database.text(
            "SELECT group_concat(name) FROM (SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'entries_totals_%' ORDER BY name)"
        ) == "entries_totals_access,entries_totals_update")
        #expect(try database.text(Self.totals) == before)

        // When one entry is used two days on, and another stored again with a new body
        let used = Self.origin + Self.stored[0]
        let hour = { (key: String) throws -> String? in
            try database.text("SELECT CAST(accessed_at / 3600 AS INTEGER) FROM entries WHERE url = '\(key)'")
        }
        let hourBefore = try #require(try hour(used))
        try cache.touch(key: used, at: Date().addingTimeInterval(2 * 86_400))
        try cache.index.foldRecentUses()

        // Then its access hour moved, its old hour's group lost it, and every total agrees with the rows
        let hourAfter = try #require(try hour(used))
        #expect(hourAfter != hourBefore)
        #expect(try database.text("SELECT entries FROM entry_totals WHERE dimension = 'accessed_hour' AND value = \(hourAfter)") == "1")
        #expect(try database.text("SELECT sum(entries) FROM entry_totals WHERE dimension = 'accessed_hour'") == "5")
        #expect(try database.text("SELECT sum(entries) FROM entry_totals WHERE dimension = 'format'") == "5")
        #expect(try cache.index.totalsDrift() == nil)
        try database.execute("UPDATE entries SET byte_size = byte_size + 7, format = 'webp', accessed_at = accessed_at + 7200 WHERE url = '\(used)'")
        #expect(try database.text("SELECT entries FROM entry_totals WHERE dimension = 'format' AND value = 'webp'") == "1")
        #expect(try cache.index.totalsDrift() == nil)
    }

    /// The schema-13 index (and a schema-8 one, through every step) is upgraded in place by the first
    /// writer to give every row the id made from its path, without the path's unique index: every row,
    /// total and largest entry as it was, each found by its path again, and a new body stored beside them.
    @Test(arguments: ["schema8-native", "schema13-native", "schema13-sdwebimage"])
    func itsRowIDsAreMadeFromThePathsByTheUpgrade(_ name: String) throws {
        let folder = try TemporaryDirectory()
        let (root, _, rowsBefore, totalsBefore) = try Self.copyAsLeft(name, into: folder)

        let cache = try #require(try DiskCache.openExisting(at: root, for: .write))
        let database = try IndexDatabase(path: root + "/index.sqlite")
        #expect(try database.text("SELECT value FROM meta WHERE key='schema_version'") == IndexConnection.schemaVersion)
        #expect(try database.text(Self.rows) == rowsBefore)
        #expect(try database.text(Self.totals) == totalsBefore)
        // (no index on the path any more; the clocks' and the variants' are there again)
        #expect(try database.text(
            "SELECT group_concat(name) FROM (SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'entries' ORDER BY name)"
        ) == "entries_accessed_at,entries_fetched_at,entries_variant_of")
        let paths = try #require(try database.text("SELECT group_concat(relative_path, '|') FROM entries")).split(separator: "|").map(String.init)
        for path in paths {
            #expect(try database.text("SELECT id FROM entries WHERE relative_path = '\(path)'") == String(IndexRowID.base(of: path)))
        }
        #expect(try database.text("SELECT count(*) FROM largest_entries") == "5")
        let scanned = try database.text("SELECT group_concat(relative_path) FROM (SELECT relative_path FROM entries ORDER BY byte_size DESC, id)")
        #expect(try cache.index.largestEntries(limit: 5).map(\.relativePath).joined(separator: ",") == scanned)
        for file in Self.stored {
            #expect(try cache.path(forKey: Self.origin + file) != nil)
        }
        #expect(try cache.index.totalsDrift() == nil)
        #expect(try CacheChecker(cache).check().isEmpty)
    }

    /// Schemas 9 and 10 set their floor one byte above a tie they could not split, and then kept no
    /// rows (every entry of one size): the upgrade refills such a table from one scan, so stats read it
    /// again.
    @Test(arguments: ["schema9-native", "schema10-native"])
    func aTableLeftEmptyByATieIsRefilledByTheUpgrade(_ name: String) throws {
        let folder = try TemporaryDirectory()
        let root = try Self.copy(name, into: folder)
        // Given the state schemas 9 and 10 leave after more than 200 entries tied at the top size
        let old = try IndexDatabase(path: root + "/index.sqlite")
        try old.execute("DELETE FROM largest_entries; UPDATE meta SET value = '1000000' WHERE key = 'largest_floor'")
        // When a writer opens it
        let cache = try #require(try DiskCache.openExisting(at: root, for: .write))
        // Then the table holds every entry again (there are fewer than it keeps), under the lowest floor
        let database = try IndexDatabase(path: root + "/index.sqlite")
        #expect(try database.text("SELECT count(*) FROM largest_entries") == "5")
        #expect(try database.text("SELECT value FROM meta WHERE key='largest_floor'") == "0")
        #expect(try database.text("SELECT value FROM meta WHERE key='largest_floor_id'") == String(IndexLargest.lowestFloorID))
        #expect(try cache.index.largestEntries(limit: 10).count == 5)
    }

    /// The schema-14 index (and a schema-8 one, through every step) is upgraded in place by the first
    /// writer to record the runs' uses in a table of their own: every row and total as it was; a use
    /// is recorded there, read as the entry's last use, and folded into the row by the next read of
    /// the last uses as a whole, which moves its access hour in the totals.
    @Test(arguments: ["schema8-native", "schema14-native", "schema14-sdwebimage"])
    func itsUsesAreRecordedApartAfterTheUpgrade(_ name: String) throws {
        let folder = try TemporaryDirectory()
        let (root, old, rowsBefore, totalsBefore) = try Self.copyAsLeft(name, into: folder)
        #expect(try old.text("SELECT name FROM sqlite_master WHERE name = 'recent_uses'") == nil)

        let cache = try #require(try DiskCache.openExisting(at: root, for: .write))
        let database = try IndexDatabase(path: root + "/index.sqlite")
        #expect(try database.text("SELECT value FROM meta WHERE key='schema_version'") == "15")
        #expect(try database.text(Self.rows) == rowsBefore)
        #expect(try database.text(Self.totals) == totalsBefore)
        #expect(try database.text("SELECT count(*) FROM recent_uses") == "0")

        // When an entry is used two days on
        let key = Self.origin + Self.stored[0]
        let relativePath = try #require(try cache.lookup(key: key)).relativePath
        let later = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 2 * 86_400).rounded())
        try cache.touch(key: key, at: later)
        try cache.flush()

        // Then the use is recorded apart, its row as it was, and the entry is read as used then
        #expect(try database.text("SELECT accessed_at FROM recent_uses").flatMap(Double.init) == later.timeIntervalSince1970)
        #expect(try database.text(Self.rows) == rowsBefore)
        #expect(try lastUse(cache, key: key) == later)
        // And the stats fold it into the row: the least recently used is another entry, and the use's hour holds it
        let stats = try CacheStats.collect(from: cache)
        #expect(try database.text("SELECT count(*) FROM recent_uses") == "0")
        #expect(try database.text("SELECT accessed_at FROM entries WHERE relative_path = '\(relativePath)'").flatMap(Double.init)
                == later.timeIntervalSince1970)
        #expect(stats.leastRecentlyUsed != later)
        #expect(try database.text(
            "SELECT entries FROM entry_totals WHERE dimension = 'accessed_hour' AND value = \(Int(later.timeIntervalSince1970) / 3600)") == "1")
        #expect(try cache.index.totalsDrift() == nil)
        #expect(try CacheChecker(cache).check().isEmpty)
    }

    /// On a disk that cannot be written, the old index cannot be upgraded: a reader is told so, and
    /// nothing is changed.
    @Test(arguments: ["schema8-native", "schema9-native", "schema10-native", "schema11-native", "schema12-native", "schema13-native",
                      "schema14-native"])
    func aReadOnlySnapshotOfItIsRefusedWithTheReason(_ name: String) throws {
        let folder = try TemporaryDirectory()
        let root = try Self.copy(name, into: folder)
        let version = String(name.dropFirst("schema".count).prefix { $0.isNumber })
        #expect(throws: CacheError.indexNeedsUpgrade(path: root + "/index.sqlite", version: version)) {
            try CacheIndex.openSnapshot(root: root)
        }
        #expect(try IndexDatabase(path: root + "/index.sqlite").text("SELECT value FROM meta WHERE key='schema_version'") == version)
    }
}
