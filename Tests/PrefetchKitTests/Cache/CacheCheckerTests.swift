import Foundation
import Testing
@testable import PrefetchKit

@Suite struct CacheCheckerTests {
    /// A cache with three good entries under keys `https://c.example/<n>.png`, stored as PNGs (as a
    /// set that validates stores them).
    private func withFilledCache(_ body: (DiskCache, [CacheEntry]) throws -> Void) throws {
        try TemporaryDirectory.withPath { folder in
            let cache = try DiskCache.open(at: folder, layout: .native)
            let entries = try (0..<3).map { number in
                let key = "https://c.example/\(number).png"
                return try cache.store(data: pngLikeBody(number), as: NewEntry(url: key, key: key, format: .png))
            }
            #expect(try CacheChecker(cache).check().isEmpty)
            try body(cache, entries)
        }
    }

    /// Checks, expects exactly `expected`, repairs, and expects a clean check afterwards.
    private func expectRepaired(
        _ cache: DiskCache, _ expected: [CacheProblem], validate: (String) -> String? = { _ in nil }
    ) throws {
        let checker = CacheChecker(cache, staleTempAge: 600)
        let problems = try checker.check(validate: validate)
        #expect(problems == expected)
        try checker.repair(problems)
        #expect(try checker.check(validate: validate).isEmpty)
    }

    @Test func aRowWithoutItsFileIsDropped() throws {
        try withFilledCache { cache, entries in
            try FileManager.default.removeItem(atPath: entries[0].path)
            try expectRepaired(cache, [.missingFile(relativePath: entries[0].relativePath)])
            #expect(try cache.index.entryCount() == 2)
        }
    }

    @Test func aFileWithoutARowGetsOne() throws {
        try withFilledCache { cache, entries in
            try cache.index.deleteEntry(relativePath: entries[1].relativePath)
            try expectRepaired(cache, [.orphanFile(relativePath: entries[1].relativePath)])
            let entry = try #require(try cache.lookup(key: "https://c.example/1.png"))
            #expect(entry.checksum == entries[1].checksum)
            #expect(entry.format == .png)
        }
    }

    @Test func aRowDeletedBehindTheIndexsBackIsFoundAndTheTotalsComputedAgain() throws {
        try withFilledCache { cache, entries in
            // Given a row deleted with plain SQL, as the sqlite3 tool would: no trigger takes it off the totals
            try cache.index.withConnection { connection throws(CacheError) in
                try connection.write("DELETE FROM entries WHERE relative_path = ?", [.text(entries[1].relativePath)])
            }
            try cache.flush()
            let bytes = entries.reduce(0) { $0 + $1.size }
            // Then fsck finds the file without its row and the totals that still count it; the repair
            // gives the file its row back and counts every entry once (before, the totals counted it twice)
            try expectRepaired(cache, [
                .orphanFile(relativePath: entries[1].relativePath),
                .totalsMismatch(keptEntries: 3, keptBytes: bytes, rowEntries: 2, rowBytes: bytes - entries[1].size),
            ])
            #expect(try cache.index.totals("all") == [CacheGroupTotal(name: "", entries: 3, bytes: bytes, frames: 3)])
            #expect(try cache.index.totals("format").map(\.entries) == [3])
        }
    }

    @Test func aFileOfTheWrongSizeIsRemoved() throws {
        try withFilledCache { cache, entries in
            try pngLikeBody(9, length: 10).write(to: URL(fileURLWithPath: entries[2].path))
            try expectRepaired(cache, [.sizeMismatch(relativePath: entries[2].relativePath, expected: 308, actual: 18)])
            #expect(!FileManager.default.fileExists(atPath: entries[2].path))
            #expect(try cache.index.entryCount() == 2)
        }
    }

    @Test func aFileWithOtherContentOfTheSameSizeIsRemoved() throws {
        try withFilledCache { cache, entries in
            let other = pngLikeBody(42)
            try other.write(to: URL(fileURLWithPath: entries[0].path))
            let actual = try ContentHasher.checksum(ofFileAt: entries[0].path)
            try expectRepaired(cache, [.checksumMismatch(
                relativePath: entries[0].relativePath, expected: entries[0].checksum ?? "", actual: actual)])
            #expect(!FileManager.default.fileExists(atPath: entries[0].path))
        }
    }

