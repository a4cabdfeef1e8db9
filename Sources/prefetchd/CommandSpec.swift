import PrefetchKit

/// A subcommand: what `--help` says about it, the options it takes, and what it does.
struct CommandSpec: Sendable {
    let name: String
    /// The usage line after `prefetchd `, e.g. `check JOB.yaml [JOB.yaml ...]`.
    let synopsis: String
    /// One line for the command list.
    let summary: String
    /// The command's own help: paragraphs parted by a blank line (a single newline is only a wrap).
    let details: String
    let options: [OptionSpec]
    let examples: [String]
    /// Does the work, reporting what goes wrong into the diagnostics; throws a `UsageError` or a
    /// `JobFileError` for a command line or job file it cannot obey.
    let execute: @Sendable (ParsedArguments, Diagnostics) throws -> Void
    /// The command handles SIGINT, SIGTERM and SIGHUP itself (`SignalRelay`); for every other one they
    /// are let through to their default actions as it starts.
    var handlesStopSignals = false

    /// The option specs including the implicit `-h, --help`.
    var allOptions: [OptionSpec] {
        options + [.flag("help", short: "h", "Show this help and exit.")]
    }

    var paragraphs: [String] {
        details.components(separatedBy: "\n\n")
    }
}
