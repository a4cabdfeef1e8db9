import Foundation

/// The state of one clean: its clock, whether it is a dry run, and where it reports items.
struct CleanPass {
    let cleaner: CacheCleaner
    let dryRun: Bool
    let now: Date
    let onItem: (CleanItem) -> Void
    /// The threads that set each batch's files aside and unlink them after it.
    let remover: FileRemoval
    /// The most files the next batch removes (see `removeBatch`).
    var batchLimit: Int
    /// Numbers the batches' journals.
    var batchNumber = 0

    var cache: DiskCache { cleaner.cache }
    var policy: CleanPolicy { cleaner.policy }
    /// Entries dated before this by `expireBy` are expired.
    var cutoff: Date { now.addingTimeInterval(-policy.maxAge) }

    /// Step 1: remove entries older than max_age by expire_by, oldest first.
    mutating func expire(into report: inout CleanReport) throws(MaintenanceError) {
        var walk = RemovalWalk(by: policy.expireBy, before: cutoff)
        if dryRun {
            while let last = try listBatch(of: walk, as: .expired, tally: &report.expired) { walk.advance(past: last) }
        } else {
            while let last = try removeBatch(of: walk, budget: nil, as: .expired, tally: &report.expired) {
                walk.advance(past: last)
            }
        }
    }

    /// Step 2: while over max_size, remove least recently used entries down to trim_to × max_size.
    mutating func trim(into report: inout CleanReport) throws(MaintenanceError) {
        var total = dryRun ? report.bytesBefore - report.expired.bytes : try cleaner.currentBytes()
        guard total > policy.maxSize else { return }
        let target = policy.lowWaterMark
        // A dry run removed nothing, so it must skip what the expire step would have taken.
        var walk = RemovalWalk(by: .access, excluding: dryRun && policy.maxAge > 0 ? (policy.expireBy, cutoff) : nil)
        while total > target {
            let before = report.trimmed.bytes
            let last = dryRun
                ? try listBatch(of: walk, budget: total - target, as: .trimmed, tally: &report.trimmed)
                : try removeBatch(of: walk, budget: total - target, as: .trimmed, tally: &report.trimmed)
            guard let last else { return }
            total -= report.trimmed.bytes - before
            walk.advance(past: last)
        }
    }

    /// A dry run's batch: tells of the next rows of `walk` (until `budget` bytes when given) as if they
    /// were removed; returns the last, or nil when the walk is done.
    private func listBatch(
        of walk: RemovalWalk, budget: Int64? = nil, as kind: CleanItem.Kind, tally: inout CleanTally
    ) throws(MaintenanceError) -> RemovalCandidate? {
        let candidates = try wrap { () throws(CacheError) in try cache.index.candidates(of: walk, limit: policy.batchFiles) }
        let listed = Self.prefix(of: candidates, freeing: budget)
        for candidate in listed { tally.add(note(kind, relativePath: candidate.relativePath, bytes: candidate.size)) }
        return listed.last
    }

    /// The leading candidates that free `budget` bytes (the last one reaching it included); all when nil.
    static func prefix(of candidates: [RemovalCandidate], freeing budget: Int64?) -> ArraySlice<RemovalCandidate> {
        guard let budget else { return candidates[...] }
        var freed: Int64 = 0
        var count = 0
        while count < candidates.count && freed < budget {
            freed += candidates[count].size
            count += 1
        }
        return candidates[..<count]
    }

    /// Tells `onItem` about an entry and returns its size.
    func note(_ kind: CleanItem.Kind, relativePath: String, bytes: Int64) -> Int64 {
        onItem(CleanItem(kind: kind, relativePath: relativePath, bytes: bytes))
        return bytes
    }
}