    @Test func aFileTheValidatorRefusesIsRemoved() throws {
        try withFilledCache { cache, entries in
            let refuse: (String) -> String? = { $0 == entries[1].path ? "truncated image" : nil }
            try expectRepaired(cache, [.invalidFile(relativePath: entries[1].relativePath, reason: "truncated image")],
                               validate: refuse)
            #expect(!FileManager.default.fileExists(atPath: entries[1].path))
        }
    }

    @Test func aFileStoredWithoutValidationIsHeldToItsChecksumButNotDecodeChecked() throws {
        try withFilledCache { cache, entries in
            // Given two files a `validate: none` set stored (rows without a format), one of them
            // changed behind the cache's back, and a validator that refuses every file
            let kept = try cache.store(data: Data("plain text".utf8), as: NewEntry(url: "https://c.example/a", key: "https://c.example/a"))
            let changed = try cache.store(data: Data("other text".utf8), as: NewEntry(url: "https://c.example/b", key: "https://c.example/b"))
            try Data("OTHER TEXT".utf8).write(to: URL(fileURLWithPath: changed.path))
            let actual = try ContentHasher.checksum(ofFileAt: changed.path)
            // Then fsck refuses the PNG rows and the changed file (in row order), and keeps the
            // unvalidated file that is as it was stored
            let refused = entries.map { CacheProblem.invalidFile(relativePath: $0.relativePath, reason: "refused") }
            try expectRepaired(cache, inRowOrder(refused + [
                .checksumMismatch(relativePath: changed.relativePath, expected: changed.checksum ?? "", actual: actual),
            ], path: \.relativePath), validate: { _ in "refused" })
            #expect(FileManager.default.fileExists(atPath: kept.path))
            #expect(try cache.index.entryCount() == 1)
        }
    }

    @Test func anOrphanThatIsNoImageIsIndexedAndAnImageThatFailsItsCheckRemoved() throws {
        try withFilledCache { cache, entries in
            // Given a file a `validate: none` set stored and a PNG, both without their rows (a batch
            // the index lost), and a validator that refuses every file
            let text = try cache.store(data: Data("plain text".utf8), as: NewEntry(url: "https://c.example/a", key: "https://c.example/a"))
            for path in [text.relativePath, entries[0].relativePath] {
                try cache.index.deleteEntry(relativePath: path)
            }
            // Then fsck indexes the text file again and removes the PNG it refuses (rows first, in
            // row order, then the files without rows by name)
            let rows = entries.dropFirst().map { CacheProblem.invalidFile(relativePath: $0.relativePath, reason: "refused") }
            let orphans: [CacheProblem] = [
                .orphanFile(relativePath: text.relativePath),
                .invalidFile(relativePath: entries[0].relativePath, reason: "refused"),
            ]
            try expectRepaired(cache, inRowOrder(rows, path: \.relativePath) + orphans.sorted { $0.relativePath < $1.relativePath },
                               validate: { _ in "refused" })
            #expect(FileManager.default.fileExists(atPath: text.path))
            #expect(!FileManager.default.fileExists(atPath: entries[0].path))
        }
    }

    @Test func anOldTempFileIsRemovedAndAFreshOneKept() throws {
        try withFilledCache { cache, _ in
            let old = try cache.makeTempFile()
            let fresh = try cache.makeTempFile()
            let oldName = (old.path as NSString).lastPathComponent
            var times = [timespec(tv_sec: time(nil) - 7200, tv_nsec: 0), timespec(tv_sec: time(nil) - 7200, tv_nsec: 0)]
            #expect(utimensat(AT_FDCWD, old.path, &times, 0) == 0)

            try expectRepaired(cache, [.staleTemp(relativePath: "tmp/" + oldName)])
            #expect(!FileManager.default.fileExists(atPath: old.path))
            #expect(FileManager.default.fileExists(atPath: fresh.path))
        }
    }

    @Test func filesThatAreNotCacheNamesAreLeftAlone() throws {
        try withFilledCache { cache, _ in
            try Data("notes".utf8).write(to: URL(fileURLWithPath: cache.root + "/README"))
            try FileManager.default.createDirectory(atPath: cache.root + "/a/bc", withIntermediateDirectories: true)
            try Data("x".utf8).write(to: URL(fileURLWithPath: cache.root + "/a/bc/not-a-hash.png"))
            #expect(try CacheChecker(cache).check().isEmpty)
        }
    }
}
