import Foundation

/// `prefetchd clean`: expire, trim, sweep — driven by the index (the rows due are listed from it and
/// removed in row order), in bounded batches, safe beside a running `prefetchd run` and against being
/// killed at any point.
///
/// Removal, file first: inside one short write transaction per batch (the lock every store holds while
/// it puts a body in and writes its row), the rows due are read again and listed in a journal, their
/// files unlinked (held open) and the rows deleted in one statement; after the commit the journal goes
/// and the files are closed, which frees them, while the next batch runs. A crash leaves at most rows
/// whose files are gone, all named in a journal; the next clean drops those first. No order of events
/// loses a file that still has a row, or leaves a half-written file under a final name.
package struct CacheCleaner: Sendable {
    package let cache: DiskCache
    package let policy: CleanPolicy

    package init(_ cache: DiskCache, policy: CleanPolicy) {
        self.cache = cache
        self.policy = policy
    }

    /// The lock file a clean holds; a second clean waits for it (bounded by `policy.lockWait`).
    package var lockPath: String { cache.root + "/clean.lock" }

    /// Runs one clean. A dry run takes no lock and changes nothing; `onItem` hears every removal
    /// (or would-be removal); a clean that is not a dry run is recorded for `stats` (`record`); `log` gets a warning, if there is one, for the log. Its figures are the
    /// report's alone, said once.
    package func run(
        dryRun: Bool = false, now: Date = Date(), log: (String) -> Void = { _ in },
        onItem: @escaping (CleanItem) -> Void = { _ in }
    ) throws(MaintenanceError) -> CleanReport {
        let started = Date()
        var report = CleanReport(dryRun: dryRun)
        try removing(dryRun: dryRun, now: now, log: log, onItem: onItem) { pass throws(MaintenanceError) in
            report.bytesBefore = try currentBytes()
            try pass.finishInterruptedRemovals(into: &report)
            if policy.maxAge > 0 { try pass.expire(into: &report) }
            if policy.maxSize > 0 { try pass.trim(into: &report) }
            pass.remover.settle()  // every removed file freed before the sweeps look
            try pass.sweepTemp(into: &report)
            try pass.sweepOrphans(into: &report)
        }
        // A dry run's prediction: the rows it would drop gone, the orphans it would index come in.
        report.bytesAfter = dryRun
            ? report.bytesBefore - report.expired.bytes - report.trimmed.bytes - report.missingFiles.bytes + report.orphans.bytes
            : try currentBytes()
        report.duration = Date().timeIntervalSince(started)
        if !dryRun { record(report, log: log) }
        return report
    }

    /// Records `report` for `stats`. A clean whose work is done does not fail for want of the record
    /// (a disk too full for the meta row, say): the log says so, and `stats` shows the clean before.
    private func record(_ report: CleanReport, log: (String) -> Void) {
        do throws(CacheError) {
            try cache.index.recordClean(report.record(finished: Date()))
        } catch {
            log("clean: not recorded for stats: \(error)")
        }
    }

    /// What every removal (`clean`, `remove`) runs inside: the reserve held back again at the end, no
    /// linked folders, the clean lock (not in a dry run), bulk-delete checkpoints, the file remover;
    /// after `body`, the batched writes flushed and the largest entries refilled.
    func removing(
        dryRun: Bool, now: Date, log: (String) -> Void, onItem: @escaping (CleanItem) -> Void,
        _ body: (inout CleanPass) throws(MaintenanceError) -> Void
    ) throws(MaintenanceError) {
        // Also when another clean holds the lock: the reserve was let go when the cache was opened.
        defer {
            do throws(CacheError) {
                if !dryRun { try SpaceReserve.restore(root: cache.root) }
            } catch {
                log("clean: nothing held back for the next clean on a full disk: \(error)")
            }
        }
        // Nothing is listed or removed through a link where the cache's own folder belongs.
        try wrap { () throws(CacheError) in try cache.refuseLinkedFolders() }
        var lock: CacheFolderLock?
        if !dryRun {
            switch try wrap({ () throws(CacheError) in try CacheFolderLock.acquire(lockPath, wait: policy.lockWait) }) {
            case .success(let held): lock = held
            case .failure(let held): throw .lockHeld(path: held.path, holder: held.holder, waited: policy.lockWait)
            }
        }
        defer { withExtendedLifetime(lock) {} }
        let checkpointer = dryRun ? nil : try wrap { () throws(CacheError) in try cache.index.beginBulkDeletes() }
        defer { if let checkpointer { cache.index.endBulkDeletes(checkpointer) } }
        // A clean killed while the clocks' indexes were dropped for a large removal left them so.
        if !dryRun { try wrap { () throws(CacheError) in try cache.index.makeClockIndexes() } }
        let remover = FileRemoval(
            threads: policy.unlinkThreads, batchFiles: policy.batchFiles,
            holdsFiles: policy.holdsFiles ?? MountTable.mayWaitToFree(at: cache.root))
        defer { remover.settle() }  // on a failure too: the files already unlinked are freed
        // The first batch is a quarter of the most (grown by doubling while batches stay quick), so that on
        // a slow disk or a cold index the first one does not hold the lock for long.
        var pass = CleanPass(
            cleaner: self, dryRun: dryRun, now: now, onItem: onItem, remover: remover,
            reading: WorkerPool(name: "prefetchd.clean.read", width: 1), batchLimit: max(1, remover.batchFiles / 4))
        do {
            try body(&pass)
        } catch {
            // A batch that failed part way (a file that cannot be unlinked) has unlinked some of its
            // files, and its rows are back: its journal still names them, so those rows go now, as the
            // next clean would drop them, rather than stand for files that are gone until then.
            if !dryRun {
                var dropped = CleanReport(dryRun: false)
                remover.settle()
                try? pass.finishInterruptedRemovals(into: &dropped)
            }
            throw error
        }
        try pass.retrying { () throws(CacheError) in try cache.flush() }
        if !dryRun { try pass.retrying { () throws(CacheError) in try cache.index.refillLargestIfShort() } }
    }

    /// Bytes of file data the index holds, from its running totals.
    func currentBytes() throws(MaintenanceError) -> Int64 {
        try wrap { () throws(CacheError) in try cache.index.totals("all").first?.bytes ?? 0 }
    }

    /// Entries the index holds, from its running totals.
    func currentEntries() throws(MaintenanceError) -> Int {
        try wrap { () throws(CacheError) in try cache.index.totals("all").first?.entries ?? 0 }
    }
}

/// Runs `body`, turning a cache error into a maintenance error.
func wrap<Result>(_ body: () throws(CacheError) -> Result) throws(MaintenanceError) -> Result {
    do {
        return try body()
    } catch {
        throw .cache(error)
    }
}
