/// What the command line adds to a job for one run.
package struct RunSettings: Sendable {
    /// `--concurrency`: overrides every set's `concurrency`.
    package var concurrency: Int?
    /// `--shard K/N` or the environment's shard (`ShardEnvironment`); nil for the whole job.
    package var shard: Shard?
    /// `--dry-run`: decide, print, change nothing.
    package var dryRun = false
    /// The first retry waits this long, doubling per attempt (curl's 1 s); tests shorten it.
    package var retryBaseDelay: Duration = .seconds(1)
    /// No retry waits longer than this, whatever Retry-After says.
    package var retryMaxDelay: Duration = .seconds(60)
    /// Longest list of failures kept for the report; the totals count them all.
    package var reportedFailureLimit = 10_000

    package init() {}
}
