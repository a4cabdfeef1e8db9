import Foundation

/// Removing entries: one short write transaction per batch, files moved aside before rows go.
extension CleanPass {
    /// The prefix and suffix of a file a clean has moved aside; the middle is its relative path with
    /// `/` spelled `+` (cache file names are hex digits, a dot and an extension, never `+`).
    static let asidePrefix = "clean-"
    static let asideSuffix = ".trash"

    /// A file newer than its row and written this recently is a body a concurrent run has just
    /// renamed into place (its row is on the way): it is put back, not removed.
    static let freshBodyWindow: TimeInterval = 60

    func asidePath(for relativePath: String) -> String {
        cache.tempFolder + "/" + Self.asidePrefix + relativePath.replacingOccurrences(of: "/", with: "+") + Self.asideSuffix
    }

    /// Removes `candidates` in order while the batch's time and `budget` (bytes to free) last, each only
    /// if `isStillDue(selected, current)` holds for its row as committed now. Returns how many candidates
    /// it looked at (at least one).
    mutating func removeBatch(
        _ candidates: [IndexedEntry], as kind: CleanItem.Kind, budget: Int64?, tally: inout CleanTally,
        isStillDue: (CacheEntry, CacheEntry) -> Bool
    ) throws(MaintenanceError) -> Int {
        var aside: [String] = []
        var removed: [CacheEntry] = []
        let freshSince = now.addingTimeInterval(-Self.freshBodyWindow).timeIntervalSince1970
        let processed = try retryingBusy { () throws(CacheError) -> Int in
            removed.removeAll()
            let started = Date()
            return try cache.index.inWriteTransaction { transaction throws(CacheError) -> Int in
                var processed = 0
                var freed: Int64 = 0
                for candidate in candidates {
                    if processed > 0 && Date().timeIntervalSince(started) >= policy.batchTime { break }
                    if let budget, freed >= budget { break }
                    processed += 1
                    guard let row = try transaction.entry(id: candidate.id),
                        row.relativePath == candidate.entry.relativePath, isStillDue(candidate.entry, row)
                    else { continue }
                    let target = asidePath(for: row.relativePath)
                    if rename(row.path, target) == 0 {
                        var info = stat()
                        guard stat(target, &info) == 0 else { throw .fromErrno("inspect", target) }
                        let modified = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
                        if modified > row.modifiedAt.timeIntervalSince1970 && modified >= freshSince {
                            // A newer body: put it back unless an even newer one took the name meanwhile.
                            if link(target, row.path) != 0 && errno != EEXIST { throw .fromErrno("restore", row.path) }
                            unlink(target)
                            continue
                        }
                        aside.append(target)
                    } else if errno != ENOENT {
                        throw .fromErrno("move aside", row.path)
                    }
                    try transaction.deleteEntry(id: candidate.id)
                    freed += row.size
                    removed.append(row)
                }
                return processed
            }
        }
        for path in aside { unlink(path) }
        for row in removed { tally.add(note(kind, row)) }
        return processed
    }

    /// Finishes the removals a killed clean left half done: each file moved aside loses its row too
    /// (unless a run has stored a new body under the name since), then the file goes.
    mutating func finishInterruptedRemovals(into report: inout CleanReport) throws(MaintenanceError) {
        let names = try wrap { () throws(CacheError) in try DiskCache.names(in: cache.tempFolder) }
        for name in names.sorted() where name.hasPrefix(Self.asidePrefix) && name.hasSuffix(Self.asideSuffix) {
            let path = cache.tempFolder + "/" + name
            let relativePath = String(name.dropFirst(Self.asidePrefix.count).dropLast(Self.asideSuffix.count))
                .replacingOccurrences(of: "+", with: "/")
            var info = stat()
            guard stat(path, &info) == 0 else { continue }
            report.sweptTemp.add(Int64(info.st_size))
            onItem(CleanItem(kind: .abandonedRemoval, relativePath: "tmp/" + name, bytes: Int64(info.st_size)))
            guard !dryRun else { continue }
            let finalPath = cache.root + "/" + relativePath
            try retryingBusy { () throws(CacheError) in
                try cache.index.inWriteTransaction { transaction throws(CacheError) in
                    var final = stat()
                    if stat(finalPath, &final) != 0, let row = try transaction.entry(relativePath: relativePath) {
                        try transaction.deleteEntry(id: row.id)
                    }
                }
            }
            unlink(path)
        }
    }

    /// Runs `body`, and again again while the index stays busy, for at most `policy.busyWait`.
    func retryingBusy<Result>(_ body: () throws(CacheError) -> Result) throws(MaintenanceError) -> Result {
        let deadline = Date().addingTimeInterval(policy.busyWait)
        while true {
            do {
                return try body()
            } catch let error where error.isBusy && Date() < deadline {
                // The index's own busy handler already waited; try again at once.
                continue
            } catch {
                if error.isBusy { throw .indexBusy(path: cache.index.path, waited: policy.busyWait) }
                throw .cache(error)
            }
        }
    }
}
