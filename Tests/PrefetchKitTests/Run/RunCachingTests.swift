import Foundation
import Testing
@testable import PrefetchKit

@Suite(.timeLimit(.minutes(3)))
struct RunCachingTests {
    @Test func anImageIsFetchedOnceThenServedFromTheCache() throws {
        let harness = try RunHarness()
        let job = try harness.job(sets: [harness.set("images", ["/count/one"])])
        let key = harness.url("/count/one")

        let first = try harness.run([job])

        #expect(first.report.outcome == "completed")
        #expect(first.report.totals == .expected(requested: 1, unique: 1, fetched: 1, bytes: harness.png.count))
        #expect(first.report.failures.isEmpty)
        #expect(try harness.server.hits("one") == 1)
        try harness.expectCache(holds: [key: harness.png])

        let second = try harness.run([job])

        #expect(second.report.totals == .expected(requested: 1, unique: 1, cached: 1))
        #expect(try harness.server.hits("one") == 1)
        try harness.expectCache(holds: [key: harness.png])
    }

    @Test func whatAnotherRunDidMeanwhileIsCountedAsSuch() throws {
        let harness = try RunHarness()
        let job = try harness.job(sets: [harness.set("images", ["/count/theirs", "/status/404"])])
        let stored = harness.url("/count/theirs")
        let failed = harness.url("/status/404")
        // Given a row and a ledgered failure that another process wrote after this run started (dated
        // an hour ahead here, so that they are newer than any start)
        _ = try harness.run([harness.job("first", sets: [harness.set("images", ["/count/theirs"])])])
        let later = Date().addingTimeInterval(3600)
        let cache = try DiskCache.open(at: harness.cachePath, layout: .native)
        try cache.index.withConnection { connection throws(CacheError) in
            try connection.write("UPDATE entries SET modified_at = ?", [.date(later)])
        }
        try cache.index.recordFailure(FailureRecord(url: failed, key: failed, reason: "http_404", httpStatus: 404,
                                                    nextRetryAt: later.addingTimeInterval(86_400), lastErrorAt: later))
        try cache.flush()

        // When this run comes to those keys
        let result = try harness.run([job])

        // Then they count in its totals, as cached and as ledgered (not taken for its own earlier work,
        // which left them out of the totals and the failures)
        #expect(result.report.totals == .expected(requested: 2, unique: 2, cached: 1, ledgered: 1))
        #expect(result.report.failures.map { [$0.url, $0.reason] } == [[failed, "http_404"]])
        #expect(result.report.failures.first?.ledgered == true)
        #expect(try harness.server.hits("theirs") == 1)
        try harness.expectCache(holds: [stored: harness.png])
    }

    @Test func aFlakyServerIsRetriedUntilItAnswers() throws {
        let harness = try RunHarness()
        let path = "/flaky/\(UUID().uuidString)/1"
        let job = try harness.job(defaults: ["retries": "2"], sets: [harness.set("images", [path])])

        let result = try harness.run([job])

        #expect(result.report.totals == .expected(requested: 1, unique: 1, fetched: 1, bytes: harness.png.count))
        #expect(result.report.failures.isEmpty)
        #expect(try harness.ledger(forKey: harness.url(path)) == nil)
        try harness.expectCache(holds: [harness.url(path): harness.png])
    }

    @Test func a304KeepsTheFileAndCountsAsRevalidated() throws {
        let harness = try RunHarness()
        let key = harness.url("/etag/kept")
        try harness.run([try harness.job(sets: [harness.set("images", ["/etag/kept"])])])
        let before = try fileIdentity(harness.finalPath(forKey: key))

        let job = try harness.job(defaults: ["refresh": "always"], sets: [harness.set("images", ["/etag/kept"])])
        let result = try harness.run([job])

        #expect(result.report.totals == .expected(requested: 1, unique: 1, revalidated: 1))
        #expect(result.report.failures.isEmpty)
        #expect(try fileIdentity(harness.finalPath(forKey: key)) == before)
        let entry = try #require(try DiskCache.open(at: harness.cachePath, layout: .native).lookup(key: key))
        #expect(entry.etag == "\"kept-v1\"")
        #expect(entry.lastModified == "Wed, 21 Oct 2015 07:28:00 GMT")
        try harness.expectCache(holds: [key: harness.png])
    }

    /// With `refresh: stale`, a rerun revalidates an entry last fetched longer ago than the cache's
    /// `max_age` (7 days by default) and keeps a younger one as it is: the rerun reads both rows ahead,
    /// and only the younger one is settled from its row's summary.
    @Test func aRerunRevalidatesOnlyTheEntryOlderThanMaxAge() throws {
        let harness = try RunHarness()
        let old = harness.url("/etag/old")
        let job = try harness.job(defaults: ["refresh": "stale"], sets: [harness.set("images", ["/etag/old", "/etag/young"])])
        let first = try harness.run([job])
        #expect(first.report.totals == .expected(requested: 2, unique: 2, fetched: 2, bytes: 2 * harness.png.count))
        // Given the first entry last fetched eight days ago
        let cache = try DiskCache.open(at: harness.cachePath, layout: .native)
        try cache.index.withConnection { connection throws(CacheError) in
            try connection.write("UPDATE entries SET modified_at = ? WHERE url = ?",
                                 [.date(Date().addingTimeInterval(-8 * 86_400)), .text(old)])
        }
        try cache.flush()

        let second = try harness.run([job])

        #expect(second.report.totals == .expected(requested: 2, unique: 2, cached: 1, revalidated: 1))
        #expect(second.report.failures.isEmpty)
    }

