/// `prefetchd run`: fetch every URL of the job files into the cache.
enum RunCommand {
    static let spec = CommandSpec(
        name: "run",
        synopsis: "run JOB.yaml [JOB.yaml ...] [options]",
        summary: "Download every image of the job files into the cache, validate it, report.",
        details: """
            Streams the URLs of every set (high priority first), skips what is cached and fresh,
            fetches the rest with bounded concurrency, checks each body is a sound image, stores it
            atomically and records it in the cache index. Exit 0 when every item succeeded, 1 when
            any failed, 2 for a bad job file, 3 when the cache is unusable, 130/143 after SIGINT/SIGTERM.
            """,
        options: [
            SharedOptions.cache,
            .value("concurrency", "N", "Transfers in flight at once, 1-1024; overrides every set's concurrency."),
            .value("shard", "K/N", "Only handle the URLs whose cache key falls in shard K of N (1 <= K <= N); the rest count as skipped."),
            SharedOptions.dryRun,
            .value("report", "FILE.json", "Write the run report (totals and failures) as JSON to FILE."),
            .value("junit", "FILE.xml", "Write one JUnit test case per set, failures listed, for CI dashboards."),
            .value("progress", "WHEN", "Progress: auto (a live line on a terminal, a log line every 5 s otherwise), always (the live line even off a terminal) or never.",
                   choices: ["auto", "always", "never"]),
            .flag("quiet", "Print only errors and the final summary."),
            .flag("verbose", "Log every URL as it finishes."),
            .value("log-format", "FORMAT", "text, or json for one JSON line per URL state change on stderr.",
                   choices: ["text", "json"]),
        ],
        examples: [
            "prefetchd run jobs/catalog.yaml",
            "prefetchd run jobs/*.yaml --cache /var/cache/prefetchd --concurrency 32 --report run.json",
            "prefetchd run jobs/catalog.yaml --shard 2/4 --progress never --log-format json",
        ],
        execute: { _ in throw NotAvailable(command: "run", engine: "the run engine") }
    )
}
