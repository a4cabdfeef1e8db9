/// What the command line adds to a job for one run.
public struct RunSettings: Sendable {
    /// `--concurrency`: overrides every set's `concurrency`.
    public var concurrency: Int?
    /// `--shard K/N`.
    public var shard = Shard.all
    /// `--dry-run`: decide, print, change nothing.
    public var dryRun = false
    /// The first retry waits this long, doubling per attempt (curl's 1 s); tests shorten it.
    public var retryBaseDelay: Duration = .seconds(1)
    /// No retry waits longer than this, whatever Retry-After says.
    public var retryMaxDelay: Duration = .seconds(60)
    /// Longest list of failures kept for the report; the totals count them all.
    public var reportedFailureLimit = 10_000

    public init() {}
}
