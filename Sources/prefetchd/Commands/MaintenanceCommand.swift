import PrefetchKit

/// What `clean` and `stats` share: the cache they work on, and their error mapping.
enum MaintenanceCommand {
    /// `--cache DIR` (or the environment default); a JOB.yaml positional is refused until the job
    /// loader lands.
    static func cacheFolder(_ arguments: ParsedArguments, command: String) throws(UsageError) -> String {
        if let extra = arguments.positionals.first {
            throw UsageError("\(command): JOB.yaml ('\(extra)') is accepted once the job loader lands; use --cache DIR with --max-age/--max-size for now")
        }
        return MaintenanceTarget.cacheFolder(option: arguments.value("cache"))
    }

    /// Prints `error` and returns its exit status: 2 for a bad value, 3 for the environment.
    static func fail(_ command: String, _ error: MaintenanceError) -> ExitStatus {
        Console.error("prefetchd \(command): \(error.description)\n")
        return error.isUsageError ? .usage : .environment
    }
}
