import Foundation

/// What `prefetchd stats` reports, read from the index's running totals and a few index-ordered
/// queries (never every row). Bytes are bytes of file data, the measure `clean` caps.
package struct CacheStats: Sendable, Equatable {
    /// One bar of an age histogram: entries whose age is below `upperBound` seconds (nil: the rest).
    package struct AgeBucket: Sendable, Equatable {
        package var label: String
        package var upperBound: TimeInterval?
        package var entries: Int
        package var bytes: Int64
        /// The sum of the entries' ages in seconds, at the histogram's hour resolution.
        package var ageSeconds: Double = 0
    }

    package var cache: String
    package var layout: CacheLayout
    package var entries: Int
    package var bytes: Int64
    /// Of `entries` and `bytes`: the variants (`variants:`), counted apart from the originals.
    package var variants = CacheGroupTotal(name: "variants", entries: 0, bytes: 0)
    /// The limits a clean without other limits would apply, with their sources.
    package var limits: ResolvedLimits
    package var byFormat: [CacheGroupTotal]
    package var bySet: [CacheGroupTotal]
    package var byHost: [CacheGroupTotal]
    /// First-fetch time of the oldest and newest entries.
    package var oldest: Date?
    package var newest: Date?
    /// Least recent last use.
    package var leastRecentlyUsed: Date?
    /// Ages by last access and by first fetch, at hour resolution.
    package var accessAges: [AgeBucket]
    package var fetchAges: [AgeBucket]
    package var largest: [CacheEntry]
    /// Failure ledger rows by reason and by host, most frequent first (counts in `entries`).
    package var failures: [CacheGroupTotal]
    package var failuresByHost: [CacheGroupTotal] = []
    /// Newest first.
    package var runs: [RunRecord]
    /// The last clean that was not a dry run, if the index recorded one.
    package var lastClean: CleanRecord?
    package var generated: Date

    package var lastRun: RunRecord? { runs.first }
    /// The cap the report compares against; 0 = none.
    package var maxSize: Int64 { limits.limits.maxSize }

    /// The bucket edges of both histograms.
    package static let ageEdges: [(label: String, seconds: TimeInterval?)] = [
        ("< 1 h", 3_600), ("1 h - 1 d", 86_400), ("1 - 7 d", 7 * 86_400), ("7 - 30 d", 30 * 86_400),
        ("30 - 90 d", 90 * 86_400), (">= 90 d", nil),
    ]

    /// Reads the stats of `cache`, with the limits its runs recorded under `overrides`.
    package static func collect(
        from cache: DiskCache, overrides: LimitOverrides = LimitOverrides(), now: Date = Date(), largestCount: Int = 10,
        runCount: Int = 10
    ) throws(CacheError) -> CacheStats {
        // The uses runs recorded, folded into the rows: the access ages and least recent use count them.
        // On a disk that can take no write (full to the last byte, or read-only) the rows are read as
        // the last writer left them, their latest uses not counted.
        do {
            try cache.flush()
            try cache.index.foldRecentUses()
        } catch where error.isUnwritableDisk {
            cache.forgetPendingUses()
        }
        let index = cache.index
        let limits = ResolvedLimits(recorded: try index.recordedLimits(), overrides: overrides)
        let all = try index.totals("all").first
        let fetched = try index.timeRange(of: "fetched_at")
        var stats = CacheStats(
            cache: cache.root, layout: cache.layout, entries: all?.entries ?? 0, bytes: all?.bytes ?? 0, limits: limits,
            byFormat: merged(try index.totals("format").map { named($0, "unknown") }),
            bySet: merged(try index.totals("set").map { named($0, "(none)") }),
            byHost: merged(try index.totals("host").map { named($0, "(unknown)") }),
            oldest: fetched?.oldest, newest: fetched?.newest,
            leastRecentlyUsed: try index.timeRange(of: "accessed_at")?.oldest,
            accessAges: histogram(try index.totals("accessed_hour"), now: now),
            fetchAges: histogram(try index.totals("fetched_hour"), now: now),
            largest: try index.largestEntries(limit: largestCount),
            failures: try index.failureCounts(by: .reason),
            runs: try index.recentRuns(limit: runCount), generated: now)
        stats.failuresByHost = merged(try index.failureCounts(by: .host).map { named($0, "(unknown)") }) { Int64($0.entries) }
        stats.variants = try index.variantTotal()
        stats.lastClean = try index.lastClean()
        return stats
    }

    private static func named(_ group: CacheGroupTotal, _ fallback: String) -> CacheGroupTotal {
        var group = group
        if group.name.isEmpty { group.name = fallback }
        return group
    }

    /// One group for each name as the reports show it. Names the index holds apart can read the same:
    /// a set named `(none)` beside the entries of no set, or `café` spelt composed in one job and
    /// decomposed in another (one name to Swift, which the JSON object's keys are, two to SQLite).
    /// Their counts are added up, largest first again (by `size`: bytes, or for failures entries) and
    /// then by name, as the index orders them.
    static func merged(_ groups: [CacheGroupTotal], size: (CacheGroupTotal) -> Int64 = \.bytes) -> [CacheGroupTotal] {
        var merged: [CacheGroupTotal] = []
        var places: [String: Int] = [:]
        for group in groups {
            guard let place = places[group.name] else {
                places[group.name] = merged.count
                merged.append(group)
                continue
            }
            merged[place].entries += group.entries
            merged[place].bytes += group.bytes
            merged[place].frames += group.frames
        }
        guard merged.count < groups.count else { return merged }
        return merged.sorted { (size($0), $1.name) > (size($1), $0.name) }
    }

    /// Sorts hour totals into the age buckets; an hour's age is measured from its end, so an entry is
    /// never counted younger than it is by more than an hour.
    static func histogram(_ hours: [CacheGroupTotal], now: Date) -> [AgeBucket] {
        var buckets = ageEdges.map { AgeBucket(label: $0.label, upperBound: $0.seconds, entries: 0, bytes: 0) }
        for hour in hours {
            guard let number = Double(hour.name) else { continue }
            let age = max(0, now.timeIntervalSince1970 - (number + 1) * 3_600)
            let slot = buckets.firstIndex { $0.upperBound.map { age < $0 } ?? true } ?? buckets.count - 1
            buckets[slot].entries += hour.entries
            buckets[slot].bytes += hour.bytes
            buckets[slot].ageSeconds += age * Double(hour.entries)
        }
        return buckets
    }
}
