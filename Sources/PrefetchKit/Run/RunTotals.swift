/// The totals of a run, as the report's `totals` object names them.
///
/// `requested` counts every URL occurrence in the job; the others count distinct cache keys,
/// so a URL listed by three sets is one `fetched`.
package struct RunTotals: Sendable, Equatable, Codable {
    package var requested = 0
    package var unique = 0
    /// Transferred and stored in this run.
    package var fetched = 0
    /// Already in the cache and fresh: no transfer.
    package var cached = 0
    /// Revalidated with a conditional GET that answered 304.
    package var revalidated = 0
    package var failed = 0
    /// Not attempted: failure ledger, shard, dry run.
    package var skipped = 0
    /// Body bytes received in this run.
    package var bytes: Int64 = 0

    package init() {}

    /// Distinct keys that have reached an outcome.
    package var done: Int { fetched + cached + revalidated + failed + skipped }
}
