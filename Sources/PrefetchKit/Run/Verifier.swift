import Foundation

/// `prefetchd verify`: is every URL of a job cached and fresh? Reads the index only: no network,
/// no writes, not counted as a use.
package enum Verifier {
    package struct Finding: Sendable, Equatable {
        package enum Kind: String, Sendable { case missing, stale }
        package var kind: Kind
        /// Redacted.
        package var url: String
    }

    package struct Result: Sendable {
        /// Distinct keys checked.
        package var checked = 0
        package var fresh = 0
        package var findings: [Finding] = []
    }

    /// Checks `job` against the cache at `cachePath` (the job's own when nil). A cache that does not
    /// exist holds nothing: every URL is missing. `report` is called per finding, as found.
    package static func verify(_ job: Job, cachePath: String? = nil, now: Date = Date(),
                              report: (Finding) -> Void) throws(CacheError) -> Result {
        let cache = try DiskCache.openExisting(at: cachePath ?? job.cache.path, for: .read)
        var result = Result()
        var seen = Set<String>()
        for item in RunPlan(job: job) where seen.insert(item.key).inserted {
            result.checked += 1
            let finding: Finding.Kind?
            if let entry = try cache?.lookup(key: item.key) {
                let options = job.sets[item.setIndex].options
                let freshness = options.refresh == .http ? try cache?.index.freshness(of: entry) ?? .unknown : .unknown
                finding = CacheDecision.isStale(entry, refresh: options.refresh, freshness: freshness, maxAge: job.cache.maxAge,
                                                now: now) ? .stale : nil
            } else {
                finding = .missing
            }
            if let finding {
                let found = Finding(kind: finding, url: item.shownURL)
                result.findings.append(found)
                report(found)
            } else {
                result.fresh += 1
            }
        }
        return result
    }
}
