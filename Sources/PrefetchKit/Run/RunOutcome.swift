/// What a finished (or stopped) run hands back to the command line.
package struct RunOutcome: Sendable {
    package var report: RunReport
    package var sets: [SetTally]
    /// Problems that are not about one URL (a URL file that could not be read to its end).
    package var problems: [String]
    /// The signal that stopped the run early, if one did.
    package var stoppedBy: Int32?
    /// Why the cache stopped taking writes part way, if it did; the run stopped there.
    package var cacheFailure: CacheError?
}
