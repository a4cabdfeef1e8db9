/// Options several commands share, spelled once.
enum SharedOptions {
    static let cache = OptionSpec.value(
        "cache", "DIR",
        "Cache folder to use; overrides the job file's cache.path (default: .prefetchd-cache, or $PREFETCHD_CACHE_DIR).")
    /// For the commands that take no job file.
    static let cacheFolder = OptionSpec.value(
        "cache", "DIR", "Cache folder to use (default: .prefetchd-cache, or $PREFETCHD_CACHE_DIR).")
    static let dryRun = OptionSpec.flag("dry-run", "Print what would be done and change nothing.")
}
