import Foundation
import Testing
@testable import PrefetchKit

/// A run resumes a body cut at 90 %, in the same run (its retry) and in the next (a partial kept in
/// the cache's `tmp/`), judged by the bytes the fixture server says it sent; the stored file is the
/// whole image, decode-checked, and partials are never entries.
@Suite(.timeLimit(.minutes(3)))
struct RunResumeTests {
    static func image(_ harness: RunHarness, _ name: String, version: Int = 1) throws -> Data {
        try harness.server.get("/resumable-image/\(name)/512/\(version)").body
    }

    static func path(_ name: String, _ mode: String = "range") -> String {
        "/resumable/\(name)/512/90/\(mode)"
    }

    static func partials(_ harness: RunHarness) throws -> [PartialRecord] {
        try #require(try DiskCache.openExisting(at: harness.cachePath, for: .read)).index.partials()
    }

    static func resumeFiles(_ harness: RunHarness) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: harness.cachePath + "/tmp")) ?? []).filter { $0.hasSuffix(".resume") }
    }

    static func fsck(_ harness: RunHarness) throws -> [CacheProblem] {
        let cache = try #require(try DiskCache.openExisting(at: harness.cachePath, for: .read))
        return try CacheChecker(cache, staleTempAge: 0).check()
    }

    @Test func aBodyCutAt90PercentIsResumedByItsRetry() throws {
        let harness = try RunHarness()
        let whole = try Self.image(harness, "same-run")
        let job = try harness.job(defaults: ["retries": "1"], sets: [harness.set("big", [Self.path("same-run")])])

        let result = try harness.run([job])

        #expect(result.report.totals == .expected(requested: 1, unique: 1, fetched: 1, bytes: whole.count))
        let sent = try ResumeTests.sent(harness.server, "same-run")
        #expect(sent.map(\.status) == [200, 206], "\(sent)")
        #expect(sent[0].bytes >= whole.count * 85 / 100)
        #expect(sent[1].bytes <= whole.count * 15 / 100)
        try harness.expectCache(holds: [harness.url(Self.path("same-run")): whole])
        #expect(try Self.partials(harness).isEmpty)
        #expect(try Self.fsck(harness).isEmpty)
    }

    @Test func aBodyCutAt90PercentIsResumedByTheNextRun() throws {
        let harness = try RunHarness()
        let whole = try Self.image(harness, "next-run")
        let job = try harness.job(sets: [harness.set("big", [Self.path("next-run")])])

        // Given a run whose one try is cut at 90 %
        let first = try harness.run([job])
        #expect(first.report.totals.failed == 1)
        #expect(first.report.failures.first?.reason == "truncated_body")
        let kept = try #require(try Self.partials(harness).first)
        let sentFirst = try ResumeTests.sent(harness.server, "next-run")
        #expect(kept.size == Int64(sentFirst[0].bytes))
        #expect(kept.etag == "\"next-run-v1\"")
        #expect(kept.relativePath.hasPrefix("tmp/") && kept.relativePath.hasSuffix(".resume"))
        #expect(Self.resumeFiles(harness).count == 1)
        // the partial is no entry: no row, no stats, nothing for fsck to find
        let cache = try #require(try DiskCache.openExisting(at: harness.cachePath, for: .read))
        #expect(try cache.index.entryCount() == 0)
        #expect(try CacheStats.collect(from: cache).entries == 0)
        #expect(try Self.fsck(harness).isEmpty)

        // When the next run comes to the URL
        let second = try harness.run([job])

        // Then it asks for the rest, and the server sends at most 15 % of the body again
        #expect(second.report.totals == .expected(requested: 1, unique: 1, fetched: 1, bytes: whole.count))
        let sent = try ResumeTests.sent(harness.server, "next-run")
        #expect(sent.map(\.status) == [200, 206], "\(sent)")
        #expect(sent[1].range == "bytes=\(sent[0].bytes)-")
        #expect(sent[1].ifRange == "\"next-run-v1\"")
        #expect(sent[1].bytes <= whole.count * 15 / 100)
        try harness.expectCache(holds: [harness.url(Self.path("next-run")): whole])
        #expect(try Self.partials(harness).isEmpty)
        #expect(Self.resumeFiles(harness).isEmpty)
        #expect(try Self.fsck(harness).isEmpty)
    }

    /// A partial whose bytes went bad on disk (or changed under an unchanged ETag) makes a spliced body
    /// that fails its check: not held against the URL, whose next run fetches it whole.
    @Test func aSplicedBodyThatFailsItsCheckIsFetchedWholeByTheNextRun() throws {
        let harness = try RunHarness()
        let whole = try Self.image(harness, "rotted")
        let job = try harness.job(defaults: ["validate": "decode"], sets: [harness.set("big", [Self.path("rotted")])])
        _ = try harness.run([job])
        let kept = try #require(try Self.partials(harness).first)
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: harness.cachePath + "/" + kept.relativePath))
        try handle.seek(toOffset: UInt64(kept.size / 2))
        try handle.write(contentsOf: Data(repeating: 0x58, count: 16))
        try handle.close()

        // When the next run splices the rest onto it, the check fails; the partial goes
        let second = try harness.run([job])
        #expect(second.report.totals.failed == 1 && second.report.failures.first?.reason == "corrupt", "\(second.report.failures)")
        #expect(try Self.partials(harness).isEmpty)
        #expect(Self.resumeFiles(harness).isEmpty)

        // Then the run after it is not kept away by the ledger, and asks for the whole body
        let third = try harness.run([job])
        #expect(third.report.totals.fetched == 1 && third.report.totals.ledgered == 0, "\(third.report.totals)")
        let sent = try ResumeTests.sent(harness.server, "rotted")
        #expect(sent.map(\.status) == [200, 206, 200] && sent[2].range == "-", "\(sent)")
        try harness.expectCache(holds: [harness.url(Self.path("rotted")): whole])
    }

    /// Across runs too: a 200 in answer to the Range, or an ETag that changed (If-Range fails), starts
    /// the body again and the stored file is the image the server has now.
    @Test(arguments: [("ignore-range", 1), ("new-etag", 2)])
    func theNextRunStartsAgainWhenTheServerDoesNotContinue(mode: String, version: Int) throws {
        let harness = try RunHarness()
        let name = "again-\(mode)"
        let whole = try Self.image(harness, name, version: version)
        let job = try harness.job(sets: [harness.set("big", [Self.path(name, mode)])])
        _ = try harness.run([job])
        #expect(try Self.partials(harness).count == 1)

        let second = try harness.run([job])

        #expect(second.report.totals.fetched == 1, "\(second.report.failures)")
        let sent = try ResumeTests.sent(harness.server, name)
        #expect(sent.map(\.status) == [200, 200], "\(sent)")
        #expect(sent[1].range == "bytes=\(sent[0].bytes)-")
        try harness.expectCache(holds: [harness.url(Self.path(name, mode)): whole])
        #expect(try Self.partials(harness).isEmpty)
        #expect(Self.resumeFiles(harness).isEmpty)
        #expect(try Self.fsck(harness).isEmpty)
    }

    /// `resume_max_age: 0` keeps nothing for the next run.
    @Test func aSetWithNoResumeMaxAgeKeepsNoPartial() throws {
        let harness = try RunHarness()
        let job = try harness.job(defaults: ["resume_max_age": "0"], sets: [harness.set("big", [Self.path("none-kept")])])
        let first = try harness.run([job])
        #expect(first.report.totals.failed == 1)
        #expect(try Self.partials(harness).isEmpty)
        #expect(Self.resumeFiles(harness).isEmpty)
    }

    /// `clean` removes a partial older than its set's resume_max_age, file and row, and keeps a young one.
    @Test func cleanRemovesAPartialPastItsResumeMaxAgeAndKeepsAYoungOne() throws {
        let harness = try RunHarness()
        let job = try harness.job(sets: [
            harness.set("short", [Self.path("short-lived")], ["resume_max_age: 30s"]),
            harness.set("long", [Self.path("long-lived")], ["resume_max_age: 1d"]),
        ])
        _ = try harness.run([job])
        let kept = try Self.partials(harness)
        #expect(Set(kept.map(\.url)) == [harness.url(Self.path("short-lived")), harness.url(Self.path("long-lived"))])
        let young = try #require(kept.first { $0.url.contains("long-lived") })

        // Within the 30 s, both stay
        let cache = try #require(try DiskCache.openExisting(at: harness.cachePath, for: .write))
        let early = try CacheCleaner(cache, policy: testPolicy()).run(now: Date())
        #expect(early.sweptTemp.entries == 0)
        #expect(try cache.index.partials().count == 2)

        // After them, the short-lived one goes
        let late = try CacheCleaner(cache, policy: testPolicy()).run(now: Date().addingTimeInterval(60))
        #expect(late.sweptTemp.entries == 1)
        #expect(try cache.index.partials() == [young])
        #expect(Self.resumeFiles(harness) == [String(young.relativePath.dropFirst("tmp/".count))])
        #expect(try CacheChecker(cache, staleTempAge: 0).check().isEmpty)
    }

    /// fsck finds a partial's row without its file, and a partial file without its row, and repairs both.
    @Test func fsckFindsPartialsThatAreNotWhatTheirRowsSay() throws {
        let harness = try RunHarness()
        let job = try harness.job(sets: [harness.set("big", [Self.path("lost"), Self.path("stray")])])
        _ = try harness.run([job])
        let cache = try #require(try DiskCache.openExisting(at: harness.cachePath, for: .write))
        let records = try cache.index.partials()
        try #require(records.count == 2)
        let lost = try #require(records.first { $0.url.contains("lost") })
        let stray = try #require(records.first { $0.url.contains("stray") })
        #expect(unlink(cache.root + "/" + lost.relativePath) == 0)
        try cache.index.deletePartial(forKey: stray.key)
        try cache.flush()

        let checker = CacheChecker(cache, staleTempAge: 0)
        let problems = try checker.check()

        #expect(problems.count == 2, "\(problems)")
        #expect(problems.contains(.lostPartial(relativePath: lost.relativePath)), "\(problems)")
        #expect(problems.contains(.staleTemp(relativePath: stray.relativePath)), "\(problems)")
        try checker.repair(problems)
        #expect(try checker.check().isEmpty)
        #expect(try cache.index.partials().isEmpty)
        #expect(Self.resumeFiles(harness).isEmpty)
    }
}
