import Foundation

extension Prefetcher {
    /// Decides one URL occurrence: a repeat of a key already in flight or settled is told its
    /// outcome; otherwise the index decides between cached, skipped, fetch and revalidate. `ahead` is
    /// the item's row read with its batch's (`readAhead`), taken as it was read while the board still
    /// remembers every key settled since the read: every key this run settled after it is then told
    /// by the board before its row is asked for.
    func schedule(_ item: PlanItem, ahead: ReadAhead?) throws(CacheError) {
        guard case .claimed(let claim) = board.ask(item.key, set: item.setIndex) else {
            // Another set of the URL decided it, with that set's variants: this set's own are made
            // once every transfer has settled.
            if !plan.sets[item.setIndex].options.variants.isEmpty, !settings.dryRun {
                variantFollowUps.withLock { $0[item.key + "\u{0}" + String(item.setIndex)] = item }
            }
            return
        }
        let setName = plan.sets[item.setIndex].name
        guard settings.shard?.contains(key: item.key) ?? true else {
            settle(item, claim, .skipped, event: RunEvent(.skipped, url: item.shownURL, set: setName, reason: "shard"))
            return
        }
        let location = ahead?.location ?? cache.location(forKey: item.key)
        // Another job of the run on this cache transferring the key, or done with it: its outcome is
        // waited for and read from the index as a later job file found it when jobs ran one after
        // another.
        let waited = share.isShared && share.awaitOthers(item.key, group: group)
        // While stores may hold the index, the lookup reads committed rows through a connection of
        // its own: enough, since a key this run stored is answered by the board, and one it forgot
        // was stored long enough ago for its row to be committed. With nothing in flight (a rerun
        // over a warm cache) the index's own connection is free and reads cheaper. A key another job
        // has stored in this run may be in the open batch only: the index's own connection sees it.
        let read = ahead.flatMap { !waited && board.rememberedEverySettle(since: $0.settledUses, before: claim) ? $0 : nil }
        if let row = read?.row, try settleFromSummary(item, claim, row, at: location) { return }
        // Else the whole row, read now; none where the read-ahead found none.
        let entry = if let read, read.row == nil { nil as CacheEntry? } else {
            try cache.lookup(location, committedOnly: !waited && !gate.isIdle)
        }
        // A key another job just failed may be in the ledger though this job's `ledgerInUse` is not set.
        let failure = entry == nil && (waited || ledgerInUse.load(ordering: .acquiring))
            ? try cache.index.failure(forKey: item.key) : nil
        // A row or a ledger entry written since this run started is its own work on a key the board
        // has forgotten (`settleOwnRow`).
        if let entry, settleOwnRow(claim, modifiedAt: entry.modifiedAt) { return }
        if claim.settledWereForgotten, let failure, failure.lastErrorAt >= started {
            let repeated = RunFailure(url: item.shownURL, set: setName, reason: failure.reason,
                                      httpStatus: failure.httpStatus, attempts: 0, message: "failed earlier in this run")
            board.settleRepeat(claim, .failed(repeated))
            return
        }
        // The set's options read in place: a copy of them costs a reference count for each of their lists.
        let freshness = plan.sets[item.setIndex].options.refresh == .http ? try entry.map { entry throws(CacheError) in
            try cache.index.freshness(relativePath: entry.relativePath, modifiedAt: entry.modifiedAt, committedOnly: !gate.isIdle)
        } ?? .unknown : .unknown
        let now = Date()
        switch CacheDecision.decide(entry: entry, failure: failure, options: plan.sets[item.setIndex].options, maxAge: job.cache.maxAge,
                                    now: now, freshness: freshness) {
        case .cached(let entry):
            try settleCached(item, claim, at: location, rowID: read?.row?.id, hasURL: entry.url != nil, entry: entry, now: now)
        case .skipFailed(let record):
            if settings.dryRun { Console.out("skip \(item.shownURL) (failed before: \(record.reason))\n") }
            let failure = RunFailure.ledgered(url: item.shownURL, set: setName, record: record)
            settle(item, claim, .ledgered(failure), event: .ledgered(failure))
        case .fetch where settings.dryRun:
            Console.out("fetch \(item.shownURL)\n")
            settle(item, claim, .skipped, event: RunEvent(.skipped, url: item.shownURL, set: setName, reason: "dry run"))
        case .revalidate where settings.dryRun:
            Console.out("revalidate \(item.shownURL)\n")
            settle(item, claim, .skipped, event: RunEvent(.skipped, url: item.shownURL, set: setName, reason: "dry run"))
        case .fetch:
            try start(item, claim, at: location, revalidating: nil)
        case .revalidate(let entry):
            try start(item, claim, at: location, revalidating: entry)
        }
    }

    /// Decides a key whose row was read ahead from the row's summary alone when that is enough: the
    /// entry is kept as it is (`CacheDecision.keeps`, its origin's freshness not asked for) and its set
    /// makes no variants, or the board had forgotten the key this run stored. True when it settled the
    /// key; false leaves the decision to the whole row.
    private func settleFromSummary(_ item: PlanItem, _ claim: KeyClaim, _ row: IndexedSummary,
                                   at location: CacheLocation) throws(CacheError) -> Bool {
        if settleOwnRow(claim, modifiedAt: row.modifiedAt) { return true }
        // The set's options read in place (a copy costs a reference count for each of their lists), and
        // the clock read once for the decision and the use.
        let refresh = plan.sets[item.setIndex].options.refresh
        let now = Date()
        guard refresh != .http, plan.sets[item.setIndex].options.variants.isEmpty,
              CacheDecision.keeps(modifiedAt: row.modifiedAt, refresh: refresh, maxAge: job.cache.maxAge, now: now)
        else { return false }
        try settleCached(item, claim, at: location, rowID: row.id, hasURL: row.hasURL, entry: nil, now: now)
        return true
    }

