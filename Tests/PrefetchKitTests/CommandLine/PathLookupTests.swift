import Foundation
import Testing
@testable import PrefetchKit

/// `path` finds what `stats` lists: by the stored URL, by a job's cache_key rule, and refuses what is
/// not a URL.
@Suite(.timeLimit(.minutes(3))) struct PathLookupTests {
    static let base = "http://127.0.0.1:9/img"
    static let signed = "\(base)/testorig.jpg?sig=a1b2"
    static let key = "\(base)/testorig.jpg"
    /// Listed by the same set, never stored: its key is the stored entry's only by the set's rule.
    static let resigned = "\(base)/testorig.jpg?sig=zzzz"

    /// A cache holding the entry a set with `cache_key: { drop_params: [sig] }` stores for `signed`,
    /// and that job.
    func fixture(redact: String = "[]") throws -> (folder: TemporaryDirectory, cache: DiskCache) {
        let folder = try TemporaryDirectory()
        let cache = try DiskCache.open(at: folder.file("cache").path, layout: .native)
        let stored = URLRedaction.shown(Self.signed, hiding: redact == "[]" ? [] : ["sig"])
        try cache.store(data: Data(ImageFixtures.baselineJPEG), as: NewEntry(url: stored, key: Self.key, setName: "signed"))
        try cache.flush()
        _ = try folder.write("job.yaml", """
            version: 1
            cache: { path: cache }
            defaults: { cache_key: { drop_params: [w] } }
            sets:
              - { name: other, urls: ["\(Self.base)/other.png"] }
              - { name: signed, redact_params: \(redact), cache_key: { drop_params: [sig] }, urls: ["\(Self.signed)", "\(Self.resigned)"] }
            """)
        return (folder, cache)
    }

    func expectedPath(_ folder: TemporaryDirectory, _ cache: DiskCache) -> String {
        folder.file("cache").path + "/" + cache.relativePath(forKey: Self.key) + "\n"
    }

    @Test func theURLStatsListsIsFoundByItsStoredURL() throws {
        let (folder, cache) = try fixture()
        let stats = try Binary.run(["stats", "--cache", "cache"], in: folder.url)
        #expect(stats.stdout.contains(Self.signed))
        let found = try Binary.run(["path", Self.signed, "--cache", "cache"], in: folder.url)
        #expect(found.status == 0, "\(found.stderr)")
        #expect(found.stdout == expectedPath(folder, cache))
    }

    @Test func aRedactedStoredURLIsFoundByItsShownFormAndByTheURLItself() throws {
        let (folder, cache) = try fixture(redact: "[sig]")
        for url in ["\(Self.base)/testorig.jpg?sig=***", Self.signed] {
            let found = try Binary.run(["path", url, "--cache", "cache"], in: folder.url)
            #expect(found.status == 0, "\(url): \(found.stderr)")
            #expect(found.stdout == expectedPath(folder, cache))
        }
    }

    @Test func severalEntriesBehindOneShownURLAreNotGuessedBetween() throws {
        let (folder, cache) = try fixture(redact: "[sig]")
        try cache.store(data: Data(ImageFixtures.png(width: 2, height: 2)),
                        as: NewEntry(url: "\(Self.base)/testorig.jpg?sig=***", key: "\(Self.base)/testorig.jpg?sig=c3d4"))
        try cache.flush()
        let outcome = try Binary.run(["path", "\(Self.base)/testorig.jpg?sig=***", "--cache", "cache"], in: folder.url)
        #expect(outcome.status == 1)
        #expect(outcome.stdout.isEmpty)
        #expect(outcome.stderr.contains("2 entries have the stored URL"))
    }

    @Test func withAJobTheSetsCacheKeyRuleMakesTheKey() throws {
        let (folder, cache) = try fixture()
        #expect(try Binary.run(["path", Self.resigned, "--cache", "cache"], in: folder.url).status == 1)
        let found = try Binary.run(["path", Self.resigned, "--job", "job.yaml"], in: folder.url)
        #expect(found.status == 0, "\(found.stderr)")
        #expect(found.stdout == expectedPath(folder, cache))
    }

    @Test func aURLNoSetListsIsKeyedByTheJobsDefaults() throws {
        let (folder, cache) = try fixture()
        #expect(try Binary.run(["path", "\(Self.base)/testorig.jpg?w=100", "--cache", "cache"], in: folder.url).status == 1)
        let outcome = try Binary.run(["path", "\(Self.base)/testorig.jpg?w=100", "--job", "job.yaml"], in: folder.url)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stdout == expectedPath(folder, cache))
    }

    @Test func notAURLIsAUsageError() throws {
        let (folder, _) = try fixture()
        for argument in ["not-a-url", "ftp://127.0.0.1/a.png", "http://"] {
            let outcome = try Binary.run(["path", argument, "--cache", "cache"], in: folder.url)
            #expect(outcome.status == 2, "\(argument)")
            #expect(outcome.stdout.isEmpty)
            #expect(outcome.stderr.split(separator: "\n").count == 1)
            #expect(outcome.stderr.hasPrefix("prefetchd path: "))
        }
    }
}
