import Foundation

/// The state of one clean: its clock, whether it is a dry run, and where it reports items.
struct CleanPass {
    let cleaner: CacheCleaner
    let dryRun: Bool
    let now: Date
    let onItem: (CleanItem) -> Void
    /// The threads that unlink each batch's files and free them after it.
    let remover: FileRemoval
    /// The thread that reads the next batch's rows while a batch is removed (`RemovalReadAhead`).
    let reading: WorkerPool
    /// The most files the next batch removes (see `removeBatch`).
    var batchLimit: Int
    /// The next batch of the step under way, its rows being read; nil when none is.
    var ahead: RemovalReadAhead?
    /// The last batch committed, for the check of the next one's read-ahead rows.
    var lastRemoved: RemovedBatch?
    /// Numbers the batches' journals.
    var batchNumber = 0
    /// In a dry run, the rows of interrupted removals already counted as dropped: a real clean drops
    /// them first, so its later sweep never sees them without files; the dry run must not count them twice.
    var droppedAhead: Set<String> = []

    var cache: DiskCache { cleaner.cache }
    var policy: CleanPolicy { cleaner.policy }
    /// Entries dated before this by `expireBy` are expired.
    var cutoff: Date { now.addingTimeInterval(-policy.maxAge) }

    /// Step 1: remove entries older than max_age by expire_by.
    mutating func expire(into report: inout CleanReport) throws(MaintenanceError) {
        let rule = RemovalRule.olderThan(cutoff, by: policy.expireBy)
        let ids = try wrap { () throws(CacheError) in try cache.index.ids(where: rule) }
        try remove(ids, while: rule, as: .expired, tally: &report.expired)
    }

    /// Step 2: while over max_size, remove the least recently used entries that bring it down to
    /// trim_to × max_size. A run may use or store entries meanwhile; the total is read again after each
    /// round, and another round takes the next least recently used while it is still over. A round that
    /// removed nothing (every row it listed was used meanwhile) ends the trim; the next clean goes on.
    mutating func trim(into report: inout CleanReport) throws(MaintenanceError) {
        // A dry run removed nothing: it takes off what the expire step and the interrupted removals
        // (the only rows without files counted so far) would have.
        var total = dryRun ? report.bytesBefore - report.expired.bytes - report.missingFiles.bytes : try cleaner.currentBytes()
        guard total > policy.maxSize else { return }
        let target = policy.lowWaterMark
        // A dry run removed nothing, so it must skip what the expire step would have taken.
        let skipping = dryRun && policy.maxAge > 0 ? RemovalRule.olderThan(cutoff, by: policy.expireBy) : nil
        while total > target {
            guard let (ids, rule) = try leastRecentlyUsed(freeing: total - target, skipping: skipping) else { return }
            let before = report.trimmed.bytes
            try remove(ids, while: rule, as: .trimmed, tally: &report.trimmed)
            guard !dryRun, report.trimmed.bytes > before else { return }
            total = try cleaner.currentBytes()
        }
    }

    /// The least recently used rows (then by id) that together free `budget` bytes (the last one reaching
    /// it included), in row order, and the rule that still takes them later; nil when there are none.
    ///
    /// The whole hours of last use that the running totals say free less than `budget` are taken by
    /// their ids alone, from the index (`RemovalRule.usedBefore(hour:)`); the walk reads rows, their sizes
    /// from the table, only from the hour that reaches it. A dry run that skips rows, or has rows of
    /// interrupted removals counted already, walks them all.
    private func leastRecentlyUsed(
        freeing budget: Int64, skipping: RemovalRule?
    ) throws(MaintenanceError) -> (ids: [Int64], rule: RemovalRule)? {
        var walk = LeastRecentlyUsedWalk(skipping: skipping)
        walk.paths = !droppedAhead.isEmpty  // only a dry run's rows of interrupted removals are told by path
        var ids: [Int64] = []
        var freed: Int64 = 0
        var rule: RemovalRule?
        var page = Self.walkPage
        if skipping == nil && droppedAhead.isEmpty, let whole = try wholeHours(freeing: budget) {
            rule = .usedBefore(hour: whole.next.hour)
            ids = try wrap { () throws(CacheError) in try cache.index.ids(where: .usedBefore(hour: whole.next.hour)) }
            freed = whole.bytes
            walk.fromHour = whole.next.hour
            page = min(page, whole.next.entries + 1)
        }
        walking: while freed < budget {
            let rows = try wrap { () throws(CacheError) in try cache.index.candidates(of: walk, limit: page) }
            for candidate in rows {
                guard freed < budget else { break walking }
                walk.cursor = candidate
                // (a dry run's rows of interrupted removals are already counted as dropped)
                guard !droppedAhead.contains(candidate.relativePath) else { continue }
                ids.append(candidate.id)
                freed += candidate.size
            }
            guard rows.count == page else { break }
            page = Self.walkPage
        }
        if let last = walk.cursor { rule = .usedNoLaterThan(last) }
        guard let rule, !ids.isEmpty else { return nil }
        return (ids.sorted(), rule)
    }

