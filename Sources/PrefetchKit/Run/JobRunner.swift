import Foundation
import Synchronization

/// `prefetchd run`: loads every job file first (one bad file and nothing is fetched), then runs
/// the jobs one after another, each into its own cache, and writes the combined report.
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
    private let current = Locked<Prefetcher?>(nil)
    private let stopSignal = Atomic<Int32>(0)

    package init(options: Options) {
        self.options = options
    }

    /// From a signal handler: stop the running job and start no further one.
    package func stop(signal: Int32) {
        stopSignal.store(signal, ordering: .releasing)
        current.withLock { $0 }?.stop(signal: signal)
    }

    package func run(jobPaths: [String]) throws(RunError) -> Result {
        let jobs: [Job]
        do {
            jobs = try JobFile.loadAll(paths: jobPaths, environment: options.environment)
        } catch {
            throw .jobFile(error)
        }
        // Checked before any cache is opened: without files to spare, the index or a body file would
        // fail to open part way, and look like a broken cache or a bad URL.
        let files = OpenFileBudget.current()
        guard files.keys > 0 else {
            throw .openFiles(limit: files.limit, needed: OpenFileBudget.needed)
        }
        let started = Date()
        var results: [RunOutcome] = []
        // A job whose cache fails does not stop the next one, which may use another disk; a signal
        // does (the jobs it kept from starting are reported with nothing done).
        for job in jobs {
            let signal = stopSignal.load(ordering: .acquiring)
            results.append(signal == 0 ? try run(job) : Self.notStarted(job, stoppedBy: signal))
        }
        var combined = Self.combine(results, jobs: jobs, started: started)
        combined.outputFailures = writeReports(combined)
        return combined
    }

    private func run(_ job: Job) throws(RunError) -> RunOutcome {
        let path = options.cacheOverride.map { URL(fileURLWithPath: $0).standardizedFileURL.path } ?? job.cache.path
        guard options.settings.dryRun && !FileManager.default.fileExists(atPath: path) else {
            return try run(job, cacheAt: path, named: path)
        }
        // A dry run against a cache that does not exist yet reads an empty stand-in, so it creates
        // nothing; the stand-in goes once the run (and its cache) has closed.
        let scratch = FileManager.default.temporaryDirectory
            .appendingPathComponent("prefetchd-dry-run-\(UUID().uuidString)").path
        defer { Self.remove(scratch) }
        return try run(job, cacheAt: scratch, named: path)
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

    private func run(_ job: Job, cacheAt folder: String, named path: String) throws(RunError) -> RunOutcome {
        let cache: DiskCache
        do {
            cache = try DiskCache.open(at: folder, layout: job.cache.layout, durable: job.cache.durable)
            try cache.refuseLinkedFolders()
        } catch {
            return Self.unopened(job, cachePath: path, failure: error)
        }
        if !options.settings.dryRun {
            cache.keepCleanReserve()
            if let warning = LimitRecord.record(job, in: cache) { options.log.warn(warning) }
        }
        let prefetcher: Prefetcher
        do {
            prefetcher = try Prefetcher(job: job, cache: cache, settings: options.settings, log: options.log)
        } catch {
            throw .engine(error)
        }
        current.withLock { $0 = prefetcher }
        defer { current.withLock { $0 = nil } }
        let signal = stopSignal.load(ordering: .acquiring)
        if signal != 0 { prefetcher.stop(signal: signal) }
        let display = ProgressDisplay(style: options.progress, snapshot: { prefetcher.progress() })
        display.start()
        defer { display.stop() }
        do {
            var outcome = try prefetcher.run()
            if let failure = outcome.cacheFailure {
                outcome.problems.append(RunError.cache(path: path, failure).description)
            }
            return outcome
        } catch {
            throw .cache(path: path, error)
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
        let report = RunReport(
            job: jobs.map(\.name).joined(separator: ", "), started: started,
            durationSeconds: Date().timeIntervalSince(started), totals: totals,
            failures: outcomes.flatMap(\.report.failures), outcome: outcome,
            warnings: outcomes.reduce(into: [:]) { all, outcome in all.merge(outcome.report.warnings, uniquingKeysWith: +) })
        // One outcome a job, in order (a job a signal kept from starting has one with nothing done).
        let setJobs = zip(jobs, outcomes).flatMap { job, outcome in Array(repeating: job.name, count: outcome.sets.count) }
        return Result(report: report, sets: outcomes.flatMap(\.sets), setJobs: setJobs, started: started,
                      problems: outcomes.flatMap(\.problems),
                      stoppedBy: stoppedBy, cacheFailed: outcomes.contains { $0.cacheFailure != nil })
    }
}
