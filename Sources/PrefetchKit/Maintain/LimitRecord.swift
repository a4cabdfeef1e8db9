/// What a run does with its job's limits: records them in the cache, where `clean --cache DIR` and
/// `stats --cache DIR` find them, and says when they disagree with what earlier runs recorded.
package enum LimitRecord {
    /// Records `job`'s limits in `cache`; returns a line for the run's log when they differ from
    /// those recorded before, or when they could not be recorded.
    package static func record(_ job: Job, in cache: DiskCache) -> String? {
        let limits = CacheLimits(job.cache)
        do throws(CacheError) {
            let before = try cache.index.recordedLimits()
            try cache.index.recordLimits(limits, job: job.name)
            try cache.flush()
            guard let before, let after = try cache.index.recordedLimits() else { return nil }
            let differing = limits.differences(from: before)
            guard !differing.isEmpty else { return nil }
            let spelled = { (limits: CacheLimits) in differing.map { "\($0.rawValue) \(limits.spelled($0))" }.joined(separator: ", ") }
            return "cache \(cache.root): job \(job.name) has \(spelled(limits)) where earlier runs recorded \(spelled(before)); "
                + "a clean without a job file now applies \(spelled(after))"
        } catch {
            return "cache \(cache.root): the job's limits could not be recorded for clean --cache: \(error)"
        }
    }
}
