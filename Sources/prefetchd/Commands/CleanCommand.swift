import PrefetchKit

/// `prefetchd clean`: the nightly maintenance pass.
enum CleanCommand {
    static let spec = CommandSpec(
        name: "clean",
        synopsis: "clean [JOB.yaml | --cache DIR] [options]",
        summary: "Expire aged entries, trim the cache to its size cap, sweep temp and orphan files.",
        details: """
            Limits come from the flags, else the job file's cache section, else the limits the
            cache's runs recorded (the tightest of every job's), else the defaults. Entries older than
            max_age (by expire_by) go first; then, while the cache is over max_size, least recently
            used entries go until it is at or below trim_to x max_size. Safe beside a running
            `prefetchd run` on the same cache. Sizes count bytes of file data (not allocated blocks).
            Then temp files older than an hour are deleted, and a seventh of the fan-out folders is
            checked for files without index rows (indexed, never deleted) and rows without files
            (dropped), so nightly cleans cover the whole cache weekly. The defaults: max_age 7d by
            last access, no max_size, trim_to 0.8. The first line on stderr names each limit and
            where it came from; the last lines give the figures (removed, expired, trimmed, swept,
            orphans indexed, the cache's bytes before and after), once. Standard output carries only
            the --dry-run listing.
            A second clean waits up to 10 s for the first, then exits 3. It works on a full disk:
            it first frees the 2 MiB and four inodes the cache holds back for it (tmp/clean.reserve*),
            and holds them back again when done, or when SIGINT, SIGTERM or SIGHUP stops it (exit
            130, 143, 129; the next clean finishes what it began).
            """,
        options: [
            SharedOptions.cache,
            .value("max-age", "DUR", "Remove entries older than this (500ms, 15s, 10m, 2h, 7d; 0 = never expire).",
                   default: "the job file's cache.max_age, else the runs' recorded limit, else 7d"),
            .value("max-size", "SIZE", "Trim the cache when it holds more than this (512KiB, 20MiB, 2GiB, 5GB; 0 = no cap).",
                   default: "the job file's cache.max_size, else the runs' recorded limit, else 0"),
            SharedOptions.dryRun,
            SharedOptions.logFormat("the limits first, warnings and errors; the figures in the summary"),
        ],
        examples: [
            "prefetchd clean jobs/catalog.yaml",
            "prefetchd clean --cache /var/cache/prefetchd --max-age 7d --max-size 2GiB",
            "prefetchd clean jobs/catalog.yaml --dry-run",
            "prefetchd clean --cache /var/cache/prefetchd --log-format json >>clean.log 2>&1",
        ],
        execute: execute,
        handlesStopSignals: true
    )

    private static func execute(_ arguments: ParsedArguments, _ diagnostics: Diagnostics) throws {
        let target = try MaintenanceCommand.target(arguments, command: "clean")
        let overrides = LimitOverrides(
            jobFile: target.settings.map(CacheLimits.init),
            maxAge: try MaintenanceCommand.value(arguments, "max-age", command: "clean", JobValues.duration)?.seconds,
            maxSize: try MaintenanceCommand.value(arguments, "max-size", command: "clean", JobValues.size))
        let dryRun = arguments.has("dry-run")
        let signals = MaintenanceCommand.restoringReserveOnStop(target.folder, dryRun: dryRun, command: "clean")
        defer { signals?.cancel() }
        do throws(MaintenanceError) {
            let cache = try MaintenanceTarget.open(target.folder, for: dryRun ? .read : .clean)
            let limits = try MaintenanceTarget.limits(of: cache, overrides)
            Log.say("clean: limits \(limits.summary)", or: limits.event)
            let report = try CacheCleaner(cache, policy: CleanPolicy(limits: limits.limits)).run(
                dryRun: dryRun, log: { Log.message(.warning, $0) },
                onItem: { item in
                    if dryRun { Console.out("\(dryRunVerb(item.kind)) \(item.kind.rawValue) \(item.relativePath) \(item.bytes)\n") }
                })
            Log.text(report.summary)
            diagnostics.summarize(report.summaryFields)
        } catch {
            MaintenanceCommand.fail("clean", cacheAt: target.folder, error, into: diagnostics)
        }
    }

    /// What a clean would do with an item of `kind`: orphans are indexed, not deleted, and a row
    /// whose file is already gone is only dropped.
    private static func dryRunVerb(_ kind: CleanItem.Kind) -> String {
        switch kind {
        case .orphan: "would index"
        case .missingFile, .abandonedRemoval: "would drop the row of"
        case .expired, .trimmed, .staleTemp, .removed: "would remove"
        }
    }
}