    @Test func aChangedImageOnRevalidationReplacesTheOldFile() throws {
        let harness = try RunHarness()
        let key = harness.url("/image/changing")
        let job = try harness.job(defaults: ["refresh": "always"], sets: [harness.set("images", ["/image/changing"])])
        let first = try harness.run([job])
        #expect(first.report.totals == .expected(requested: 1, unique: 1, fetched: 1, bytes: harness.png.count))
        try harness.expectCache(holds: [key: harness.png])

        _ = try harness.server.get("/set-width/changing/2")
        let wider = try harness.server.get("/image/changing").body
        #expect(wider != harness.png)
        let second = try harness.run([job])

        #expect(second.report.totals == .expected(requested: 1, unique: 1, fetched: 1, bytes: wider.count))
        try harness.expectCache(holds: [key: wider])
        let entry = try #require(try DiskCache.open(at: harness.cachePath, layout: .native).lookup(key: key))
        #expect(entry.etag == "\"changing-w2\"")
        #expect(entry.width == 2)

        // The stored validator is the new one: the next revalidation is a 304.
        let third = try harness.run([job])
        #expect(third.report.totals == .expected(requested: 1, unique: 1, revalidated: 1))
        try harness.expectCache(holds: [key: wider])
    }

    @Test func oneURLInThreeSetsIsOneTransfer() throws {
        let harness = try RunHarness()
        let sets = [
            harness.set("hero", ["/count/shared"], ["priority: high"]),
            harness.set("catalog", ["/count/shared"]),
            harness.set("thumbs", ["/count/shared"], ["priority: low"]),
        ]
        let job = try harness.job(sets: sets)
        let junit = harness.folder.file("junit.xml").path

        let result = try harness.run([job]) { $0.junitPath = junit }

        #expect(result.report.totals == .expected(requested: 3, unique: 1, fetched: 1, bytes: harness.png.count))
        #expect(try harness.server.hits("shared") == 1)
        #expect(result.sets.map(\.name) == ["hero", "catalog", "thumbs"])
        #expect(result.sets.allSatisfy { $0.requested == 1 && $0.succeeded == 1 && $0.failed == 0 && $0.skipped == 0 })
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(xml.contains(#"<testsuite name="job" tests="3" failures="0" errors="0" skipped="0""#))
        for name in ["hero", "catalog", "thumbs"] {
            #expect(xml.contains(#"name="\#(name)" time=""#), "\(name) missing from \(xml)")
            #expect(xml.contains("<system-out>1 URL: 1 ok, 0 failed, 0 ledgered, 0 skipped</system-out>"))
        }
        #expect(!xml.contains("<failure"))
        try harness.expectCache(holds: [harness.url("/count/shared"): harness.png])
    }

    @Test func dropParamsMergesTwoURLsIntoOneEntry() throws {
        let harness = try RunHarness()
        let paths = ["/count/merged?sig=aaa", "/count/merged?sig=bbb"]
        let job = try harness.job(defaults: ["cache_key": "{ drop_params: [sig] }"], sets: [harness.set("images", paths)])

        let result = try harness.run([job])

        #expect(result.report.totals == .expected(requested: 2, unique: 1, fetched: 1, bytes: harness.png.count))
        #expect(try harness.server.hits("merged") == 1)
        #expect(result.sets.map(\.succeeded) == [2])
        try harness.expectCache(holds: [harness.url("/count/merged"): harness.png],
                                without: paths.map(harness.url))
    }

    @Test func highPrioritySetsAreFetchedFirst() throws {
        let harness = try RunHarness()
        // Written low first; one transfer at a time, so the server sees the scheduling order.
        let sets = [
            harness.set("later", ["/ordered/low1", "/ordered/low2"], ["priority: low"]),
            harness.set("first", ["/ordered/high1", "/ordered/high2"], ["priority: high"]),
            harness.set("middle", ["/ordered/normal1"]),
        ]
        let job = try harness.job(defaults: ["concurrency": "1", "per_host": "1"], sets: sets)

        let result = try harness.run([job])

        #expect(result.report.totals == .expected(requested: 5, unique: 5, fetched: 5, bytes: 5 * harness.png.count))
        #expect(try harness.server.text("/order").split(separator: "\n") == ["high1", "high2", "normal1", "low1", "low2"])
        #expect(result.sets.map(\.name) == ["first", "middle", "later"])
    }

    /// Sets with different limits share one engine, which is handed more keys than may run: each set's
    /// `concurrency` and `per_host` still hold for its own transfers.
    @Test func eachSetKeepsItsOwnLimits() throws {
        let harness = try RunHarness()
        let slow = { (group: String) in (0..<6).map { "/slow/150/\(group)?n=\($0)" } }
        let sets = [
            harness.set("single", slow("single"), ["priority: high", "concurrency: 1", "per_host: 1"]),
            harness.set("polite", slow("polite"), ["per_host: 1"]),
            harness.set("wide", slow("wide"), ["priority: low"]),
        ]
        let job = try harness.job(defaults: ["concurrency": "4", "per_host": "4"], sets: sets)

        let result = try harness.run([job])

        #expect(result.report.totals == .expected(requested: 18, unique: 18, fetched: 18, bytes: 18 * harness.png.count))
        #expect(try harness.server.text("/max-inflight/single") == "1")
        #expect(try harness.server.text("/max-inflight/polite") == "1")
        let wide = try #require(Int(try harness.server.text("/max-inflight/wide")))
        #expect((2...4).contains(wide))
    }

    /// Device and inode of a file: the same file, not a rewrite with the same bytes.
    private func fileIdentity(_ path: String) throws -> [UInt64] {
        var info = stat()
        guard stat(path, &info) == 0 else { throw CocoaError(.fileNoSuchFile) }
        return [UInt64(info.st_dev), UInt64(info.st_ino), UInt64(info.st_mtim.tv_sec), UInt64(info.st_mtim.tv_nsec)]
    }
}
