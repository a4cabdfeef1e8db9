import Foundation

/// Removing entries: one short write transaction per batch, files unlinked under the index's write lock.
///
/// Every store puts a body into place (link or rename) and writes its row while holding that lock
/// (`CacheIndex.upsert(placing:)`), so while a clean holds it the file under an entry's name is the body
/// its committed row describes; no newer body can arrive until the batch commits. A batch therefore
/// re-reads its candidates' rows, keeps those still due, writes their paths to the journal, unlinks the
/// files, deletes the rows in one statement and commits; then the journal goes. A clean killed after
/// writing the journal leaves rows whose files may be gone: the next clean drops exactly those.
extension CleanPass {
    /// The journal of the batch being removed, in `tmp/`: one relative path a line.
    static let journalName = "clean-removing.journal"

    var journalPath: String { cache.tempFolder + "/" + Self.journalName }

    /// Removes `candidates` in order, at most `batchLimit` of them and until `budget` (bytes to free)
    /// is met, each only if `isStillDue(selected, current)` holds for its row as committed now. Returns
    /// how many candidates are settled, the next batch starting after them; never 0.
    ///
    /// The rows are deleted while the files are unlinked (both inside the write transaction, after the
    /// journal names them). `batchLimit` adapts so that a batch holds the index's write lock for about
    /// `policy.batchTime`: halved after a slower batch, doubled (up to `policy.batchFiles`) after a
    /// batch that took less than half of it.
    mutating func removeBatch(
        _ candidates: [IndexedEntry], as kind: CleanItem.Kind, budget: Int64?, tally: inout CleanTally,
        isStillDue: (CacheEntry, CacheEntry) -> Bool
    ) throws(MaintenanceError) -> Int {
        var removed: [CacheEntry] = []
        let started = Date()
        let limit = batchLimit
        let processed = try retryingBusy { () throws(CacheError) -> Int in
            removed.removeAll()
            return try cache.index.inWriteTransaction { transaction throws(CacheError) -> Int in
                let current = try transaction.entries(ids: candidates.map(\.id))
                var due: [(id: Int64, row: CacheEntry)] = []
                var processed = 0
                var freed: Int64 = 0
                for candidate in candidates {
                    if let budget, freed >= budget { break }
                    if due.count >= limit { break }
                    processed += 1
                    guard let row = current[candidate.id], row.relativePath == candidate.entry.relativePath,
                        isStillDue(candidate.entry, row)
                    else { continue }
                    due.append((candidate.id, row))
                    freed += row.size
                }
                guard !due.isEmpty else { return processed }
                try writeJournal(due.map(\.row.relativePath))
                try remover.unlink(due.map(\.row.path)) { () throws(CacheError) in
                    try transaction.deleteEntries(ids: due.map(\.id))
                }
                removed = due.map(\.row)
                return processed
            }
        }
        if !removed.isEmpty { removeJournal() }
        for row in removed { tally.add(note(kind, row)) }
        let elapsed = Date().timeIntervalSince(started)
        if elapsed > policy.batchTime {
            batchLimit = max(1, batchLimit / 2)
        } else if elapsed < policy.batchTime / 2 {
            batchLimit = min(policy.batchFiles, batchLimit * 2)
        }
        return processed
    }

    /// Finishes the removals a killed clean left half done: each entry its journal names whose file is
    /// gone loses its row too (one whose file is there, unlinked or not yet, or stored anew, is kept).
    mutating func finishInterruptedRemovals(into report: inout CleanReport) throws(MaintenanceError) {
        guard let journal = FileManager.default.contents(atPath: journalPath) else { return }
        let paths = String(decoding: journal, as: UTF8.self).split(separator: "\n").map(String.init)
        var dropped: [CacheEntry] = []
        let root = cache.root
        let isGone = { (relativePath: String) -> Bool in
            var info = stat()
            return stat(root + "/" + relativePath, &info) != 0
        }
        if dryRun {
            for relativePath in paths where isGone(relativePath) {
                if let row = try wrap({ () throws(CacheError) in try cache.index.entry(relativePath: relativePath) }) {
                    dropped.append(row)
                }
            }
        } else {
            try retryingBusy { () throws(CacheError) in
                dropped.removeAll()
                try cache.index.inWriteTransaction { transaction throws(CacheError) in
                    for relativePath in paths where isGone(relativePath) {
                        guard let row = try transaction.entry(relativePath: relativePath) else { continue }
                        try transaction.deleteEntries(ids: [row.id])
                        dropped.append(row.entry)
                    }
                }
            }
        }
        for entry in dropped {
            report.missingFiles.add(entry.size)
            onItem(CleanItem(kind: .abandonedRemoval, relativePath: entry.relativePath, bytes: entry.size))
        }
        if !dryRun { removeJournal() }
    }

    private func writeJournal(_ relativePaths: [String]) throws(CacheError) {
        let fd = open(journalPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .fromErrno("create", journalPath) }
        defer { close(fd) }
        let text = Array(relativePaths.joined(separator: "\n").utf8)
        var written = 0
        while written < text.count {
            let count = text[written...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { throw .fromErrno("write", journalPath) }
            written += count
        }
    }

    private func removeJournal() {
        unlink(journalPath)
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
