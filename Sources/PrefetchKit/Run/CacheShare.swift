/// One cache as the jobs of a run that name it share it: the open cache, and the keys of the bodies
/// its index could not record after it stopped taking writes, for every job's board to revoke.
final class CacheShare: Sendable {
    let cache: DiskCache
    private let removed = Locked<[String]>([])

    init(_ cache: DiskCache) {
        self.cache = cache
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
}
