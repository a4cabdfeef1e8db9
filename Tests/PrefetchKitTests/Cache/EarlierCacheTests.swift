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

    @Test(arguments: ["schema8-native", "schema8-sdwebimage"])
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

    @Test(arguments: ["schema8-native", "schema8-sdwebimage"])
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

    /// On a disk that cannot be written, the old index cannot be upgraded: a reader is told so, and
    /// nothing is changed.
    @Test func aReadOnlySnapshotOfItIsRefusedWithTheReason() throws {
        let folder = try TemporaryDirectory()
        let root = try Self.copy("schema8-native", into: folder)
        #expect(throws: CacheError.indexNeedsUpgrade(path: root + "/index.sqlite", version: "8")) {
            try CacheIndex.openSnapshot(root: root)
        }
        #expect(try IndexDatabase(path: root + "/index.sqlite").text("SELECT value FROM meta WHERE key='schema_version'") == "8")
    }
}
