/// Options several commands share, spelled once.
enum SharedOptions {
    static let cache = OptionSpec.value(
        "cache", short: "C", "DIR", "Cache folder to use; overrides the job file's cache.path.",
        default: "the job file's cache.path, else $PREFETCHD_CACHE_DIR, else .prefetchd-cache")
    /// For the commands that take no job file.
    static let cacheFolder = OptionSpec.value(
        "cache", short: "C", "DIR", "Cache folder to use.", default: "$PREFETCHD_CACHE_DIR, else .prefetchd-cache")
    static let dryRun = OptionSpec.flag("dry-run", short: "n", "Print what would be done and change nothing.")
    /// For the commands that write a log on standard error (`run`, `clean`, `verify`).
    static func logFormat(_ what: String) -> OptionSpec {
        .value("log-format", "FORMAT",
               "text (each line stamped with the UTC time when stderr is not a terminal), or json: one JSON object a "
                   + "line on stderr (\(what)), each with event, time and format_version, the last a summary event with "
                   + "the totals, outcome and exit_status.",
               default: "text", choices: ["text", "json"])
    }
}
