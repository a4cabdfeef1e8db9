import Foundation
import Testing
@testable import PrefetchKit

/// What `run`, `--dry-run` and `verify` decide for a cached entry at the edge of the cache's `max_age`.
@Suite struct CacheDecisionTests {
    private static let maxAge = 7 * 86_400

    /// An entry last fetched or revalidated `age` seconds before `now`, first fetched and last used a
    /// month before it.
    private static func entry(modifiedSecondsAgo age: Int, now: Date) -> CacheEntry {
        let month = now.addingTimeInterval(-30 * 86_400)
        return CacheEntry(
            url: "https://img.example.com/a.png", key: "https://img.example.com/a.png", setName: "s",
            relativePath: "aa/a.png", path: "/cache/aa/a.png", size: 300, format: .png, width: 1, height: 1,
            etag: "\"v1\"", lastModified: nil, checksum: nil, fetchedAt: month,
            modifiedAt: now.addingTimeInterval(-Double(age)), accessedAt: month, validatedAt: nil)
    }

    /// One second under max_age, exactly max_age and one second over it, since the last fetch: only
    /// the last is stale; an entry exactly max_age old is still fresh.
    @Test(arguments: [(maxAge - 1, false), (maxAge, false), (maxAge + 1, true)])
    func anEntryExactlyMaxAgeOldIsStillFresh(age: Int, stale: Bool) {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let entry = Self.entry(modifiedSecondsAgo: age, now: now)
        let maxAge = Duration.seconds(Self.maxAge)
        var options = JobOptions()
        options.refresh = .stale

        #expect(CacheDecision.isStale(modifiedAt: entry.modifiedAt, maxAge: maxAge, now: now) == stale)
        // (as verify reports it, for a set that refreshes)
        #expect(CacheDecision.isStale(modifiedAt: entry.modifiedAt, refresh: .stale, maxAge: maxAge, now: now) == stale)
        // and a run with `refresh: stale` revalidates only the stale one
        let decision = CacheDecision.decide(entry: entry, failure: nil, options: options, maxAge: maxAge, now: now)
        #expect(decision == (stale ? .revalidate(entry) : .cached(entry)))
    }
}
