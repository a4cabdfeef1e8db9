import Foundation

/// Removing entries: one short write transaction per batch; files unlinked under the index's write
/// lock (where freeing may wait on a device, held open and freed after it; see `FileRemoval`).
///
/// Every store puts a body into place (link or rename) and writes its row while holding that lock
/// (`CacheIndex.upsert(placing:)`), so while a clean holds it the file under an entry's name is the body
/// its committed row describes; no newer body can arrive until the batch commits. A batch therefore
/// reads its rows inside the transaction and deletes them while the detaching threads write their
/// paths to its journal and then unlink the files (`FileRemoval.detach`); it commits once both are
/// done, and removes its journal. Held files' descriptors are closed, which frees their blocks, on
/// other threads while the next batch runs (a store after the commit finds the entry's name free and
/// can only put a new body there).
/// A clean killed at any point leaves at most rows whose files it unlinked (the transaction did not
/// commit), all named in a journal; the next clean drops exactly those rows. The kernel frees the
/// unlinked files it held when it closes a killed clean's descriptors.
extension CleanPass {
    /// Journals are `tmp/clean-removing-<batch>.journal`: one relative path a line.
    static let journalPrefix = "clean-removing"
    static let journalSuffix = ".journal"

    static func isJournal(_ name: String) -> Bool {
        name.hasPrefix(journalPrefix) && name.hasSuffix(journalSuffix)
    }

    /// Removes those of the rows `ids` that `rule` still takes, and starts reading the next batch's
    /// rows (the first `batchLimit` of `following`, or all of them when they make the final batch).
    /// The last batch (nothing `following`) of a removal with `finalFiles` makes the clocks' indexes
    /// after its deletes.
    ///
    /// The rows are as committed when the write transaction began (and stay so until it ends): read
    /// ahead, while the batch before was removed, when `RemovalReadAhead` says they still are, else
    /// inside the transaction. They are deleted while the journal is written and the files are
    /// unlinked (after the journal names them). `batchLimit` adapts so that a batch holds the index's
    /// write lock for about `policy.batchTime`: halved after a slower batch, doubled (up to
    /// `remover.batchFiles`) after one that took less than half of it.
    mutating func removeBatch(
        _ ids: ArraySlice<Int64>, while rule: RemovalRule, as kind: CleanItem.Kind, tally: inout CleanTally,
        following: ArraySlice<Int64>, finalFiles: Int?
    ) throws(MaintenanceError) {
        let started = Date()
        let root = cache.root
        let journal = cache.tempFolder + "/\(Self.journalPrefix)-\(batchNumber)\(Self.journalSuffix)"
        batchNumber += 1
        let readAhead = ahead
        ahead = nil
        let next = nextBatch(of: following, finalFiles: finalFiles)
        let makesClockIndexes = finalFiles != nil && following.isEmpty
        var nextAhead: RemovalReadAhead?
        var removedBatch: RemovedBatch?
        // Rows an attempt whose commit failed had unlinked the files of: they go on the next attempt
        // whatever the rule says then, if their files are gone.
        var attempted: [Int64] = []
        let removed = try retrying { () throws(CacheError) -> [RemovalCandidate] in
            var descriptors: [Int32] = []
            // Committed or not, the files this attempt unlinked are freed later (a failed attempt's
            // before the next one, when the disk is full).
            defer { remover.releaseLater(descriptors) }
            return try cache.index.inWriteTransaction { transaction throws(CacheError) -> [RemovalCandidate] in
                // A use a run committed since the rows were listed keeps its row.
                try transaction.foldRecentUses()
                let version = try transaction.version()
                var due: RemovalRows
                if attempted.isEmpty, let lastRemoved, let rows = readAhead?.rows(at: version, after: lastRemoved) {
                    due = rows
                } else {
                    due = try transaction.removalRows(ids: ids, where: rule)
                }
                if nextAhead == nil && !next.isEmpty {
                    nextAhead = RemovalReadAhead(ids: next, rule: rule, dataVersion: version.data, index: cache.index, on: reading)
                }
                let ownRows = due.rows.count
                if !attempted.isEmpty {
                    let taken = Set(due.rows.map(\.id))
                    due.append(try transaction.removalRows(ids: attempted.filter { !taken.contains($0) }[...], where: nil) {
                        Self.fileIsGone(root + "/" + $0.relativePath)
                    })
                }
                // A variant never outlives the original it was made from.
                let taken = Set(due.rows.map(\.id))
                let variants = try transaction.variantCandidates(ofOriginalsAt: due.rows.map(\.relativePath))
                    .map(\.id).filter { !taken.contains($0) }
                if !variants.isEmpty { due.append(try transaction.removalRows(ids: variants[...], where: nil)) }
                guard !due.rows.isEmpty else { return [] }
                attempted = due.rows.map(\.id)
                let rows = due.rows
                // The journal is written and the paths made on a detaching thread while the rows are deleted here.
                descriptors = try remover.detach(after: { () throws(CacheError) -> [String] in
                    try Self.writeJournal(rows.map(\.relativePath), to: journal)
                    return rows.map { root + "/" + $0.relativePath }
                }) { () throws(CacheError) in
                    try transaction.deleteEntries(due)
                    if makesClockIndexes { try transaction.makeClockIndexes() }
                }
                removedBatch = RemovedBatch(
                    changes: try transaction.version().changes, beyondItsIDs: Set(due.rows[ownRows...].map(\.id)))
                return due.rows
            }
        }
        ahead = nextAhead
        lastRemoved = removedBatch
        let elapsed = Date().timeIntervalSince(started)
        if !removed.isEmpty { unlink(journal) }
        for row in removed { tally.add(note(kind, relativePath: row.relativePath, bytes: row.size)) }
        if elapsed > policy.batchTime {
            batchLimit = max(1, batchLimit / 2)
        } else if elapsed < policy.batchTime / 2 {
            batchLimit = min(remover.batchFiles, batchLimit * 2)
        }
    }

