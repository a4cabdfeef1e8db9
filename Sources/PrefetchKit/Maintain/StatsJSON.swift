import Foundation

/// `--format json`: the fields of DESIGN.md plus by_host, the age histograms, largest and runs.
enum StatsJSON {
    static func render(_ stats: CacheStats) -> String {
        let groups = { (groups: [CacheGroupTotal]) -> [String: Any] in
            Dictionary(uniqueKeysWithValues: groups.map { ($0.name, ["entries": $0.entries, "bytes": $0.bytes] as [String: Any]) })
        }
        let ages = { (buckets: [CacheStats.AgeBucket]) -> [[String: Any]] in
            buckets.map { ["label": $0.label, "max_age_s": $0.upperBound.map { $0 as Any } ?? NSNull(),
                           "entries": $0.entries, "bytes": $0.bytes] }
        }
        let run = { (run: RunRecord) -> [String: Any] in
            ["job": run.job, "started": StatsSpelling.iso(run.started) ?? "", "duration_s": Milliseconds.rounded(run.duration), "totals": run.totals,
             "outcome": run.outcome ?? NSNull(), "shard": run.shard?.label ?? NSNull()]
        }
        let object: [String: Any] = [
            "format_version": PrefetchVersion.machineFormat,
            "cache": stats.cache,
            "layout": stats.layout.rawValue,
            "entries": stats.entries,
            "bytes": stats.bytes,
            "bytes_measure": "file data",
            "variants": ["entries": stats.variants.entries, "bytes": stats.variants.bytes],
            "max_size": stats.maxSize,
            "limits": limits(stats.limits),
            "by_format": Dictionary(uniqueKeysWithValues: stats.byFormat.map {
                ($0.name, ["entries": $0.entries, "bytes": $0.bytes, "frames": $0.frames] as [String: Any])
            }),
            "by_set": groups(stats.bySet),
            "by_host": groups(stats.byHost),
            "oldest": StatsSpelling.iso(stats.oldest) ?? NSNull(),
            "newest": StatsSpelling.iso(stats.newest) ?? NSNull(),
            "least_recently_used": StatsSpelling.iso(stats.leastRecentlyUsed) ?? NSNull(),
            "age_by_access": ages(stats.accessAges),
            "age_by_fetch": ages(stats.fetchAges),
            "largest": stats.largest.map {
                ["path": $0.relativePath, "url": $0.url ?? NSNull(), "bytes": $0.size, "format": $0.format?.rawValue ?? NSNull()]
                    as [String: Any]
            },
            "failures": Dictionary(uniqueKeysWithValues: stats.failures.map { ($0.name, $0.entries) }),
            "failures_by_host": Dictionary(uniqueKeysWithValues: stats.failuresByHost.map { ($0.name, $0.entries) }),
            "last_clean": stats.lastClean.map(clean) ?? NSNull(),
            "last_run": stats.lastRun.map(run) ?? NSNull(),
            "runs": stats.runs.map(run),
            "generated": StatsSpelling.iso(stats.generated) ?? "",
        ]
        // Every value above is a string, number, array, dictionary or NSNull, which always serialise.
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    private static func clean(_ clean: CleanRecord) -> [String: Any] {
        ["finished": StatsSpelling.iso(clean.finished) ?? "", "duration_s": Milliseconds.rounded(clean.duration),
         "removed_entries": clean.removedEntries, "freed_bytes": clean.freedBytes, "expired_entries": clean.expiredEntries,
         "trimmed_entries": clean.trimmedEntries, "bytes_before": clean.bytesBefore, "bytes_after": clean.bytesAfter]
    }

    /// Each limit's value (max_size in bytes, max_age in seconds) and where it came from.
    private static func limits(_ resolved: ResolvedLimits) -> [String: Any] {
        let values: [CacheLimits.Field: Any] = [
            .maxSize: resolved.limits.maxSize, .maxAge: resolved.limits.maxAge,
            .expireBy: resolved.limits.expireBy.rawValue, .trimTo: resolved.limits.trimTo,
        ]
        return Dictionary(uniqueKeysWithValues: CacheLimits.Field.allCases.map {
            ($0.rawValue, ["value": values[$0] ?? NSNull(), "source": resolved.source($0).rawValue] as [String: Any])
        })
    }
}
