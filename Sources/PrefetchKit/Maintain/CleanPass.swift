import Foundation

/// The state of one clean: its clock, whether it is a dry run, and where it reports items.
struct CleanPass {
    let cleaner: CacheCleaner
    let dryRun: Bool
    let now: Date
    let onItem: (CleanItem) -> Void
    /// The threads that unlink each batch's files.
    let remover: FileRemoval
    /// The most files the next batch removes (see `removeBatch`).
    var batchLimit: Int

    var cache: DiskCache { cleaner.cache }
    var policy: CleanPolicy { cleaner.policy }
    /// Entries dated before this by `expireBy` are expired.
    var cutoff: Date { now.addingTimeInterval(-policy.maxAge) }

    /// Step 1: remove entries older than max_age by expire_by, oldest first.
    mutating func expire(into report: inout CleanReport) throws(MaintenanceError) {
        let clock = policy.expireBy
        let cutoff = cutoff
        var cursor: (date: Date, id: Int64)?
        while true {
            let candidates = try wrap { () throws(CacheError) in
                try cache.index.entries(by: clock, after: cursor, before: cutoff, excluding: nil, limit: policy.batchFiles)
            }
            guard !candidates.isEmpty else { return }
            let processed: Int
            if dryRun {
                candidates.forEach { report.expired.add(note(.expired, $0.entry)) }
                processed = candidates.count
            } else {
                processed = try removeBatch(candidates, as: .expired, budget: nil, tally: &report.expired) { _, row in
                    row.date(by: clock) < cutoff
                }
            }
            if processed > 0 {
                let last = candidates[processed - 1]
                cursor = (last.entry.date(by: clock), last.id)
            }
        }
    }

    /// Step 2: while over max_size, remove least recently used entries down to trim_to × max_size.
    mutating func trim(into report: inout CleanReport) throws(MaintenanceError) {
        var total = dryRun ? report.bytesBefore - report.expired.bytes : try cleaner.currentBytes()
        guard total > policy.maxSize else { return }
        let target = policy.lowWaterMark
        // A dry run removed nothing, so it must skip what the expire step would have taken.
        let excluding = dryRun && policy.maxAge > 0 ? (clock: policy.expireBy, cutoff: cutoff) : nil
        var cursor: (date: Date, id: Int64)?
        while total > target {
            let candidates = try wrap { () throws(CacheError) in
                try cache.index.entries(by: .access, after: cursor, before: nil, excluding: excluding, limit: policy.batchFiles)
            }
            guard !candidates.isEmpty else { return }
            var processed = 0
            if dryRun {
                for candidate in candidates where total > target {
                    report.trimmed.add(note(.trimmed, candidate.entry))
                    total -= candidate.entry.size
                    processed += 1
                }
            } else {
                let before = report.trimmed.bytes
                processed = try removeBatch(candidates, as: .trimmed, budget: total - target, tally: &report.trimmed) {
                    selected, row in row.accessedAt == selected.accessedAt && row.modifiedAt == selected.modifiedAt
                }
                total -= report.trimmed.bytes - before
            }
            if processed > 0 {
                let last = candidates[processed - 1]
                cursor = (last.entry.accessedAt, last.id)
            }
        }
    }

    /// Tells `onItem` about an entry and returns its size.
    func note(_ kind: CleanItem.Kind, _ entry: CacheEntry) -> Int64 {
        onItem(CleanItem(kind: kind, relativePath: entry.relativePath, bytes: entry.size))
        return entry.size
    }
}
