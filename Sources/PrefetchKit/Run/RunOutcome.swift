/// What a finished (or stopped) run hands back to the command line.
public struct RunOutcome: Sendable {
    public var report: RunReport
    public var sets: [SetTally]
    /// Problems that are not about one URL (a URL file that could not be read to its end).
    public var problems: [String]
    /// The signal that stopped the run early, if one did.
    public var stoppedBy: Int32?
    /// Why the cache stopped taking writes part way, if it did; the run stopped there.
    public var cacheFailure: CacheError?
}
