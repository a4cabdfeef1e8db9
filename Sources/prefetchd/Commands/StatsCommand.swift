/// `prefetchd stats`: what the cache holds, from its index.
enum StatsCommand {
    static let spec = CommandSpec(
        name: "stats",
        synopsis: "stats [JOB.yaml | --cache DIR] [options]",
        summary: "Report what the cache holds: entries, bytes, formats, sets, ages, failures, last runs.",
        details: """
            Answered from the cache index, without walking the files or touching the network.
            """,
        options: [
            SharedOptions.cache,
            .value("format", "FORMAT", "text (a readable table), json, prometheus (node_exporter textfile) or html (one self-contained page).",
                   choices: ["text", "json", "prometheus", "html"]),
            .value("output", "FILE", "Write to FILE (atomically) instead of standard output."),
        ],
        examples: [
            "prefetchd stats jobs/catalog.yaml",
            "prefetchd stats --cache /var/cache/prefetchd --format json",
            "prefetchd stats jobs/catalog.yaml --format prometheus --output /var/lib/node_exporter/prefetchd.prom",
        ],
        execute: { _ in throw NotAvailable(command: "stats", engine: "the stats report") }
    )
}
