import PrefetchKit

/// `prefetchd stats`: what the cache holds, from its index.
enum StatsCommand {
    static let spec = CommandSpec(
        name: "stats",
        synopsis: "stats [JOB.yaml | --cache DIR] [options]",
        summary: "Report what the cache holds: entries, bytes, formats, sets, ages, failures, last clean, last runs.",
        details: """
            Answered from the cache index, without walking the files or touching the network:
            entries and bytes (bytes of file data) in total, by format, set and host, age histograms
            by last access and by fetch time, the largest entries, the failure ledger by reason and
            by host, the last clean and the last runs. --output writes a file atomically (temp file, then rename; through a
            symbolic link, the file it names); a device or FIFO such as /dev/stdout, or -, is
            written into as it is. A cache on a disk that cannot be written to (read-only, or
            full) is read as its index file holds it.
            """,
        options: [
            SharedOptions.cache,
            .value("format", "FORMAT", "text (a readable table), json, prometheus (node_exporter textfile) or html (one self-contained page).",
                   default: "text", choices: ["text", "json", "prometheus", "html"]),
            .value("output", short: "o", "FILE", "Write to FILE (atomically) instead of standard output.", default: "standard output"),
        ],
        examples: [
            "prefetchd stats jobs/catalog.yaml",
            "prefetchd stats --cache /var/cache/prefetchd --format json",
            "prefetchd stats jobs/catalog.yaml --format prometheus --output /var/lib/node_exporter/prefetchd.prom",
        ],
        execute: execute
    )

    private static func execute(_ arguments: ParsedArguments, _ diagnostics: Diagnostics) throws {
        let target = try MaintenanceCommand.target(arguments, command: "stats")
        if let output = arguments.value("output"), let problem = AtomicFile.problem(writing: output) {
            throw UsageError("stats: --output \(output) cannot be written: \(problem)")
        }
        if let output = arguments.value("output"), let refusal = CacheOwnedPath.refusal(option: "output", path: output, root: target.folder) {
            throw UsageError("stats: \(refusal)")
        }
        let format = StatsFormat(rawValue: arguments.value("format") ?? "text") ?? .text
        do throws(MaintenanceError) {
            let overrides = LimitOverrides(jobFile: target.settings.map(CacheLimits.init))
            let text = format.render(try MaintenanceTarget.stats(target.folder, overrides: overrides))
            if let output = arguments.value("output") {
                try MaintenanceTarget.write(text, to: output)
            } else {
                Console.out(text)
            }
        } catch {
            MaintenanceCommand.fail("stats", cacheAt: target.folder, error, into: diagnostics)
        }
    }
}
