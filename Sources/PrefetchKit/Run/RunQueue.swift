import Foundation

/// One queue over every job file of a run: each priority of every job before the next priority
/// (so every high set of every file comes first), file order within a priority, the jobs' own set
/// order within a file. The jobs share one engine (so a host's rate limit holds all of them) and one
/// gate (so `concurrency` bounds the run, not each file); each keeps its own cache, board, ledger,
/// report section and outcome.
enum RunQueue {
    /// What the jobs of one run share.
    struct Shared: Sendable {
        let engine: any Transport
        let gate: SlotGate
        /// The engine's events turned into log lines; nil when the log shows none of them.
        let events: TransferEvents?

        /// The engine is as wide as the widest set of any job (or `--concurrency`), and carries the
        /// `hosts:` rate limits of every job, the strictest where several name one host.
        init(jobs: [Job], settings: RunSettings, log: RunLog,
             transport: (EngineConfiguration) throws(FetchError) -> any Transport) throws(FetchError) {
            let sets = jobs.flatMap(\.sets)
            let events = log.showsTransferEvents ? TransferEvents(log: log) : nil
            self.events = events
            let concurrency = settings.concurrency ?? sets.map(\.options.concurrency).max() ?? 1
            let perHost = min(concurrency, sets.map(\.options.perHost).max() ?? 1)
            var configuration = EngineConfiguration(concurrency: concurrency, perHost: perHost)
            if let events { configuration.onEvent = { events.handle($0) } }
            for job in jobs { configuration.hostRateLimits.merge(job.hostRateRules) }
            engine = try transport(configuration)
            let files = OpenFileBudget.current()
            let held = max(1, files.keys)
            if held < concurrency {
                log.warn("at most \(held) transfer\(held == 1 ? "" : "s") at once: the open-file limit (ulimit -n) is \(files.limit)")
            }
            gate = SlotGate(limit: concurrency, heldAtMost: held)
        }
    }

    /// Hands every job its items in the run's one order, until each is done or stopping, then waits
    /// for every transfer to settle. `open` makes a job's prefetcher when the queue first reaches one
    /// of its sets (nil: its cache could not be opened, and it is passed over); once `stopped` is true
    /// no further job is reached. Returns, for each job, the first URL source of it that could not be
    /// read to its end.
    static func schedule(jobs: [Job], gate: SlotGate, stopped: () -> Bool, open: (Int) -> Prefetcher?) -> [JobDiagnostic?] {
        var failures = [JobDiagnostic?](repeating: nil, count: jobs.count)
        var prefetchers = [Prefetcher??](repeating: nil, count: jobs.count)
        passes: for priority in Priority.allCases.sorted() {
            for (index, job) in jobs.enumerated() where job.sets.contains(where: { $0.priority == priority }) {
                if stopped() { break passes }
                if prefetchers[index] == nil { prefetchers[index] = .some(open(index)) }
                guard let prefetcher = prefetchers[index]! else { continue }
                var iterator = prefetcher.plan.makeIterator(priority: priority)
                prefetcher.scheduleAll(&iterator)
                if failures[index] == nil { failures[index] = iterator.failure }
            }
        }
        gate.drain()
        return failures
    }
}