    /// Settles a key whose row, last written at `modifiedAt`, is this run's own work on a key the board
    /// has forgotten: written since the run started, it was counted once already, and is told to this
    /// set only. True when it did. While the board has forgotten nothing, such a row is another
    /// process's (a second run on the cache), decided as any other.
    private func settleOwnRow(_ claim: KeyClaim, modifiedAt: Date) -> Bool {
        guard claim.settledWereForgotten, modifiedAt >= started else { return false }
        board.settleRepeat(claim, .succeeded)
        return true
    }

    /// Settles a key kept as cached: its use at `now` recorded (by its row id when known), its URL
    /// adopted when its row had none, and the missing variants of `entry` made.
    private func settleCached(_ item: PlanItem, _ claim: KeyClaim, at location: CacheLocation, rowID: Int64?,
                              hasURL: Bool, entry: CacheEntry?, now: Date) throws(CacheError) {
        let setName = plan.sets[item.setIndex].name
        if !settings.dryRun {
            if let rowID { try cache.touch(rowID: rowID, at: now) } else { try cache.touch(location, at: now) }
            if !hasURL { try cache.adopt(key: item.key, url: item.shownURL, setName: setName) }
            if let entry, case let missing = try missingVariants(plan.sets[item.setIndex], of: entry, key: item.key), !missing.isEmpty {
                try makeMissingVariants(item, claim, entry: entry, missing: missing)
                return
            }
        }
        settle(item, claim, .cached, event: RunEvent(.cached, url: item.shownURL, set: setName))
    }

    /// Settles a key decided without a transfer, and logs it.
    private func settle(_ item: PlanItem, _ claim: KeyClaim, _ result: KeyResult, event: RunEvent) {
        board.settle(claim, result)
        log.record(event)
    }

    /// Hands one key to the engine once the gate has room; the transfer starts when the set's limits
    /// allow, and its result comes back on the workers. The body's file is made here, on the
    /// scheduling thread, and handed over open.
    private func start(_ item: PlanItem, _ claim: KeyClaim, at location: CacheLocation,
                       revalidating entry: CacheEntry?) throws(CacheError) {
        let setName = plan.sets[item.setIndex].name
        log.record(RunEvent(.queued, url: item.shownURL, set: setName))
        guard gate.acquire(unless: { isStopping }) else {
            settleInterrupted(item, claim)
            return
        }
        // Handed over whole: from here only the worker that completes the transfer touches it. A key
        // an earlier run received part way goes on in that run's partial body.
        nonisolated(unsafe) let body: TempFile
        var partial: PartialRecord?
        do {
            if entry == nil, partialsInUse.load(ordering: .acquiring), let kept = try cache.openPartial(forKey: item.key) {
                body = kept.body
                partial = kept.record
            } else {
                body = try cache.makeBodyFile(for: location)
            }
        } catch {
            gate.transferFinished()
            gate.release()
            // It ends skipped, as the stop this error causes ends the others.
            settleInterrupted(item, claim)
            throw error
        }
        var request = requests[item.setIndex]
        request.url = item.url
        request.destination = body.shownPath
        request.destinationDescriptor = body.descriptor
        request.validators = entry.map { Validators(etag: $0.etag, lastModified: $0.lastModified) }
        request.expectedDigest = item.expectedDigest
        if let partial, let validator = ResumePoint.Validator.of(etag: partial.etag, lastModified: partial.lastModified) {
            // Its prefix is read once, here, for the hashes; a file that cannot be read starts over.
            request.resume = ResumePoint.reading(body.descriptor, size: partial.size, validator: validator, for: request)
        }
        let resumed = partial
        let shared = share.isShared
        if shared { share.began(item.key, group: group) }
        let here = storesWhereDelivered[item.setIndex]
        engine.submit(request, register: { events?.register($0, url: item.shownURL, set: setName) }) { [self] result in
            gate.transferFinished()
            let finish = { @Sendable [self] in
                complete(item, claim, result: result, body: body, revalidating: entry, resumed: resumed)
                if shared { share.ended(item.key, group: group) }
            }
            // A header check and a store take tens of microseconds: handing them to a worker cost a
            // thread wake-up per body, more than the work. A decode or variants go to the workers.
            if here { finish() } else { workers.submit(finish) }
        }
    }

    /// Hands a cached original whose set gained variants to the workers, holding a place in the gate
    /// as a transfer would (but none at the engine).
    private func makeMissingVariants(_ item: PlanItem, _ claim: KeyClaim, entry: CacheEntry, missing: [VariantSpec]) throws(CacheError) {
        guard gate.acquire(unless: { isStopping }) else {
            settleInterrupted(item, claim)
            return
        }
        gate.transferFinished()
        workers.submit { [self] in
            completeVariants(item, claim, entry: entry, missing: missing)
        }
    }

    /// Counts a key whose transfer a stop kept from starting or aborted as skipped, for every set that asked.
    func settleInterrupted(_ item: PlanItem, _ claim: KeyClaim) {
        board.settle(claim, .skipped)
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
        request.hiddenParams = options.redactParams
        request.concurrency = settings.concurrency ?? options.concurrency
        request.perHost = options.perHost
        request.stall = options.stall
        request.route.proxy = options.proxy.map { proxy in
            Proxy(url: proxy.url, username: proxy.credentials?.username, password: proxy.credentials?.password)
        }
        request.route.noProxy = options.noProxy
        request.route.connectTo = options.connectTo
        request.route.caFile = options.caFile
        request.route.caPath = options.caPath
        request.rateLimit = options.rateLimit
        request.readsFreshness = options.refresh == .http
        return request
    }
}
