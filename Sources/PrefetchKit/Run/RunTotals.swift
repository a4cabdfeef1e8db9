/// The totals of a run, as the report's `totals` object names them.
///
/// `requested` counts every URL occurrence in the job; the others count distinct cache keys,
/// so a URL listed by three sets is one `fetched`.
public struct RunTotals: Sendable, Equatable, Codable {
    public var requested = 0
    public var unique = 0
    /// Transferred and stored in this run.
    public var fetched = 0
    /// Already in the cache and fresh: no transfer.
    public var cached = 0
    /// Revalidated with a conditional GET that answered 304.
    public var revalidated = 0
    public var failed = 0
    /// Not attempted: failure ledger, shard, dry run.
    public var skipped = 0
    /// Body bytes received in this run.
    public var bytes: Int64 = 0

    public init() {}

    /// Distinct keys that have reached an outcome.
    public var done: Int { fetched + cached + revalidated + failed + skipped }
}
