import Foundation

/// `prefetchd remove`: entries removed on purpose (SDImageCache's `removeImageForKey` and
/// `clearDisk`), by the same batches, journal, lock and file removal as a clean's expiry.
extension CacheCleaner {
    /// Removes what `selection` takes: its failure-ledger lines first (while the entries they may be
    /// found by are still there), then its entries in a clean's batches, each checked again against
    /// the selection inside its write transaction. A dry run takes no lock and changes nothing;
    /// `onItem` hears every entry removed (or that would be). Rows an interrupted clean or remove
    /// left without files are dropped first, as a clean drops them.
    package func evict(
        _ selection: EvictionSelection, dryRun: Bool = false, log: (String) -> Void = { _ in },
        onItem: @escaping (CleanItem) -> Void = { _ in }
    ) throws(MaintenanceError) -> EvictionReport {
        var report = EvictionReport(dryRun: dryRun)
        try removing(dryRun: dryRun, now: Date(), log: log, onItem: onItem) { pass throws(MaintenanceError) in
            var interrupted = CleanReport(dryRun: dryRun)
            try pass.finishInterruptedRemovals(into: &interrupted)
            report.interrupted = interrupted.missingFiles
            report.ledgerLines = try pass.retrying { () throws(CacheError) in
                dryRun ? try cache.index.failureCount(where: selection.ledger) : try cache.index.removeFailures(where: selection.ledger)
            }
            let ids = try wrap { () throws(CacheError) in try cache.index.ids(where: selection.entries) }
            try pass.remove(ids, while: selection.entries, as: .removed, tally: &report.removed)
        }
        return report
    }
}
