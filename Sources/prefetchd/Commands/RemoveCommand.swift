import Foundation
import PrefetchKit

/// `prefetchd remove`: evict entries on purpose.
enum RemoveCommand {
    static let spec = CommandSpec(
        name: "remove",
        synopsis: "remove (URL ... | --set NAME | --host HOST | --job JOB.yaml | --all) [--cache DIR] [--dry-run]",
        summary: "Remove chosen entries (files, index rows, failure-ledger lines) from the cache.",
        details: """
            Takes one kind of selection. URL ...: the entries whose cache key is the URL itself, or
            whose stored URL (as `stats` lists it, secrets as ***) is exactly the URL as given; to
            remove by a job's cache_key rule, use --job. --set NAME: the entries that set stored.
            --host HOST: the entries whose URL's host is HOST (as `stats` lists hosts: lower case,
            with the port when the URL has one). --job JOB.yaml: every URL of the job, keyed as a
            run of it keys them (its cache is the job's cache.path unless --cache is given).
            --all: every entry and ledger line; the folder, its CACHEDIR.TAG, the limits runs
            recorded, the run history and the index itself stay.
            The failure-ledger lines of the same URLs go too, so the next run tries them again.
            Entries are removed as `clean` removes them (batches journalled under the index's write
            lock, the clean lock held), so it is safe beside a running `prefetchd run`, and waits up
            to 10 s for a clean. Prints what it removed (with --dry-run, what it would remove, entry
            by entry, changing nothing) on standard output. Exit 0 when something was removed
            (always for --all), 1 when nothing matched, 2 for a usage or job-file error, 3 when the
            cache is unusable, absent or locked; 130, 143, 129 after SIGINT, SIGTERM, SIGHUP (the
            cache consistent; the next clean or remove finishes what it began).
            """,
        options: [
            SharedOptions.cache,
            .value("set", "NAME", "Remove the entries the set NAME stored.", default: "none"),
            .value("host", "HOST", "Remove the entries whose URL's host (and port) is HOST.", default: "none"),
            .value("job", "JOB.yaml", "Remove every URL of the job, keyed by its sets' cache_key rules.", default: "none"),
            .flag("all", "Remove every entry and ledger line; keep the folder, marker, recorded limits and index."),
            SharedOptions.dryRun,
        ],
        examples: [
            "prefetchd remove https://cdn.example.com/banners/1.jpg --cache /var/cache/prefetchd",
            "prefetchd remove --set banners --cache /var/cache/prefetchd --dry-run",
            "prefetchd remove --host cdn.example.com:8443",
            "prefetchd remove --job jobs/catalog.yaml",
            "prefetchd remove --all --cache build/cache",
        ],
        execute: execute,
        handlesStopSignals: true
    )

    private static let usage = "usage: prefetchd remove (URL ... | --set NAME | --host HOST | --job JOB.yaml | --all) [--cache DIR] [--dry-run]"

    private static func execute(_ arguments: ParsedArguments, _ diagnostics: Diagnostics) throws {
        let chosen = [!arguments.positionals.isEmpty, arguments.value("set") != nil, arguments.value("host") != nil,
                      arguments.value("job") != nil, arguments.has("all")].filter { $0 }.count
        guard chosen == 1 else {
            throw UsageError("remove: give one selection: URLs, --set, --host, --job or --all (\(usage))")
        }
        for url in arguments.positionals {
            if let problem = URLCheck.problem(url) { throw UsageError("remove: \(problem)") }
        }
        let job = try arguments.value("job").map { try JobFile.load(path: $0, environment: ProcessInfo.processInfo.environment) }
        let folder = arguments.value("cache") == nil ? job?.cache.path : nil
        let root = folder ?? MaintenanceTarget.cacheFolder(option: arguments.value("cache"))
        let dryRun = arguments.has("dry-run")
        let signals = MaintenanceCommand.restoringReserveOnStop(root, dryRun: dryRun, command: "remove")
        defer { signals?.cancel() }
        do throws(MaintenanceError) {
            let cache = try MaintenanceTarget.open(root, for: dryRun ? .read : .clean)
            let report = try CacheCleaner(cache, policy: CleanPolicy()).evict(
                selection(arguments, job: job, cache: cache), dryRun: dryRun, log: { Log.message(.warning, $0) },
                onItem: { item in
                    if dryRun { Console.out("would remove \(item.relativePath) \(item.bytes)\n") }
                })
            if report.interrupted.entries > 0 {
                Console.error("remove: dropped \(counted(report.interrupted.entries, "row")) an interrupted removal left without files\n")
            }
            Console.out(report.summary)
            if !report.matched && !arguments.has("all") { diagnostics.report(.failure, "prefetchd remove: nothing matched") }
        } catch {
            MaintenanceCommand.fail("remove", cacheAt: root, error, into: diagnostics)
        }
    }

    private static func selection(_ arguments: ParsedArguments, job: Job?, cache: DiskCache) -> EvictionSelection {
        if let name = arguments.value("set") { return .set(name) }
        if let host = arguments.value("host") { return .host(host) }
        if arguments.has("all") { return .all }
        if let job { return .urls(keys: keys(of: job), storedURLs: [], in: cache) }
        let urls = arguments.positionals
        return .urls(keys: urls.map(URLRedaction.keyed), storedURLs: urls, in: cache)
    }

    /// Every key a run of `job` makes: each set's URLs under that set's rule.
    private static func keys(of job: Job) -> [String] {
        job.sets.flatMap { set in
            set.urls.lazy.map { set.options.cacheKey.key(for: URLRedaction.keyed($0)) }
        }
    }
}
