import Foundation
import Synchronization

/// `prefetchd run`: loads every job file first (one bad file and nothing is fetched), then runs the
/// jobs as one queue (`RunQueue`: every high set of every file first), each into its own cache, and
/// writes the combined report.
package final class JobRunner: Sendable {
    package struct Options: Sendable {
        package var cacheOverride: String?
        package var settings = RunSettings()
        package var log = RunLog()
        package var progress = ProgressDisplay.Style.off
        package var reportPath: String?
        package var junitPath: String?
        package var environment: [String: String] = [:]

        package init() {}
    }

    /// What the command line needs to pick an exit status and print a summary.
    package struct Result: Sendable {
        package var report: RunReport
        package var sets: [SetTally]
        /// The name of the job each of `sets` belongs to, in the same order.
        package var setJobs: [String]
        /// When the run started (the report's `started`, unrounded).
        package var started: Date
        package var problems: [String]
        package var stoppedBy: Int32?
        /// A job's cache stopped taking writes part way (exit 3); later jobs still ran.
        package var cacheFailed: Bool
        /// Why `--report` or `--junit` could not be written, one line each (exit 3); the other was
        /// still written.
        package var outputFailures: [String] = []
    }

    private let options: Options
    private let current = Locked<[Prefetcher]>([])
    private let stopSignal = Atomic<Int32>(0)

    package init(options: Options) {
        self.options = options
    }

    /// From a signal handler: stop the running job and start no further one.
    package func stop(signal: Int32) {
        stopSignal.store(signal, ordering: .releasing)
        for job in current.withLock({ $0 }) { job.stop(signal: signal) }
    }

    package func run(jobPaths: [String]) throws(RunError) -> Result {
        let jobs: [Job]
        do {
            jobs = try JobFile.loadAll(paths: jobPaths, environment: options.environment)
        } catch {
            throw .jobFile(error)
        }
        try checkOutputsOutsideCaches(jobs)
        // Checked before any cache is opened: without files to spare, the index or a body file would
        // fail to open part way, and look like a broken cache or a bad URL.
        let files = OpenFileBudget.current()
        guard files.keys > 0 else {
            throw .openFiles(limit: files.limit, needed: OpenFileBudget.needed)
        }
        let started = Date()
        var scratches: [String] = []
        defer { scratches.forEach(Self.remove) }
        let results = try run(jobs, scratches: &scratches)
        var combined = Self.combine(results.outcomes, jobs: jobs, started: started)
        combined.report.rateWaitSeconds = results.rateWait
        combined.report.shard = ShardLabel(options.settings.shard)
        combined.outputFailures = writeReports(combined)
        return combined
    }

    /// The jobs' outcomes, in order, and the time the run as a whole waited on rate limits.
    private struct Outcomes {
        var outcomes: [RunOutcome]
        var rateWait: Double
    }

    /// Runs every job through one queue on one engine. A job's cache is opened when the queue first
    /// reaches one of its sets (one `DiskCache` for the jobs that name the same folder). A job whose
    /// cache fails does not stop the others, which may use another disk; a signal stops them all (a
    /// job it kept from being reached is reported with nothing done). `scratches` gets the stand-in
    /// folders of dry runs, removed once the caches have closed.
    private func run(_ jobs: [Job], scratches: inout [String]) throws(RunError) -> Outcomes {
        let shared: RunQueue.Shared
        do {
            shared = try RunQueue.Shared(jobs: jobs, settings: options.settings, log: options.log) {
                configuration throws(FetchError) in try FetchEngine(configuration: configuration)
            }
        } catch {
            throw .engine(error)
        }
        defer { shared.engine.shutdown() }
        var outcomes = [RunOutcome?](repeating: nil, count: jobs.count)
        var opened: [(index: Int, prefetcher: Prefetcher, path: String)] = []
        var shares: [String: CacheShare] = [:]
        var beginFailure: RunError?
        defer { current.withLock { $0 = [] } }
        let total = jobs.reduce(0) { $0 + $1.urlCount }
        let display = ProgressDisplay(style: options.progress, snapshot: { [current] in
            current.withLock { $0 }.map { $0.progress() }.reduce(ProgressDisplay.Snapshot(done: 0, total: total, failed: 0, bytes: 0)) {
                ProgressDisplay.Snapshot(done: $0.done + $1.done, total: total, failed: $0.failed + $1.failed,
                                         bytes: $0.bytes + $1.bytes, inFlight: $0.inFlight + $1.inFlight)
            }
        })
        display.start()
        defer { display.stop() }

        let sourceFailures = RunQueue.schedule(jobs: jobs, gate: shared.gate, stopped: {
            beginFailure != nil || stopSignal.load(ordering: .acquiring) != 0
        }) { index -> Prefetcher? in
            let job = jobs[index]
            let path = cachePath(of: job)
            let share: CacheShare
            if let known = shares[path] {
                // As when the job runs alone: a cache keeps the layout it was made with.
                guard known.cache.layout == job.cache.layout else {
                    let mismatch = CacheError.layoutMismatch(path: known.cache.root, existing: known.cache.layout, requested: job.cache.layout)
                    outcomes[index] = Self.unopened(job, cachePath: path, failure: mismatch)
                    return nil
                }
                share = known
            } else {
                var folder = path
                if options.settings.dryRun && !FileManager.default.fileExists(atPath: path) {
                    // A dry run against a cache that does not exist yet reads an empty stand-in, so it
                    // creates nothing; the stand-in goes once the run (and its cache) has closed.
                    folder = FileManager.default.temporaryDirectory
                        .appendingPathComponent("prefetchd-dry-run-\(UUID().uuidString)").path
                    scratches.append(folder)
                }
                do throws(CacheError) {
                    // Durable when any job naming the cache asks for it: its stores are then never weaker.
                    let durable = jobs.contains { cachePath(of: $0) == path && $0.cache.durable }
                    let cache = try DiskCache.open(at: folder, layout: job.cache.layout, durable: durable)
                    try cache.refuseLinkedFolders()
                    if !options.settings.dryRun { cache.keepCleanReserve() }
                    share = CacheShare(cache, jobs: jobs.filter { cachePath(of: $0) == path }.count)
                } catch {
                    outcomes[index] = Self.unopened(job, cachePath: path, failure: error)
                    return nil
                }
                shares[path] = share
            }
            if !options.settings.dryRun, let warning = LimitRecord.record(job, in: share.cache) { options.log.warn(warning) }
            let prefetcher = Prefetcher(job: job, group: index, share: share, settings: options.settings, log: options.log,
                                        shared: shared, ownsEngine: false)
            do throws(CacheError) {
                try prefetcher.begin()
            } catch {
                // As when a lone job's cache cannot be read at the start: the run stops.
                beginFailure = .cache(path: path, error)
                for running in current.withLock({ $0 }) { running.stop(signal: SIGTERM) }
                return nil
            }
            current.withLock { $0.append(prefetcher) }
            // A signal that came while the cache opened stops this job too.
            let signal = stopSignal.load(ordering: .acquiring)
            if signal != 0 { prefetcher.stop(signal: signal) }
            opened.append((index, prefetcher, path))
            return prefetcher
        }
        for entry in opened {
            var outcome = entry.prefetcher.end(sourceFailure: sourceFailures[entry.index])
            if let failure = outcome.cacheFailure {
                outcome.problems.append(RunError.cache(path: entry.path, failure).description)
            }
            outcomes[entry.index] = outcome
        }
        if let beginFailure { throw beginFailure }
        let signal = stopSignal.load(ordering: .acquiring)
        return Outcomes(outcomes: zip(jobs, outcomes).map { job, outcome in
            outcome ?? Self.notStarted(job, stoppedBy: signal == 0 ? SIGTERM : signal)
        }, rateWait: Self.milliseconds(shared.engine.rateWait(group: nil)))
    }

    /// A report written where a cache keeps its own files would replace the index or a cached body, or
    /// be swept by the next clean: refused before anything is opened.
    private func checkOutputsOutsideCaches(_ jobs: [Job]) throws(RunError) {
        for job in jobs {
            let cache = cachePath(of: job)
            for (option, path) in [("report", options.reportPath), ("junit", options.junitPath)] {
                if let path, let refusal = CacheOwnedPath.refusal(option: option, path: path, root: cache) {
                    throw .outputInsideCache(refusal)
                }
            }
        }
    }

    /// The folder of the job's cache: `--cache`, else its `cache.path`.
    private func cachePath(of job: Job) -> String {
        options.cacheOverride.map { URL(fileURLWithPath: $0).standardizedFileURL.path } ?? job.cache.path
    }

    /// A duration in seconds, to the millisecond, as the report gives it.
    static func milliseconds(_ duration: Duration) -> Double {
        (duration / .milliseconds(1)).rounded() / 1000
    }

    /// Removes a folder, trying again while files in it still come and go (SQLite closing its
    /// write-ahead log on another thread), for at most a second.
    private static func remove(_ folder: String) {
        for _ in 0..<50 {
            if (try? FileManager.default.removeItem(atPath: folder)) != nil
                || !FileManager.default.fileExists(atPath: folder) {
                return
            }
            usleep(20_000)
        }
    }

    /// The outcome of a job whose cache could not be opened: nothing done, every URL requested, and
    /// the reason; the run goes on with its other jobs.
    private static func unopened(_ job: Job, cachePath: String, failure: CacheError) -> RunOutcome {
        notDone(job, stoppedBy: nil, failure: failure, problems: [RunError.cache(path: cachePath, failure).description])
    }

    /// The outcome of a job that a signal kept from starting: nothing done, every URL requested.
    private static func notStarted(_ job: Job, stoppedBy signal: Int32) -> RunOutcome {
        notDone(job, stoppedBy: signal, failure: nil, problems: [])
    }

    private static func notDone(_ job: Job, stoppedBy signal: Int32?, failure: CacheError?, problems: [String]) -> RunOutcome {
        let plan = RunPlan(job: job)
        var totals = RunTotals()
        totals.requested = plan.count
        let report = RunReport(job: job.name, started: Date(), durationSeconds: 0, totals: totals, failures: [],
                               outcome: RunReport.outcome(stoppedBy: signal, cutShort: true))
        let sets = plan.sets.map { set in
            var tally = SetTally(name: set.name)
            tally.requested = set.urls.count
            return tally
        }
        return RunOutcome(report: report, sets: sets, problems: problems, stoppedBy: signal, cacheFailure: failure)
    }

    /// Writes the report and the JUnit file, each whatever became of the other; why each that could
    /// not be written failed.
    static func signalName(_ number: Int32) -> String {
        switch number {
        case SIGINT: "SIGINT"
        case SIGTERM: "SIGTERM"
        case SIGHUP: "SIGHUP"
        default: "signal \(number)"
        }
    }

    private func writeReports(_ result: Result) -> [String] {
        var files: [(path: String, contents: () -> Data)] = []
        if let path = options.reportPath {
            files.append((path, { result.report.json() }))
        }
        if let path = options.junitPath {
            let stopped = result.stoppedBy.map { ["the run was \(result.report.outcome) by \(Self.signalName($0))"] } ?? []
            files.append((path, {
                let suite = JUnitReport.Suite(job: result.report.job, started: result.started,
                                              durationSeconds: result.report.durationSeconds, hostname: localHostName())
                return Data(JUnitReport.xml(suite, sets: Array(zip(result.setJobs, result.sets)),
                                            problems: result.problems + stopped).utf8)
            }))
        }
        return files.compactMap { file -> String? in
            do {
                try AtomicFile.write(file.contents(), to: file.path)
                return nil
            } catch {
                return RunError.output(path: file.path, message: "\(error)").description
            }
        }
    }

    /// One report for all jobs: totals added up, failures listed together, names joined.
    static func combine(_ outcomes: [RunOutcome], jobs: [Job], started: Date) -> Result {
        var totals = RunTotals()
        for report in outcomes.map(\.report) {
            totals.requested += report.totals.requested
            totals.unique += report.totals.unique
            totals.fetched += report.totals.fetched
            totals.cached += report.totals.cached
            totals.revalidated += report.totals.revalidated
            totals.failed += report.totals.failed
            totals.ledgered += report.totals.ledgered
            totals.skipped += report.totals.skipped
            totals.bytes += report.totals.bytes
        }
        let stoppedBy = outcomes.compactMap(\.stoppedBy).first
        let outcome = RunReport.outcome(stoppedBy: stoppedBy, cutShort: outcomes.contains { !$0.problems.isEmpty })
        // A run of one job lasts what the job's record in its cache says (the figure stats shows);
        // several jobs' run, from the start of the first to the end of the last.
        let duration = outcomes.count == 1 ? outcomes[0].report.durationSeconds : Date().timeIntervalSince(started)
        let report = RunReport(
            job: jobs.map(\.name).joined(separator: ", "), started: started,
            durationSeconds: duration, totals: totals,
            failures: outcomes.flatMap(\.report.failures), outcome: outcome,
            warnings: outcomes.reduce(into: [:]) { all, outcome in all.merge(outcome.report.warnings, uniquingKeysWith: +) })
        // One outcome a job, in order (a job a signal kept from starting has one with nothing done).
        let setJobs = zip(jobs, outcomes).flatMap { job, outcome in Array(repeating: job.name, count: outcome.sets.count) }
        return Result(report: report, sets: outcomes.flatMap(\.sets), setJobs: setJobs, started: started,
                      problems: outcomes.flatMap(\.problems),
                      stoppedBy: stoppedBy, cacheFailed: outcomes.contains { $0.cacheFailure != nil })
    }
}
