/// `prefetchd clean`: the nightly maintenance pass.
enum CleanCommand {
    static let spec = CommandSpec(
        name: "clean",
        synopsis: "clean [JOB.yaml | --cache DIR] [options]",
        summary: "Expire aged entries, trim the cache to its size cap, sweep temp and orphan files.",
        details: """
            Limits come from the job file's cache section unless given here. Entries older than
            max_age (by expire_by) go first; then, while the cache is over max_size, least recently
            used entries go until it is at or below trim_to x max_size. Safe beside a running
            `prefetchd run` on the same cache.
            """,
        options: [
            SharedOptions.cache,
            .value("max-age", "DUR", "Remove entries older than this (500ms, 15s, 10m, 2h, 7d; 0 = never expire)."),
            .value("max-size", "SIZE", "Trim the cache when it holds more than this (512KiB, 20MiB, 2GiB, 5GB; 0 = no cap)."),
            SharedOptions.dryRun,
        ],
        examples: [
            "prefetchd clean jobs/catalog.yaml",
            "prefetchd clean --cache /var/cache/prefetchd --max-age 7d --max-size 2GiB",
            "prefetchd clean jobs/catalog.yaml --dry-run",
        ],
        execute: { _ in throw NotAvailable(command: "clean", engine: "cache maintenance") }
    )
}
