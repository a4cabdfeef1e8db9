/// The exit statuses of the README's "Exit codes"; `Diagnostics` picks one from what a command reported.
package enum ExitStatus: Int32 {
    /// Everything asked for was done.
    case success = 0
    /// Finished, but something failed (an item, a missing entry, an fsck problem, not cached).
    case failures = 1
    /// Usage or job-file error: nothing fetched, nothing changed.
    case usage = 2
    /// Environment error: cache unusable, disk full, lock held too long.
    case environment = 3
    /// Stopped by SIGHUP (the terminal or session went away) after cleaning up.
    case hungUp = 129
    /// Stopped by SIGINT after cleaning up.
    case interrupted = 130
    /// Stopped by SIGTERM after cleaning up.
    case terminated = 143
}
