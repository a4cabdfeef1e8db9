import Foundation
import Testing
@testable import PrefetchKit

/// `refresh: http`: an entry is revalidated once the freshness its origin gave it has run out, and
/// `verify` judges it the same way; `no-store` is not stored at all.
@Suite(.timeLimit(.minutes(3)))
struct RunHTTPFreshnessTests {
    static func verify(_ harness: RunHarness, _ job: String) throws -> Verifier.Result {
        let loaded = try JobFile.load(path: job, environment: ProcessInfo.processInfo.environment)
        return try #require(try Verifier.verify(loaded) { _ in })
    }

    @Test func maxAgeOfOneSecondRevalidatesAfterItAndNotBefore() throws {
        let harness = try RunHarness()
        let path = "/fresh/one-second/cache-control/max-age%3D1"
        let job = try harness.job(defaults: ["refresh": "http", "validate": "none"], sets: [harness.set("s", [path])])

        let first = try harness.run([job])
        #expect(first.report.totals.fetched == 1)
        #expect(try Self.verify(harness, job).fresh == 1)

        // Within the second: cached, no request
        let second = try harness.run([job])
        #expect(second.report.totals == .expected(requested: 1, unique: 1, cached: 1))
        #expect(try harness.server.hits("one-second") == 1)

        // After it: stale to verify, and revalidated by a run (a 304), fresh again after that
        usleep(1_200_000)
        #expect(try Self.verify(harness, job).findings.map(\.kind) == [.stale])
        let third = try harness.run([job])
        #expect(third.report.totals == .expected(requested: 1, unique: 1, revalidated: 1))
        #expect(try harness.server.hits("one-second") == 2)
        #expect(try Self.verify(harness, job).fresh == 1)
        let fourth = try harness.run([job])
        #expect(fourth.report.totals == .expected(requested: 1, unique: 1, cached: 1))
        #expect(try harness.server.hits("one-second") == 2)
    }

    /// The same origin header under `refresh: stale` is not read: a one-second max-age changes nothing.
    @Test func otherRefreshPoliciesIgnoreTheOriginsFreshness() throws {
        let harness = try RunHarness()
        let path = "/fresh/ignored/cache-control/max-age%3D1"
        let job = try harness.job(defaults: ["refresh": "stale", "validate": "none"], sets: [harness.set("s", [path])])
        _ = try harness.run([job])
        usleep(1_200_000)
        let second = try harness.run([job])
        #expect(second.report.totals == .expected(requested: 1, unique: 1, cached: 1))
        #expect(try harness.server.hits("ignored") == 1)
    }

    @Test func noStoreIsNotCachedAtAll() throws {
        let harness = try RunHarness()
        let path = "/fresh/private/cache-control/no-store"
        let job = try harness.job(defaults: ["refresh": "http", "validate": "none"], sets: [harness.set("s", [path])])

        let first = try harness.run([job])
        #expect(first.report.totals.fetched == 1)
        try harness.expectCache(holds: [:])
        #expect(try Self.verify(harness, job).findings.map(\.kind) == [.missing])

        let second = try harness.run([job])
        #expect(second.report.totals.fetched == 1)
        #expect(try harness.server.hits("private") == 2)
    }

    /// A 304 that says `no-store` removes the copy it confirmed: the origin no longer lets it be kept.
    @Test func aNotModifiedThatSaysNoStoreRemovesTheCopy() throws {
        let harness = try RunHarness()
        let path = "/fresh/withdrawn/cache-control-on-304/no-store"
        let job = try harness.job(defaults: ["refresh": "http", "validate": "none"], sets: [harness.set("s", [path])])

        let first = try harness.run([job])
        #expect(first.report.totals.fetched == 1)
        let second = try harness.run([job])
        #expect(second.report.totals == .expected(requested: 1, unique: 1, revalidated: 1))
        try harness.expectCache(holds: [:])
        #expect(try Self.verify(harness, job).findings.map(\.kind) == [.missing])

        let third = try harness.run([job])
        #expect(third.report.totals.fetched == 1)
        #expect(try harness.server.hits("withdrawn") == 3)
    }

    /// `no-cache` may be stored but is revalidated before every use.
    @Test func noCacheIsRevalidatedEveryTime() throws {
        let harness = try RunHarness()
        let path = "/fresh/every-time/cache-control/no-cache"
        let job = try harness.job(defaults: ["refresh": "http", "validate": "none"], sets: [harness.set("s", [path])])
        _ = try harness.run([job])
        let second = try harness.run([job])
        #expect(second.report.totals == .expected(requested: 1, unique: 1, revalidated: 1))
        #expect(try harness.server.hits("every-time") == 2)
    }

    /// `Expires` two seconds after the response's `Date`: fresh before, stale after.
    @Test func expiresIsHonoured() throws {
        let harness = try RunHarness()
        let path = "/fresh/dated/expires/2"
        let job = try harness.job(defaults: ["refresh": "http", "validate": "none"], sets: [harness.set("s", [path])])
        _ = try harness.run([job])
        let second = try harness.run([job])
        #expect(second.report.totals == .expected(requested: 1, unique: 1, cached: 1))
        #expect(try Self.verify(harness, job).fresh == 1)
        usleep(2_300_000)
        #expect(try Self.verify(harness, job).findings.map(\.kind) == [.stale])
        let third = try harness.run([job])
        #expect(third.report.totals == .expected(requested: 1, unique: 1, revalidated: 1))
        #expect(try harness.server.hits("dated") == 2)
    }

    @Test func freshnessHeadersAreReadAsASharedCacheReadsThem() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        func of(_ cacheControl: String? = nil, expires: String? = nil, date: String? = nil, age: String? = nil) -> ResponseFreshness {
            var headers = ResponseHeaders()
            headers.cacheControl = cacheControl
            headers.expires = expires
            headers.date = date
            headers.age = age
            return ResponseFreshness.of(headers, receivedAt: now)
        }
        #expect(of().freshUntil == nil && !of().noStore)
        #expect(of("max-age=60").freshUntil == now.addingTimeInterval(60))
        #expect(of("public, max-age=60, s-maxage=10").freshUntil == now.addingTimeInterval(10))
        #expect(of("max-age=60", age: "15").freshUntil == now.addingTimeInterval(45))
        #expect(of("no-cache, max-age=60").freshUntil == now)
        #expect(of("No-Store").noStore)
        #expect(of(expires: "Thu, 01 Jan 2026 00:01:00 GMT", date: "Thu, 01 Jan 2026 00:00:00 GMT").freshUntil == now.addingTimeInterval(60))
        #expect(of(expires: "0").freshUntil == now)
        #expect(of("max-age=5", expires: "Thu, 01 Jan 2026 00:01:00 GMT").freshUntil == now.addingTimeInterval(5))
    }
}
