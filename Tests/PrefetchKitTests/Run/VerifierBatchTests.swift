import Foundation
import Testing
@testable import PrefetchKit

/// `verify` looks its keys up a batch at a time: what it finds must not depend on where a batch ends,
/// and each URL is judged by the set that asked for it.
@Suite(.timeLimit(.minutes(3))) struct VerifierBatchTests {
    static let base = "http://127.0.0.1:9/img"

    static func url(_ number: Int) -> String { "\(base)/\(number).jpg" }

    /// Two full batches and a part of one (all three looked up before the first is judged), and more
    /// full batches than are looked up at once, ending on a batch's edge (an empty last batch); each
    /// with the job's URLs all the cache holds (every original read in one pass) and with many more
    /// rows beside them (each key looked up).
    @Test(arguments: [Verifier.batchSize * 2 + 76, Verifier.batchSize * (Verifier.lookups + 2)], [true, false])
    func findsEveryMissingKeyAcrossBatchesInPlanOrder(count: Int, readingEveryRow: Bool) throws {
        // Given a cache with all but four of several batches' worth of URLs, one of them stored and
        // then its file deleted behind the cache's back
        let folder = try TemporaryDirectory()
        let cache = try DiskCache.open(at: folder.file("cache").path, layout: .native)
        let unstored: Set = [5, Verifier.batchSize + 1, count - 1]
        let deleted = Verifier.batchSize + 88
        for number in 0..<count where !unstored.contains(number) {
            try cache.store(data: Data(ImageFixtures.baselineJPEG), as: NewEntry(url: Self.url(number), key: Self.url(number)))
        }
        // (and, but when every row is read, enough URLs the job does not ask for that each key is looked up)
        let others = readingEveryRow ? 0 : count * Verifier.everyRowShare + 4
        for number in 0..<others {
            let url = "\(Self.base)/other/\(number).jpg"
            try cache.store(data: Data(ImageFixtures.baselineJPEG), as: NewEntry(url: url, key: url))
        }
        try cache.flush()
        #expect(Verifier.readsEveryRow(urls: count + 1, rows: count - unstored.count + others) == readingEveryRow)
        let gone = try #require(try cache.lookup(key: Self.url(deleted))).path
        #expect(unlink(gone) == 0)
        // and a URL file that asks for every URL, one of them twice
        let lines = (0..<count).map(Self.url) + [Self.url(7)]
        try folder.write("urls.txt", lines.joined(separator: "\n") + "\n")
        let jobURL = try folder.write("job.yaml", """
            version: 1
            cache: { path: cache }
            sets:
              - { name: s, url_file: urls.txt }
            """)
        let job = try JobFile.load(path: jobURL.path, environment: [:], workingDirectory: folder.path)

        let rowsBefore = try indexedPaths(cache)

        // When verify checks the job
        var reported: [String] = []
        let result = try #require(try Verifier.verify(job) { reported.append($0.line) })

        // Then the four are missing, in the order the job lists them, and the rest are fresh
        let missing = [5, Verifier.batchSize + 1, deleted, count - 1].map { "missing \(Self.url($0))" }
        #expect(reported == missing)
        #expect(result.findings.map(\.line) == missing)
        #expect(result.urls == count + 1)
        #expect(result.checked == count)
        #expect(result.fresh == count - 4)
        // and verify wrote nothing: the deleted file's row is still there for a run or fsck to drop
        #expect(try indexedPaths(cache) == rowsBefore)
    }

    @Test func aFileCutShortIsMissingAndItsRowKept() throws {
        // Given three cached URLs, the second's file cut short behind the cache's back
        let folder = try TemporaryDirectory()
        let cache = try DiskCache.open(at: folder.file("cache").path, layout: .native)
        for number in 1...3 {
            try cache.store(data: Data(ImageFixtures.baselineJPEG), as: NewEntry(url: Self.url(number), key: Self.url(number)))
        }
        try cache.flush()
        let cut = try #require(try cache.lookup(key: Self.url(2))).path
        #expect(truncate(cut, 100) == 0)
        let jobURL = try folder.write("job.yaml", """
            version: 1
            cache: { path: cache }
            sets:
              - { name: s, urls: ["\(Self.url(1))", "\(Self.url(2))", "\(Self.url(3))"] }
            """)
        let job = try JobFile.load(path: jobURL.path, environment: [:], workingDirectory: folder.path)
        let rowsBefore = try indexedPaths(cache)

        // When verify checks the job
        let result = try #require(try Verifier.verify(job) { _ in })

        // Then the cut one is missing, the others fresh, and its row is left for a run or fsck
        #expect(result.findings.map(\.line) == ["missing \(Self.url(2))"])
        #expect(result.fresh == 2)
        #expect(try indexedPaths(cache) == rowsBefore)
    }

    @Test func judgesEachURLByItsOwnSetWhenPrioritiesReorderTheSets() throws {
        // Given two cached URLs, the first asked for by a set that refreshes, listed first, and the
        // second by a high-priority set that never refreshes, which the plan takes first
        let folder = try TemporaryDirectory()
        let cache = try DiskCache.open(at: folder.file("cache").path, layout: .native)
        for number in [1, 2] {
            try cache.store(data: Data(ImageFixtures.baselineJPEG), as: NewEntry(url: Self.url(number), key: Self.url(number)))
        }
        try cache.flush()
        let jobURL = try folder.write("job.yaml", """
            version: 1
            cache: { path: cache, max_age: 7d }
            sets:
              - { name: refreshed, refresh: stale, urls: ["\(Self.url(1))"] }
              - { name: kept, priority: high, refresh: never, urls: ["\(Self.url(2))"] }
            """)
        let job = try JobFile.load(path: jobURL.path, environment: [:], workingDirectory: folder.path)

        // When verify looks eight days on, past max_age
        let result = try #require(try Verifier.verify(job, now: Date().addingTimeInterval(8 * 86_400)) { _ in })

        // Then the refreshing set's URL is stale and the other set's is kept, as a run would keep it
        #expect(result.findings.map(\.line) == ["stale \(Self.url(1))"])
        #expect(result.fresh == 1)
    }
}
