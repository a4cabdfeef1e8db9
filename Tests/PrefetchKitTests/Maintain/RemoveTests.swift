import Foundation
import Testing
@testable import PrefetchKit

/// `prefetchd remove` end to end: each selection, a dry run, `--all`, the ledger lines, fsck after,
/// the clean lock, and a remove beside a writer.
@Suite(.timeLimit(.minutes(3))) struct RemoveTests {
    static let base = "http://127.0.0.1:9/img"
    static let other = "http://Other.example:8080/img"

    /// A cache holding a.png (set s1), b.jpg and c.png (set s2, c on another host), ledger lines for
    /// a.png and for a failed URL of the other host, and recorded limits.
    func fixture() throws -> (folder: TemporaryDirectory, cache: DiskCache) {
        let folder = try TemporaryDirectory()
        let cache = try DiskCache.open(at: folder.file("cache").path, layout: .native)
        for (number, (url, set)) in [("\(Self.base)/a.png", "s1"), ("\(Self.base)/b.jpg", "s2"), ("\(Self.other)/c.png", "s2")].enumerated() {
            try cache.store(data: Data(ImageFixtures.png(width: UInt32(2 + number), height: 2)), as: NewEntry(url: url, key: url, setName: set))
        }
        try cache.index.recordFailure(FailureRecord(url: "\(Self.base)/a.png", key: "\(Self.base)/a.png", reason: "http_404"))
        try cache.index.recordFailure(FailureRecord(url: "\(Self.other)/x.png", key: "\(Self.other)/x.png", reason: "http_410"))
        try cache.index.recordLimits(CacheLimits(maxSize: 1 << 20, maxAge: 86_400, expireBy: .access, trimTo: 0.5), job: "j")
        try cache.flush()
        return (folder, cache)
    }

    func remove(_ arguments: [String], _ folder: TemporaryDirectory) throws -> Binary.Outcome {
        try Binary.run(["remove"] + arguments + ["--cache", "cache"], in: folder.url)
    }

    /// Runs `remove arguments` and expects it to say it removed `entries` and `lines`.
    func expectRemoval(_ arguments: [String], _ folder: TemporaryDirectory, _ entries: String, _ lines: String) throws {
        let outcome = try remove(arguments, folder)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stdout.hasPrefix("remove: removed \(entries), "), "\(outcome.stdout)")
        #expect(outcome.stdout.hasSuffix(", \(lines)\n"), "\(outcome.stdout)")
    }

    /// The URLs the index still holds, and the keys of its ledger lines, as committed.
    func remaining(_ folder: TemporaryDirectory) throws -> (urls: Set<String>, ledger: Set<String>) {
        let cache = try DiskCache.open(at: folder.file("cache").path, layout: .native)
        #expect(try CacheChecker(cache).check().isEmpty)
        #expect(try scanFiles(cache).count == (try cache.index.entryCount()))
        return (Set(try cache.index.allEntries().compactMap(\.url)), Set(try cache.index.failures().map(\.key)))
    }

    @Test func aURLGoesWithItsFileRowAndLedgerLine() throws {
        let (folder, _) = try fixture()
        try expectRemoval(["\(Self.base)/a.png"], folder, "1 entry", "1 failure-ledger line")
        let (urls, ledger) = try remaining(folder)
        #expect(urls == ["\(Self.base)/b.jpg", "\(Self.other)/c.png"])
        #expect(ledger == ["\(Self.other)/x.png"])
        #expect(try Binary.run(["fsck", "--cache", "cache"], in: folder.url).status == 0)
    }

    @Test func aSetGoesWhole() throws {
        let (folder, _) = try fixture()
        try expectRemoval(["--set", "s2"], folder, "2 entries", "0 failure-ledger lines")
        #expect(try remaining(folder).urls == ["\(Self.base)/a.png"])
    }

    @Test func aHostGoesWithItsLedgerLines() throws {
        let (folder, _) = try fixture()
        try expectRemoval(["--host", "other.example:8080"], folder, "1 entry", "1 failure-ledger line")
        let (urls, ledger) = try remaining(folder)
        #expect(urls == ["\(Self.base)/a.png", "\(Self.base)/b.jpg"])
        #expect(ledger == ["\(Self.base)/a.png"])
    }

    @Test func aJobsURLsGoByItsCacheKeyRule() throws {
        let (folder, _) = try fixture()
        _ = try folder.write("job.yaml", """
            version: 1
            cache: { path: cache }
            sets:
              - { name: s, cache_key: { drop_params: [sig] }, urls: ["\(Self.base)/b.jpg?sig=zz"] }
            """)
        let outcome = try Binary.run(["remove", "--job", "job.yaml"], in: folder.url)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(try remaining(folder).urls == ["\(Self.base)/a.png", "\(Self.other)/c.png"])
    }

    @Test func aDryRunListsAndChangesNothing() throws {
        let (folder, cache) = try fixture()
        let outcome = try remove(["--set", "s2", "--dry-run"], folder)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let lines = outcome.stdout.split(separator: "\n")
        #expect(lines.filter { $0.hasPrefix("would remove ") }.count == 2)
        #expect(lines.last?.hasPrefix("remove (dry run, nothing changed): would remove 2 entries, ") == true)
        #expect(try remaining(folder).urls.count == 3)
        #expect(try cache.index.failures().count == 2)
    }

    @Test func allClearsTheCacheButKeepsItsFolderMarkerAndLimits() throws {
        let (folder, _) = try fixture()
        try expectRemoval(["--all"], folder, "3 entries", "2 failure-ledger lines")
        let (urls, ledger) = try remaining(folder)
        #expect(urls.isEmpty && ledger.isEmpty)
        let reopened = try #require(try DiskCache.openExisting(at: folder.file("cache").path, for: .read))
        #expect(try reopened.index.recordedLimits()?.maxSize == 1 << 20)
        #expect(FileManager.default.fileExists(atPath: folder.file("cache/CACHEDIR.TAG").path))
        #expect(try remove(["--all"], folder).status == 0)  // an empty cache is cleared too
        #expect(try Binary.run(["stats", "--cache", "cache"], in: folder.url).status == 0)
    }

    @Test func nothingMatchedExits1AndBadSelectionsAreUsageErrors() throws {
        let (folder, _) = try fixture()
        let none = try remove(["\(Self.base)/zzz.png"], folder)
        #expect(none.status == 1)
        #expect(none.stderr.contains("nothing matched"))
        for arguments in [[], ["--set", "s1", "--host", "h"], ["not-a-url"], ["\(Self.base)/a.png", "--all"]] {
            let outcome = try remove(arguments, folder)
            #expect(outcome.status == 2, "\(arguments)")
            #expect(outcome.stderr.split(separator: "\n").count == 1, "\(arguments)")
        }
        #expect(try remaining(folder).urls.count == 3)
        #expect(try Binary.run(["remove", "--all", "--cache", "nowhere"], in: folder.url).status == 3)
        #expect(!FileManager.default.fileExists(atPath: folder.file("nowhere").path))
        #expect(try Binary.run(["remove", "--help"]).stdout.contains("--host HOST"))
    }

    @Test func aRemoveWaitsForTheCleanLockAndGivesUpChangingNothing() throws {
        let (folder, cache) = try fixture()
        defer { withExtendedLifetime(folder) {} }
        let cleaner = CacheCleaner(cache, policy: CleanPolicy(lockWait: 0.2))
        do {
            guard case .success(let held) = try CacheFolderLock.acquire(cleaner.lockPath, wait: 0) else {
                Issue.record("the clean lock was held")
                return
            }
            defer { withExtendedLifetime(held) {} }
            #expect(throws: MaintenanceError.self) { try cleaner.evict(.all) }
        }
        #expect(try cache.index.entryCount() == 3)
        #expect(try cleaner.evict(.all).removed.entries == 3)
    }

    @Test func aRemoveBesideAWriterLeavesTheCacheWhole() throws {
        let (folder, _) = try fixture()
        let writer = try DiskCache.open(at: folder.file("cache").path, layout: .native)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            _ = try? fillCache(writer, count: 1_000, set: "s2")
            try? writer.flush()
            done.signal()
        }
        for _ in 0..<3 {
            let outcome = try remove(["--set", "s2"], folder)
            #expect(outcome.status == 0 || outcome.status == 1, "\(outcome.stderr)")
        }
        done.wait()
        _ = try remaining(folder)  // fsck finds nothing wrong, every row has its file
        #expect(try remove(["--set", "s2"], folder).status != 2)
        #expect(try remaining(folder).urls == ["\(Self.base)/a.png"])
    }
}
