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
    /// Failed in this run (a failed revalidation that kept the old file included).
    package var failed = 0
    /// Not attempted because the failure ledger holds a failure of the key not due again yet: failures
    /// for a CI gate, listed in the report's `failures` with `ledgered: true`.
    package var ledgered = 0
    /// Not attempted for another reason: another shard's key, a dry run, a stop.
    package var skipped = 0
    /// Body bytes received in this run.
    package var bytes: Int64 = 0

    package init() {}

    /// Distinct keys that have reached an outcome.
    package var done: Int { fetched + cached + revalidated + failed + ledgered + skipped }
}
