import Foundation

extension Prefetcher {
    /// Decides one URL occurrence: a repeat of a key already in flight or settled is told its
    /// outcome; otherwise the index decides between cached, skipped, fetch and revalidate.
    func schedule(_ item: PlanItem) throws(CacheError) {
        let firstAsk = tally.withLock { state -> Bool in
            state.totals.requested += 1
            state.sets[item.setIndex].requested += 1
            if state.inFlight[item.key] != nil {
                state.inFlight[item.key]!.append(item.setIndex)
                return false
            }
            return true
        }
        guard firstAsk else { return }
        if let outcome = settled.value(forKey: item.key) {
            tally.withLock { $0.sets[item.setIndex].apply(outcome) }
            return
        }
        let setName = plan.sets[item.setIndex].name
        guard settings.shard.contains(key: item.key) else {
            settleUnique(item, as: .skipped, count: \.skipped, event: RunEvent(.skipped, url: item.shownURL, set: setName, reason: "shard"))
            return
        }
        let location = cache.location(forKey: item.key)
        // While stores may hold the index, the lookup reads committed rows through a connection of
        // its own: enough, since a key this run stored is answered by `settled` above, and one evicted
        // from it was stored long enough ago for its row to be committed. With nothing in flight (a
        // rerun over a warm cache) the index's own connection is free and reads cheaper.
        let entry = try cache.lookup(location, committedOnly: !gate.isIdle)
        let failure = entry == nil && ledgerInUse.load(ordering: .acquiring) ? try cache.index.failure(forKey: item.key) : nil
        // A row or ledger entry written since this run started is its own work on a key `settled` has
        // forgotten: counted once already, told to this set only. While `settled` has forgotten
        // nothing, such a row is another process's (a second run on the cache), decided as any other.
        let mayBeOwnWork = settled.hasEvicted
        if mayBeOwnWork, let entry, entry.modifiedAt >= started {
            tally.withLock { $0.sets[item.setIndex].apply(.succeeded) }
            return
        }
        if mayBeOwnWork, let failure, failure.lastErrorAt >= started {
            let repeated = RunFailure(url: item.shownURL, set: setName, reason: failure.reason,
                                      httpStatus: failure.httpStatus, attempts: 0, message: "failed earlier in this run")
            tally.withLock { $0.sets[item.setIndex].apply(.failed(repeated)) }
            return
        }
        let options = plan.sets[item.setIndex].options
        switch CacheDecision.decide(entry: entry, failure: failure, options: options, maxAge: job.cache.maxAge, now: Date()) {
        case .cached:
            if !settings.dryRun { try cache.touch(key: item.key) }
            settleUnique(item, as: .succeeded, count: \.cached, event: RunEvent(.cached, url: item.shownURL, set: setName))
        case .skipFailed(let record):
            if settings.dryRun { Console.out("skip \(item.shownURL) (failed before: \(record.reason))\n") }
            settleUnique(item, as: .skipped, count: \.skipped,
                         event: RunEvent(.skipped, url: item.shownURL, set: setName, status: record.httpStatus, reason: "ledger: \(record.reason)"))
        case .fetch where settings.dryRun:
            Console.out("fetch \(item.shownURL)\n")
            settleUnique(item, as: .skipped, count: \.skipped, event: RunEvent(.skipped, url: item.shownURL, set: setName, reason: "dry run"))
        case .revalidate where settings.dryRun:
            Console.out("revalidate \(item.shownURL)\n")
            settleUnique(item, as: .skipped, count: \.skipped, event: RunEvent(.skipped, url: item.shownURL, set: setName, reason: "dry run"))
        case .fetch:
            try start(item, at: location, revalidating: nil)
        case .revalidate(let entry):
            try start(item, at: location, revalidating: entry)
        }
    }

    /// Counts a key's first outcome: once in the totals, once for the set, remembered for repeats.
    func settleUnique(_ item: PlanItem, as outcome: KeyOutcome, count: WritableKeyPath<RunTotals, Int>, event: RunEvent) {
        tally.withLock { state in
            state.totals.unique += 1
            state.totals[keyPath: count] += 1
            state.sets[item.setIndex].apply(outcome)
        }
        remember(outcome, of: item)
        log.record(event)
    }

    /// Keeps a settled key's outcome for later occurrences; its cost is the key's bytes plus the node.
    func remember(_ outcome: KeyOutcome, of item: PlanItem) {
        settled.setValue(outcome, forKey: item.key, cost: item.key.utf8.count + 64)
    }

    /// Hands one key to the engine once the gate has room; the transfer starts when the set's limits
    /// allow, and its result comes back on the workers. The body's file is made here, on the
    /// scheduling thread, and handed over open.
    private func start(_ item: PlanItem, at location: CacheLocation, revalidating entry: CacheEntry?) throws(CacheError) {
        let setName = plan.sets[item.setIndex].name
        tally.withLock { state in
            state.totals.unique += 1
            state.inFlight[item.key] = []
        }
        log.record(RunEvent(.queued, url: item.shownURL, set: setName))
        guard gate.acquire(unless: { isStopping }) else {
            settleInterrupted(item)
            return
        }
        // Handed over whole: from here only the worker that completes the transfer touches it.
        nonisolated(unsafe) let body: TempFile
        do {
            body = try cache.makeBodyFile(for: location)
        } catch {
            gate.transferFinished()
            gate.release()
            // Counted unique above: it ends skipped, as the stop this error causes ends the others.
            settleInterrupted(item)
            throw error
        }
        var request = requests[item.setIndex]
        request.url = item.url
        request.destination = body.shownPath
        request.destinationDescriptor = body.descriptor
        request.validators = entry.map { Validators(etag: $0.etag, lastModified: $0.lastModified) }
        engine.submit(request, register: { events?.register($0, url: item.shownURL, set: setName) }) { [self] result in
            gate.transferFinished()
            workers.submit { [self] in
                complete(item, result: result, body: body, revalidating: entry)
            }
        }
    }

    /// Counts a key whose transfer a stop kept from starting or aborted as skipped, for every set that asked.
    func settleInterrupted(_ item: PlanItem) {
        tally.withLock { state in
            state.totals.skipped += 1
            state.settle(key: item.key, firstSet: item.setIndex, outcome: .skipped)
        }
        log.record(RunEvent(.skipped, url: item.shownURL, set: plan.sets[item.setIndex].name, reason: "stopped"))
    }

    /// The body bytes a transfer keeps in memory for the header check: enough for a PNG's or GIF's
    /// header and for the JPEG segments before the frame header in most files (EXIF and ICC data can
    /// push it further; the check then reads the file).
    static let keptHeadBytes = 32 << 10

    /// The request every URL of a set starts from.
    static func requestTemplate(_ options: JobOptions, settings: RunSettings) -> FetchRequest {
        var request = FetchRequest(
            url: "", destination: "", headers: options.headers,
            credentials: options.credentials.map { Credentials(username: $0.username, password: $0.password) },
            timeout: options.timeout, maxBytes: options.maxBytes,
            retry: RetryPolicy(retries: options.retries, baseDelay: settings.retryBaseDelay, maxDelay: settings.retryMaxDelay,
                               maxRetryAfter: settings.retryMaxDelay),
            cookies: options.cookies, insecureTLS: options.insecureTLS)
        request.computesChecksum = true
        request.keptHeadBytes = keptHeadBytes
        request.concurrency = settings.concurrency ?? options.concurrency
        request.perHost = options.perHost
        return request
    }
}
