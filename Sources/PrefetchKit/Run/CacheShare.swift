import Foundation

/// One cache as the jobs of a run that name it share it: the open cache, the keys one job has in
/// flight that another may ask for, and the keys of the bodies its index could not record after it
/// stopped taking writes, for every job's board to revoke.
final class CacheShare: Sendable {
    let cache: DiskCache
    private let removed = Locked<[String]>([])
    /// True when several jobs of the run use the cache: only then are keys in flight tracked across jobs.
    let isShared: Bool
    /// NSCondition guards `inFlight` (key -> the job, by group, that transfers it) and `settled`
    /// (key -> the job whose transfer of it ended); they are only touched with the condition locked.
    private nonisolated(unsafe) var inFlight: [String: Int] = [:]
    private nonisolated(unsafe) var settled: [String: Int] = [:]
    private let condition = NSCondition()

    /// `jobs`: how many jobs of the run name the cache.
    init(_ cache: DiskCache, jobs: Int = 1) {
        self.cache = cache
        isShared = jobs > 1
    }

    /// Settles the index after a failure (`CacheIndex.settleAfterFailure`) and returns every key removed
    /// so far, also those another job of the cache was told of.
    func unrecordedBodies() -> [String] {
        let now = cache.index.settleAfterFailure()
        return removed.withLock { all in
            all += now
            return all
        }
    }

    /// Job `group` is about to transfer `key`.
    func began(_ key: String, group: Int) {
        condition.lock()
        inFlight[key] = group
        condition.unlock()
    }

    /// Job `group`'s transfer of `key` has settled: stored, recorded as failed, or dropped.
    func ended(_ key: String, group: Int) {
        condition.lock()
        if inFlight[key] == group {
            inFlight[key] = nil
            settled[key] = group
        }
        condition.broadcast()
        condition.unlock()
    }

    /// Waits while another job than `group` transfers `key`, so that this one finds its outcome in
    /// the index instead of fetching it again; true when another job transferred it in this run,
    /// now or before (its row may still be in the open batch, which only the index's own connection
    /// sees).
    func awaitOthers(_ key: String, group: Int) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        var waited = false
        while let holder = inFlight[key], holder != group {
            waited = true
            condition.wait()
        }
        return waited || settled[key].map { $0 != group } ?? false
    }
}