    /// Finishes the removals a killed clean left half done, journal by journal: each entry it names
    /// whose file is gone loses its row (one whose file is there, not yet reached or stored anew, is
    /// kept); a file set aside under `FileRemoval.asideName` (by a pre-release clean) is unlinked.
    mutating func finishInterruptedRemovals(into report: inout CleanReport) throws(MaintenanceError) {
        let names = try wrap { () throws(CacheError) in try DiskCache.names(in: cache.tempFolder) }
        for name in names.sorted() where Self.isJournal(name) {
            try finishInterruptedRemoval(journal: cache.tempFolder + "/" + name, into: &report)
        }
    }

    private mutating func finishInterruptedRemoval(journal: String, into report: inout CleanReport) throws(MaintenanceError) {
        guard let contents = FileManager.default.contents(atPath: journal) else { return }
        let paths = String(decoding: contents, as: UTF8.self).split(separator: "\n").map(String.init)
        var dropped: [CacheEntry] = []
        let root = cache.root
        let isGone = { (relativePath: String) in Self.fileIsGone(root + "/" + relativePath) }
        if dryRun {
            for relativePath in paths where isGone(relativePath) {
                if let row = try wrap({ () throws(CacheError) in try cache.index.entry(relativePath: relativePath) }),
                   droppedAhead.insert(relativePath).inserted {
                    dropped.append(row)
                }
            }
        } else {
            for relativePath in paths {
                let aside = FileRemoval.asideName(root + "/" + relativePath)
                if unlink(aside) != 0 && errno != ENOENT { throw .cache(.fromErrno("remove", aside)) }
            }
            try retrying { () throws(CacheError) in
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
        if !dryRun { unlink(journal) }
    }

    static func fileIsGone(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) != 0
    }

    private static func writeJournal(_ relativePaths: [String], to path: String) throws(CacheError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .fromErrno("create", path) }
        defer { close(fd) }
        let text = Array(relativePaths.joined(separator: "\n").utf8)
        var written = 0
        while written < text.count {
            let count = text[written...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { throw .fromErrno("write", path) }
            written += count
        }
    }

    /// Runs `body`, and again while the index stays busy, for at most `policy.busyWait`; and again
    /// when the disk is full and files this clean unlinked were freed since the last try (held ones
    /// once they are closed; see `FileRemoval.settle`).
    func retrying<Result>(_ body: () throws(CacheError) -> Result) throws(MaintenanceError) -> Result {
        let deadline = Date().addingTimeInterval(policy.busyWait)
        while true {
            do {
                return try body()
            } catch let error where error.isBusy && Date() < deadline {
                // The index's own busy handler already waited; try again at once.
                continue
            } catch let error where error.isDiskFull && remover.settle() {
                continue
            } catch {
                if error.isBusy { throw .indexBusy(path: cache.index.path, waited: policy.busyWait) }
                throw .cache(error)
            }
        }
    }
}
