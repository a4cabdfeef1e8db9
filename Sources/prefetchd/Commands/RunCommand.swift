import Dispatch
import Foundation
import PrefetchKit

/// `prefetchd run`: fetch every URL of the job files into the cache.
enum RunCommand {
    static let spec = CommandSpec(
        name: "run",
        synopsis: "run JOB.yaml [JOB.yaml ...] [options]",
        summary: "Download every image of the job files into the cache, validate it, report.",
        details: """
            Streams the URLs of every set (high priority first), skips what is cached and fresh,
            fetches the rest with bounded concurrency, checks each body is a sound image, stores it
            atomically and records it in the cache index. Several job files are one queue (every
            high set of every file first), each into its own cache; the report adds them up. A set's
            rate_limit and a host's (hosts:) hold requests and bytes a second; a 429 or 503 halves
            its host's rate for the rest of the run and its Retry-After holds the host; the report's
            rate_wait_s is the time waited on them. Exit 0 when every item succeeded,
            1 when any failed or was skipped because the failure ledger holds a failure of it (not
            when skipped by --shard, --dry-run or a stop), or a URL file could not be read to its end, 2 for a bad job file
            (nothing fetched), 3 when the cache is unusable or the open-file limit (ulimit -n) is
            under 66 (a cache that cannot be opened, or stops taking writes part way, say on a full
            disk, stops its job there; later job files still run and the report is written),
            130/143/129 after SIGINT/SIGTERM/SIGHUP (in-flight transfers aborted, report written).
            A reader of its output that goes away (a closed pipe) does not stop it.
            """,
        options: [
            SharedOptions.cache,
            .value("concurrency", short: "c", "N", "Transfers in flight at once, 1-1024; overrides every set's concurrency (fewer, with a note, when the open-file limit cannot hold them).",
                   default: "each set's concurrency, 16 unless the job file says"),
            .value("shard", "K/N", "Only handle the URLs whose cache key falls in shard K of N (1 <= K <= N); the rest count as skipped. Without it, JOB_COMPLETION_INDEX (0-based, as a Kubernetes Indexed Job sets it) with PREFETCHD_SHARDS=N selects shard index+1 of N; both given must agree.",
                   default: "1/1, every URL"),
            .flag("dry-run", short: "n", "Print each URL that would be fetched, revalidated or skipped; fetch and change nothing."),
            .value("report", short: "o", "FILE.json", "Write the run report (totals and failures) as JSON to FILE.", default: "no report file"),
            .value("junit", "FILE.xml", "Write one JUnit test case per set, failures listed, for CI dashboards.", default: "no JUnit file"),
            .value("progress", "WHEN", "Progress: auto (a live line on a terminal, fitted to its width, a log line every 5 s otherwise), always (the live line even off a terminal, 80 columns or $COLUMNS) or never. With --log-format json, a progress event every 5 s unless never.",
                   default: "auto", choices: ["auto", "always", "never"]),
            .flag("quiet", short: "q", "Print only failures (a line or JSON event each) and the final summary; no progress."),
            .flag("verbose", short: "v", "Log every URL as it settles (fetched, cached, revalidated, skipped, retried)."),
            SharedOptions.logFormat("an event a URL state change, progress events instead of the progress line, warnings and errors"),
        ],
        examples: [
            "prefetchd run jobs/catalog.yaml",
            "prefetchd run jobs/*.yaml --cache /var/cache/prefetchd --concurrency 32 --report run.json",
            "prefetchd run jobs/catalog.yaml --shard 2/4 --progress never --log-format json",
        ],
        execute: execute,
        handlesStopSignals: true
    )

    private static func execute(_ arguments: ParsedArguments, _ diagnostics: Diagnostics) throws {
        guard !arguments.positionals.isEmpty else {
            throw UsageError("run: no job file given (usage: prefetchd run JOB.yaml [JOB.yaml ...])")
        }
        if arguments.has("quiet") && arguments.has("verbose") {
            throw UsageError("run: --quiet and --verbose cannot be used together")
        }
        var options = JobRunner.Options()
        options.environment = ProcessInfo.processInfo.environment
        options.cacheOverride = arguments.value("cache")
        if let text = arguments.value("concurrency") {
            guard let value = Int(text), (1...1024).contains(value) else {
                throw UsageError("run: --concurrency must be a whole number from 1 to 1024, not `\(text)`")
            }
            options.settings.concurrency = value
        }
        do {
            options.settings.shard = try ShardEnvironment.resolve(option: arguments.value("shard"), environment: options.environment)
        } catch {
            throw UsageError("run: \(error)")
        }
        options.settings.dryRun = arguments.has("dry-run")
        options.reportPath = arguments.value("report")
        options.junitPath = arguments.value("junit")
        // Checked before anything is fetched, not found out after the whole run.
        for (option, path) in [("report", options.reportPath), ("junit", options.junitPath)] {
            if let path, let problem = AtomicFile.problem(writing: path) {
                throw UsageError("run: --\(option) \(path) cannot be written: \(problem)")
            }
        }
        if let report = options.reportPath, let junit = options.junitPath, ResolvedPath.of(report) == ResolvedPath.of(junit) {
            throw UsageError("run: --report and --junit name the same file, \(report); give each a file of its own")
        }
        let verbosity: RunLog.Verbosity = arguments.has("quiet") ? .quiet : arguments.has("verbose") ? .verbose : .normal
        let json = Log.format == .json
        options.log = RunLog(format: Log.format, verbosity: verbosity)
        options.progress = options.settings.dryRun ? .off
            : ProgressDisplay.style(for: arguments.value("progress") ?? "auto", quiet: verbosity == .quiet, json: json)

        let runner = JobRunner(options: options)
        let signals = SignalRelay { runner.stop(signal: $0) }
        defer { signals.cancel() }
        let result: JobRunner.Result
        do {
            result = try runner.run(jobPaths: arguments.positionals)
        } catch {
            if case .jobFile = error {
                diagnostics.report(.usage, "\(error)")
            } else if case .outputInsideCache = error {
                diagnostics.report(.usage, "prefetchd run: \(error)")
            } else {
                diagnostics.report(.environment, "prefetchd run: \(error)")
            }
            return
        }
        for problem in result.problems {
            diagnostics.report(.failure, "prefetchd run: \(problem)")
        }
        // A key the ledger kept from being tried is as missing as one that failed now: a gate trusts it.
        if result.report.totals.failed + result.report.totals.ledgered > 0 { diagnostics.report(.failure) }
        Log.text("prefetchd: \(result.report.summary)")
        diagnostics.summarize(RunSummary(result.report), outcome: result.report.outcome)
        for failure in result.outputFailures {
            diagnostics.report(.environment, "prefetchd run: \(failure)")
        }
        if let signal = result.stoppedBy {
            // The stop outranks a cache failure: the run's outcome names the stop.
            diagnostics.stopped(by: signal)
        } else if result.cacheFailed {
            diagnostics.report(.environment)
        }
    }
}
