import Foundation

/// Removing entries: one short write transaction per batch, files unlinked under the index's write lock.
///
/// Every store puts a body into place (link or rename) and writes its row while holding that lock
/// (`CacheIndex.upsert(placing:)`), so while a clean holds it the file under an entry's name is the body
/// its committed row describes; no newer body can arrive until the batch commits. A batch therefore
/// picks its rows inside the transaction, writes their paths to the journal, unlinks the files, deletes
/// the rows in one statement and commits; then the journal goes. A clean killed after writing the
/// journal leaves rows whose files may be gone: the next clean drops exactly those.
extension CleanPass {
    /// The journal of the batch being removed, in `tmp/`: one relative path a line.
    static let journalName = "clean-removing.journal"

    var journalPath: String { cache.tempFolder + "/" + Self.journalName }

    /// Removes the next rows of `walk`, at most `batchLimit` of them and until `budget` (bytes to free)
    /// is met; returns the last removed, or nil when the walk is done.
    ///
    /// The rows are picked inside the write transaction (so they are as committed, and stay so until it
    /// ends), and deleted while the files are unlinked (after the journal names them). `batchLimit`
    /// adapts so that a batch holds the index's write lock for about `policy.batchTime`: halved after a
    /// slower batch, doubled (up to `policy.batchFiles`) after one that took less than half of it.
    mutating func removeBatch(
        of walk: RemovalWalk, budget: Int64?, as kind: CleanItem.Kind, tally: inout CleanTally
    ) throws(MaintenanceError) -> RemovalCandidate? {
        let started = Date()
        let limit = batchLimit
        let root = cache.root
        let removed = try retryingBusy { () throws(CacheError) -> [RemovalCandidate] in
            try cache.index.inWriteTransaction { transaction throws(CacheError) -> [RemovalCandidate] in
                let due = Array(Self.prefix(of: try transaction.candidates(of: walk, limit: limit), freeing: budget))
                guard !due.isEmpty else { return [] }
                try writeJournal(due.map(\.relativePath))
                try remover.unlink(due.map { root + "/" + $0.relativePath }) { () throws(CacheError) in
                    try transaction.deleteEntries(ids: due.map(\.id))
                }
                return due
            }
        }
        guard let last = removed.last else { return nil }
        removeJournal()
        for row in removed { tally.add(note(kind, relativePath: row.relativePath, bytes: row.size)) }
        let elapsed = Date().timeIntervalSince(started)
        if elapsed > policy.batchTime {
            batchLimit = max(1, batchLimit / 2)
        } else if elapsed < policy.batchTime / 2 {
            batchLimit = min(policy.batchFiles, batchLimit * 2)
        }
        return last
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
            report.missingFiles.add(note(.abandonedRemoval, relativePath: entry.relativePath, bytes: entry.size))
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