    /// The oldest hours of last use, by the running totals, whose bytes together stay under `budget`:
    /// those bytes and the hour after them; nil when there is none such, or that hour is not after the
    /// first hour of 1970 (see `LeastRecentlyUsedWalk.fromHour`).
    private func wholeHours(freeing budget: Int64) throws(MaintenanceError) -> (bytes: Int64, next: AccessHour)? {
        var bytes: Int64 = 0
        for hour in try wrap({ () throws(CacheError) in try cache.index.accessHours() }) {
            guard bytes + hour.bytes < budget else { return bytes > 0 && hour.hour >= 1 ? (bytes, hour) : nil }
            bytes += hour.bytes
        }
        return nil
    }

    /// Rows a least-recently-used walk reads at a time.
    static let walkPage = 10_000

    /// Removes the rows `ids` that `rule` still takes (a dry run lists them), a batch at a time in row
    /// order: by fan-out folder (`IndexRowID`), so a batch's deletes share the table's pages and its
    /// files lie in a run of neighbouring folders.
    /// A batch's rows are read while the batch before it is removed (`RemovalReadAhead`), so its size
    /// is the limit when that read started.
    /// A removal of a large share of the rows drops the clocks' indexes first
    /// (`CacheIndex.dropsClockIndexes`), and its last batch makes them again while that batch's files
    /// are unlinked: that batch is as large as `finalBatchFiles` says, so that the unlinks keep the other core
    /// busy while the index is made under the same lock. When it fails, the indexes are still made (the
    /// next clean makes them otherwise).
    mutating func remove(
        _ ids: [Int64], while rule: RemovalRule, as kind: CleanItem.Kind, tally: inout CleanTally
    ) throws(MaintenanceError) {
        let rows = dryRun ? 0 : try cleaner.currentEntries()
        guard !dryRun, CacheIndex.dropsClockIndexes(removing: ids.count, of: rows, batchRows: policy.batchFiles) else {
            return try removeInBatches(ids, while: rule, as: kind, tally: &tally, finalFiles: nil)
        }
        try retrying { () throws(CacheError) in try cache.index.dropClockIndexes() }
        do {
            try removeInBatches(ids, while: rule, as: kind, tally: &tally, finalFiles: finalBatchFiles(leaving: rows - ids.count))
        } catch {
            try? retrying { () throws(CacheError) in try cache.index.makeClockIndexes() }
            throw error
        }
        // (when the last batch found none of its rows still due, it made nothing)
        try retrying { () throws(CacheError) in try cache.index.makeClockIndexes() }
    }

    /// The files of the last batch of a removal without the clocks' indexes, which makes them over the
    /// `rowsLeft` rows left: as many as take about as long to unlink as that takes (`rowsIndexedPerUnlink`),
    /// no fewer than the batches before it, and no more than a batch may hold open.
    private func finalBatchFiles(leaving rowsLeft: Int) -> Int {
        min(remover.largestBatch, max(batchLimit, rowsLeft / Self.rowsIndexedPerUnlink))
    }

    /// Rows both clocks' indexes are made over in the time one file is unlinked on a tmpfs (about 1.1 µs a
    /// row and index against 6 µs a file; bench/maintain/RESULTS.md, "Nineteenth pass").
    static let rowsIndexedPerUnlink = 3

    /// `remove`'s batches. With `finalFiles`, the removal goes without the clocks' indexes and its last
    /// batch is that many files (the rest once it fits) and makes them; without, the last batch is like
    /// any other.
    private mutating func removeInBatches(
        _ ids: [Int64], while rule: RemovalRule, as kind: CleanItem.Kind, tally: inout CleanTally, finalFiles: Int?
    ) throws(MaintenanceError) {
        ahead = nil
        defer { ahead = nil }
        var next = ids.startIndex
        while next < ids.endIndex {
            let batch = ahead?.ids ?? nextBatch(of: ids[next...], finalFiles: finalFiles)
            if dryRun {
                try listBatch(batch, as: kind, tally: &tally)
            } else {
                try removeBatch(
                    batch, while: rule, as: kind, tally: &tally, following: ids[batch.endIndex...], finalFiles: finalFiles)
            }
            next = batch.endIndex
        }
    }

    /// The next batch of the ids `rest`: all of them when they fit in the final batch of `finalFiles`,
    /// else as many as a batch takes now, but no more than leaves the final batch its size.
    func nextBatch(of rest: ArraySlice<Int64>, finalFiles: Int?) -> ArraySlice<Int64> {
        let finalFiles = finalFiles ?? 0
        guard rest.count > finalFiles else { return rest }
        return rest.prefix(min(dryRun ? policy.batchFiles : batchLimit, rest.count - finalFiles))
    }

    /// A dry run's batch: tells of the rows `ids` as if they were removed.
    private func listBatch(_ ids: ArraySlice<Int64>, as kind: CleanItem.Kind, tally: inout CleanTally) throws(MaintenanceError) {
        let candidates = try wrap { () throws(CacheError) in try cache.index.candidates(ids: ids) }
            .filter { !droppedAhead.contains($0.relativePath) }  // counted as dropped already
        for candidate in candidates { tally.add(note(kind, relativePath: candidate.relativePath, bytes: candidate.size)) }
    }

    /// Tells `onItem` about an entry and returns its size.
    func note(_ kind: CleanItem.Kind, relativePath: String, bytes: Int64) -> Int64 {
        onItem(CleanItem(kind: kind, relativePath: relativePath, bytes: bytes))
        return bytes
    }
}
