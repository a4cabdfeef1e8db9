import PrefetchKit

/// A subcommand: what `--help` says about it, the options it takes, and what it does.
struct CommandSpec: Sendable {
    let name: String
    /// The usage line after `prefetchd `, e.g. `check JOB.yaml [JOB.yaml ...]`.
    let synopsis: String
    /// One line for the command list.
    let summary: String
    /// A paragraph for the command's own help.
    let details: String
    let options: [OptionSpec]
    let examples: [String]
    /// Does the work, reporting what goes wrong into the diagnostics; throws a `UsageError` or a
    /// `JobFileError` for a command line or job file it cannot obey.
    let execute: @Sendable (ParsedArguments, Diagnostics) throws -> Void
    /// The command handles SIGINT, SIGTERM and SIGHUP itself (`SignalRelay`); for every other one they
    /// are let through to their default actions as it starts.
    var handlesStopSignals = false

    /// The option specs including the implicit `--help`.
    var allOptions: [OptionSpec] {
        options + [.flag("help", "Show this help and exit.")]
    }
}
