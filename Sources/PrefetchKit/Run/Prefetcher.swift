import Foundation
import Synchronization

/// Runs one job: streams its plan, decides each key from the index, fetches what is missing with
/// bounded concurrency, validates and stores off the network thread, and counts every outcome.
///
/// Threads: the caller's thread schedules (index lookups, waiting for a slot); the engine's thread
/// moves bytes; finished transfers are validated and stored on a small queue as wide as the cores.
///
/// Alone (`run()`), it has an engine and a gate of its own. In a run of several job files
/// (`RunQueue`) the jobs share one engine and one gate, and the queue hands each its items in one
/// order over all of them: `begin()`, `scheduleAll(_:)` for each of its stretches of items, then
/// `end(sourceFailure:)`.
package final class Prefetcher: Sendable {
    let job: Job
    let plan: RunPlan
    let cache: DiskCache
    /// What the jobs of a run on this same cache share.
    let share: CacheShare
    /// The job's place in the run: the engine's group for its requests.
    let group: Int
    /// False when the engine is the run's, shut down by whoever made it.
    let ownsEngine: Bool
    let settings: RunSettings
    let log: RunLog
    let engine: any Transport
    /// The engine's events turned into log lines; nil when the log shows none of them.
    let events: TransferEvents?
    let gate: SlotGate
    /// Counts, keys in flight and settled keys. Cost-bounded: once it has forgotten settled keys, a
    /// key is taken for one of them when the index has it stored or failed since `started` (which
    /// could also be a concurrent run's work).
    let board: RunBoard
    let workers: WorkerPool
    /// Read the next batches of index rows while the scheduling thread decides the current one.
    let readAheadThreads = WorkerPool(name: "prefetchd.readahead", width: Prefetcher.readAheadDepth)
    let requests: [FetchRequest]
    let validators: [ImageValidator]
    /// Per set, what a JPEG's decode check keeps of its pixels for the set's variants (nil: nothing).
    let variantBoxes: [VariantMaker.Box?]
    /// Per set, whether a body's check and store are light enough (no decode, no variants) to run on
    /// the thread that delivers its transfer's result, instead of being handed to the workers.
    let storesWhereDelivered: [Bool]
    let started = Date()
    /// False while the failure ledger is known to be empty (it was at the start and this run has
    /// recorded nothing), so a fresh URL costs no ledger lookup and a stored one no ledger delete.
    /// Rows another process adds meanwhile are not seen: a URL it failed is then fetched once more.
    let ledgerInUse = Atomic<Bool>(true)
    /// Whether the cache held partial bodies kept by an earlier run as this one started: only then is
    /// a key to fetch looked up among them. One this run keeps is for the next.
    let partialsInUse = Atomic<Bool>(false)
    /// The signal that asked the run to stop, or 0.
    let stopSignal = Atomic<Int32>(0)
    /// True once the run is stopping, for a signal or a cache failure: no new transfers, and the
    /// ones it aborts count as skipped.
    let halted = Atomic<Bool>(false)
    /// The cache error that stopped the run, if one did.
    let cacheFailure = Locked<CacheError?>(nil)
    /// Commits the index's open batch a few times a second while the job runs.
    private let flusher = Locked<RepeatingTimer?>(nil)
    /// Since when (`DispatchTime`'s uptime, in nanoseconds) stores have found the index locked, or zero.
    let lockedSince = Atomic<UInt64>(0)
    /// Occurrences told another set's outcome whose own set has variants: checked for them once the
    /// transfers have settled (`makeFollowUpVariants`), by key and set.
    let variantFollowUps = Locked<[String: PlanItem]>([:])

    package convenience init(job: Job, cache: DiskCache, settings: RunSettings, log: RunLog) throws(FetchError) {
        try self.init(job: job, cache: cache, settings: settings, log: log) { configuration throws(FetchError) in
            try FetchEngine(configuration: configuration)
        }
    }

    /// `transport` makes what moves the bytes, from the run's limits (the real engine, or a test's).
    convenience init(job: Job, cache: DiskCache, settings: RunSettings, log: RunLog,
                     transport: (EngineConfiguration) throws(FetchError) -> any Transport) throws(FetchError) {
        let shared = try RunQueue.Shared(jobs: [job], settings: settings, log: log, transport: transport)
        self.init(job: job, group: 0, share: CacheShare(cache), settings: settings, log: log, shared: shared, ownsEngine: true)
    }

    /// A job of a run whose engine, gate and transfer events are `shared`.
    init(job: Job, group: Int, share: CacheShare, settings: RunSettings, log: RunLog, shared: RunQueue.Shared,
         ownsEngine: Bool) {
        self.job = job
        self.plan = RunPlan(job: job)
        self.cache = share.cache
        self.share = share
        self.group = group
        self.ownsEngine = ownsEngine
        self.settings = settings
        self.log = log
        events = shared.events
        engine = shared.engine
        gate = shared.gate
        board = RunBoard(setNames: plan.sets.map(\.name), failureLimit: settings.reportedFailureLimit, expectedKeys: plan.count)
        workers = WorkerPool(name: "prefetchd.validate", width: ProcessInfo.processInfo.activeProcessorCount)
        let network = NetworkPolicy(allowPrivate: job.network.allowPrivate, allowHosts: job.network.allowHosts,
                                    denyHosts: job.network.denyHosts)
        requests = plan.sets.enumerated().map { index, set in
            var template = Self.requestTemplate(set.options, settings: settings)
            template.network = network
            template.group = group
            template.rateLimitScope = group << 20 | index
            return template
        }
        validators = plan.sets.map {
            ImageValidator(level: $0.options.validate, formats: Set($0.options.formats),
                           maxPixels: $0.options.maxPixels, maxBytes: $0.options.maxBytes,
                           maxFrames: $0.options.maxFrames, maxFramePixels: $0.options.maxFramePixels)
        }
        variantBoxes = plan.sets.map { VariantMaker.fastBox($0.options.variants, original: .jpeg) }
        storesWhereDelivered = plan.sets.map { $0.options.validate != .decode && $0.options.variants.isEmpty }
    }

    deinit {
        flusher.withLock { $0 }?.stop()
        if ownsEngine { engine.shutdown() }
    }

    /// Asks the run to stop: no new transfers, in-flight ones aborted (their temp files removed).
    /// Safe to call from a signal handler's queue, more than once.
    package func stop(signal: Int32) {
        _ = stopSignal.compareExchange(expected: 0, desired: signal, ordering: .acquiringAndReleasing)
        halt()
    }

    /// Stops the run as a signal does, for a reason of its own (the cache stopped taking writes).
    private func halt() {
        if halted.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged {
            engine.cancel(group: group)
            // Bodies still to be stored do not each wait out the busy timeout for a lock another
            // process holds (a stopped one): they settle as interrupted.
            cache.index.shortenLockWaits()
        }
    }

    /// A store found the index locked by another process past the busy timeout. Once it has stayed
    /// locked (no store of this run getting in) for `lockedLimit`, the run stops, as a clean does.
    func noteIndexLocked() {
        let now = DispatchTime.now().uptimeNanoseconds
        let since = lockedSince.load(ordering: .acquiring)
        guard since != 0 else {
            _ = lockedSince.compareExchange(expected: 0, desired: now, ordering: .acquiringAndReleasing)
            return
        }
        guard now - since >= Self.lockedLimitSeconds * 1_000_000_000 else { return }
        stop(for: .index(operation: "store bodies", code: 5,
                         message: "the index stayed locked by other processes for \(Self.lockedLimitSeconds) s; stopped, the cache is consistent"))
    }

    /// A store got in: the index is not held against the run.
    func noteIndexFree() {
        if lockedSince.load(ordering: .relaxed) != 0 { lockedSince.store(0, ordering: .releasing) }
    }

    /// How long the index may stay locked against every store before the run stops.
    static let lockedLimitSeconds: UInt64 = 60

    /// Keeps the first cache error that ends the run, and stops it.
    func stop(for failure: CacheError) {
        cacheFailure.withLock { $0 = $0 ?? failure }
        halt()
    }

    var isStopping: Bool { halted.load(ordering: .acquiring) }

    /// Runs the whole plan; returns when every transfer has settled. A cache error that will not pass
    /// by itself (a full disk, an I/O error) ends the run early, and the outcome carries it beside the
    /// totals of what was done; throws only when the cache cannot be read at the start.
    package func run() throws(CacheError) -> RunOutcome {
        try begin()
        var iterator = plan.makeIterator()
        scheduleAll(&iterator)
        gate.drain()
        return end(sourceFailure: iterator.failure)
    }

    /// Before the first item: the cache is checked and the index's batches start being committed.
    func begin() throws(CacheError) {
        // No body is written through a link where the cache's own folder belongs.
        try cache.refuseLinkedFolders()
        ledgerInUse.store(try cache.index.hasFailures(), ordering: .releasing)
        partialsInUse.store(try cache.index.hasPartials(), ordering: .releasing)
        // Commit the index's open batch a few times a second, so its write lock is never held while
        // the run waits on the network: a `clean` in another process gets in between. A commit that
        // fails for good (SQLite then drops the batch's rows) stops the run; a busy one is tried again.
        // Weak: a cancelled dispatch source lets go of its handler later, and must not keep the run
        // (its cache and open index) alive past its end.
        let flusher = RepeatingTimer(label: "prefetchd.flush", interval: 0.25) { [weak self] in
            guard let self else { return }
            do throws(CacheError) {
                let generation = board.markStored()
                try cache.flush()
                // A batch lost before this flush (its commit failed on a store's thread) took stores
                // of this generation with it; they stay for `revoke`.
                if !cache.index.lostPlacedBodies() { board.forgetStored(through: generation) }
            } catch where error.isLasting {
                stop(for: error)
            } catch {}
        }
        flusher.start()
        self.flusher.withLock { $0 = flusher }
    }

    /// Once the gate has drained (every transfer of the run settled): the last stores, the last
    /// commit, and the job's outcome, recorded in the cache's list of runs. `sourceFailure` is the
    /// first URL source of the job that could not be read to its end.
    func end(sourceFailure: JobDiagnostic?) -> RunOutcome {
        workers.waitUntilIdle()
        makeFollowUpVariants()
        flusher.withLock { $0 }?.stop()
        do throws(CacheError) {
            // A stopping run's writes no longer wait for another process's lock; its last commit
            // waits a little, so that a live writer's commit does not cost it its last batch.
            try cache.flush(waitingAtMost: isStopping ? .seconds(2) : nil)
        } catch {
            stop(for: error)
        }
        let failure = cacheFailure.withLock { $0 }
        if failure != nil { dropUnrecordedBodies() }
        let outcome = finish(sourceFailure: sourceFailure, cacheFailure: failure)
        guard failure == nil, !settings.dryRun else { return outcome }
        do {
            try recordRun(outcome.report)
        } catch {
            dropUnrecordedBodies()
            return finish(sourceFailure: sourceFailure, cacheFailure: error)
        }
        return outcome
    }

    /// After the cache stopped taking writes: the bodies of the index's last batch, whose rows it could
    /// not commit, are removed (`CacheIndex.settleAfterFailure`), so none is left under a final name
    /// without its row, and each is counted as failed instead of fetched.
    private func dropUnrecordedBodies() {
        let removed = share.unrecordedBodies()
        let failures = board.revoke(removed) { url, set in
            RunFailure(url: url, set: plan.sets[set].name, reason: "cache", attempts: 1,
                       message: "Its body was stored, but the index could not record it, so it was removed.")
        }
        for failure in failures {
            log.record(.failed(failure, elapsedMs: 0))
        }
    }

    private func finish(sourceFailure: JobDiagnostic?, cacheFailure: CacheError?) -> RunOutcome {
        let signal = stopSignal.load(ordering: .acquiring)
        var state = board.tally
        // `requested` counts every URL occurrence of the job, also those a stop left unscheduled.
        if signal != 0 || cacheFailure != nil { state.totals.requested = plan.count }
        let outcomeName = RunReport.outcome(
            stoppedBy: signal == 0 ? nil : signal, cutShort: sourceFailure != nil || cacheFailure != nil)
        var report = RunReport(job: job.name, started: started, durationSeconds: Date().timeIntervalSince(started),
                               totals: state.totals, failures: state.failures, outcome: outcomeName,
                               warnings: state.warnings)
        report.rateWaitSeconds = JobRunner.milliseconds(engine.rateWait(group: group))
        return RunOutcome(report: report, sets: state.sets, problems: sourceFailure.map { ["\($0)"] } ?? [],
                          stoppedBy: signal == 0 ? nil : signal, cacheFailure: cacheFailure)
    }

    private func recordRun(_ report: RunReport) throws(CacheError) {
        let totals = report.totals
        try cache.index.recordRun(RunRecord(job: job.name, started: started, duration: report.durationSeconds, totals: [
            "requested": totals.requested, "unique": totals.unique, "fetched": totals.fetched,
            "cached": totals.cached, "revalidated": totals.revalidated, "failed": totals.failed,
            "ledgered": totals.ledgered, "skipped": totals.skipped, "bytes": Int(totals.bytes),
        ], outcome: report.outcome, shard: settings.shard))
        try cache.flush()
    }
}

extension Prefetcher {
    /// URL occurrences settled so far against all of them, for the progress display.
    package func progress() -> ProgressDisplay.Snapshot {
        let state = board.tally
        let done = state.sets.reduce(0) { $0 + $1.succeeded + $1.failed + $1.ledgered + $1.skipped }
        return ProgressDisplay.Snapshot(done: done, total: plan.count, failed: state.totals.failed, bytes: state.totals.bytes,
                                        inFlight: board.inFlightCount)
    }
}
