import Foundation

/// The destination of a merge: the cache written into (made, with the sources' layout, when missing),
/// or for a dry run what it holds now, read through a snapshot (nothing when there is no cache yet).
final class MergeTarget: Sendable {
    let root: String
    /// The cache written into; nil for a dry run.
    let cache: DiskCache?
    /// A dry run's read-only view of an existing destination.
    private let snapshot: CacheIndex?
    /// A dry run's entries planned so far, by relative path: what a later source is weighed against.
    private let planned = Locked<[String: EntryStamp]>([:])
    /// A dry run's variants planned so far, by their original's relative path, and the originals
    /// whose variants in the destination were counted as dropped.
    private let plannedVariants = Locked<[String: [CacheEntry]]>([:])
    private let droppedOriginals = Locked<Set<String>>([])
    /// A dry run's failure-ledger rows (key -> last error) and runs (`RunRecord.identity`) planned so far.
    private let plannedFailures = Locked<[String: Date]>([:])
    private let plannedRuns = Locked<Set<String>>([])
    /// The file system the destination is on (its nearest existing folder's, when it is not there yet).
    let device: UInt64

    private init(root: String, cache: DiskCache?, snapshot: CacheIndex?) {
        self.root = root
        self.cache = cache
        self.snapshot = snapshot
        var folder = root
        var info = stat()
        while stat(folder, &info) != 0 && folder != "/" { folder = (folder as NSString).deletingLastPathComponent }
        device = UInt64(info.st_dev)
    }

    static func open(_ root: String, layout: CacheLayout, dryRun: Bool) throws(MergeError) -> MergeTarget {
        try merging { () throws(CacheError) in
            guard dryRun else { return MergeTarget(root: root, cache: try DiskCache.open(at: root, layout: layout), snapshot: nil) }
            let exists = try CacheMarker.recordedLayout(root: root) != nil
            return MergeTarget(root: root, cache: nil, snapshot: exists ? try CacheIndex.openSnapshot(root: root) : nil)
        }
    }

    /// Takes the destination's clean lock, as `clean` and `remove` do, waiting at most `wait`.
    func lock(wait: TimeInterval) throws(MergeError) -> CacheFolderLock {
        let path = root + "/clean.lock"
        switch try merging({ () throws(CacheError) in try CacheFolderLock.acquire(path, wait: wait) }) {
        case .success(let held): return held
        case .failure(let held): throw .maintenance(.lockHeld(path: held.path, holder: held.holder, waited: wait))
        }
    }

    /// The destination's row at `relativePath` as it stands now (for a dry run, as planned so far).
    func stamp(relativePath: String) throws(MergeError) -> EntryStamp? {
        if cache == nil, let stamp = planned.withLock({ $0[relativePath] }) { return stamp }
        guard let index = cache?.index ?? snapshot else { return nil }
        return try merging { () throws(CacheError) in try index.stamp(relativePath: relativePath) }
    }

    /// Removes the destination's variants of the original at `relativePath`, whose body was just
    /// replaced by another (they were made from the one replaced); returns them. A dry run removes
    /// nothing and returns those it would.
    func dropVariants(ofReplaced relativePath: String) throws(MergeError) -> [CacheEntry] {
        if let cache {
            return try merging { () throws(CacheError) in
                let variants = try cache.index.variants(ofOriginalAt: relativePath)
                for variant in variants { try cache.remove(relativePath: variant.relativePath) }
                return variants
            }
        }
        let planned = plannedVariants.withLock { $0.removeValue(forKey: relativePath) ?? [] }
        guard let snapshot, droppedOriginals.withLock({ $0.insert(relativePath).inserted }) else { return planned }
        return try merging { () throws(CacheError) in try snapshot.variants(ofOriginalAt: relativePath) } + planned
    }

    /// A dry run's note that `entry` would be taken.
    func plan(_ entry: CacheEntry) {
        planned.withLock { $0[entry.relativePath] = EntryStamp(modifiedAt: entry.modifiedAt, checksum: entry.checksum) }
        if let original = entry.variantOf { plannedVariants.withLock { $0[original, default: []].append(entry) } }
    }

    /// Takes the failure-ledger rows newer than the destination's for their keys and the runs it has
    /// not recorded; returns how many of each it took (a dry run: would take, as the sources before
    /// this one left it).
    func take(failures: [FailureRecord], runs: [RunRecord]) throws(MergeError) -> (failures: Int, runs: Int) {
        if let cache {
            return try merging { () throws(CacheError) in
                (try cache.index.mergeFailures(failures), try cache.index.mergeRuns(runs))
            }
        }
        return try merging { () throws(CacheError) in
            var takenFailures = 0
            for record in failures {
                var known = plannedFailures.withLock { $0[record.key] }
                if known == nil { known = try snapshot?.failure(forKey: record.key)?.lastErrorAt }
                guard record.supersedes(known) else { continue }
                plannedFailures.withLock { $0[record.key] = record.lastErrorAt }
                takenFailures += 1
            }
            let recorded = Set(try snapshot?.recentRuns(limit: Int.max).map(\.identity) ?? [])
            let takenRuns = plannedRuns.withLock { planned in
                runs.filter { !recorded.contains($0.identity) && planned.insert($0.identity).inserted }.count
            }
            return (takenFailures, takenRuns)
        }
    }

    /// Commits what the last batch holds.
    func finish() throws(MergeError) {
        try merging { () throws(CacheError) in try cache?.flush() }
    }
}
