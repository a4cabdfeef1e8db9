import Foundation

extension Prefetcher {
    /// A transfer settled: validate and store the body, or record the failure; then tell every set
    /// that asked, and free the slot. Runs on the workers, never on the network thread.
    func complete(_ item: PlanItem, _ claim: KeyClaim, result: FetchResult, body: TempFile, revalidating entry: CacheEntry?,
                  resumed: PartialRecord? = nil) {
        defer { gate.release() }
        events?.unregister(result.id)
        let set = plan.sets[item.setIndex]
        let elapsed = result.elapsed.seconds * 1000
        switch result.outcome {
        case .success(let response) where response.kind == .notModified:
            do {
                let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970)
                let freshness = set.options.refresh == .http ? ResponseFreshness.of(response.headers, receivedAt: now) : nil
                if freshness?.noStore == true {
                    // Confirmed, but the origin now says not to store it: the copy goes, as after a 200.
                    try cache.remove(key: item.key)
                } else {
                    try cache.markRevalidated(key: item.key, etag: response.headers.etag ?? entry?.etag,
                                              lastModified: response.headers.lastModified ?? entry?.lastModified, at: now)
                    if let freshness {
                        try cache.index.recordFreshness(relativePath: cache.relativePath(forKey: item.key), modifiedAt: now,
                                                        freshUntil: freshness.freshUntil)
                    }
                    try cache.touch(key: item.key)
                }
                board.settle(claim, .revalidated)
                log.record(RunEvent(.revalidated, url: item.shownURL, set: set.name, status: 304, elapsedMs: elapsed))
            } catch {
                fail(item, claim, reason: "cache", status: 304, attempts: result.attempts, elapsedMs: elapsed, message: "\(error)",
                     permanent: false)
                if error.isLasting { stop(for: error) }
            }
        case .success(let response):
            store(item, claim, response: response, attempts: result.attempts, body: body, elapsedMs: elapsed, resumed: resumed,
                  replacing: entry != nil)
        case .failure(.cancelled) where isStopping, .failure(.engineStopped) where isStopping:
            settleInterrupted(item, claim)
        case .failure(let error):
            keepOrDropPartial(item, result: result, body: body, revalidating: entry, resumed: resumed)
            fail(item, claim, reason: error.reason, status: error.httpStatus, attempts: result.attempts, elapsedMs: elapsed,
                 message: error.description, permanent: RetryPolicy.isPermanent(error))
            // A full disk (or quota, file-size limit, I/O error) fails every body after this one too.
            if case .destination(let path, let code) = error {
                let failure = CacheError.fileSystem(operation: "write a body to", path: path, errno: code)
                if failure.isLasting { stop(for: failure) }
            }
        }
    }

    /// Validates the downloaded file at `validate:` level and commits it under its final name.
    /// A body that fails is dropped with `body` (closed, and removed if it has a name).
    /// `replacing`: a cached entry was revalidated, and this body takes its place (its old variants go).
    private func store(_ item: PlanItem, _ claim: KeyClaim, response: FetchResponse, attempts: Int, body: TempFile, elapsedMs: Double,
                       resumed: PartialRecord?, replacing: Bool) {
        let set = plan.sets[item.setIndex]
        for warning in response.warnings {
            log.warn("\(item.shownURL) [\(set.name)]: \(warning)")
        }
        // A body spliced from a cut one (a partial another run kept, or a 206 in this run's retries)
        // that fails its check may be the splice's fault (bytes changed under an unchanged validator,
        // or rotted on disk): the partial goes, and the next run asks for the whole body at once, not
        // a day later.
        let spliced = resumed != nil || response.status == 206
        let info: ImageInfo?
        let kept: KeptJPEG?
        do {
            // A JPEG's check keeps its decoded pixels for the set's variants.
            (info, kept) = try validators[item.setIndex].validate(fileAt: body.path, head: response.head, size: response.bytes,
                                                                  keepingFor: variantBoxes[item.setIndex])
        } catch {
            if resumed != nil { try? cache.dropPartial(forKey: item.key) }
            fail(item, claim, reason: error.reason, status: response.status, attempts: attempts, elapsedMs: elapsedMs,
                 message: error.description, permanent: error.isTheBodysOwn && !spliced)
            return
        }
        // The transform step, before anything is stored: a variant that fails leaves no entry.
        let variants: [(VariantSpec, VariantMaker.Made)]
        let sourceFormat = info?.format ?? (set.options.variants.isEmpty ? nil : ImageSniffer.format(of: response.head))
        do {
            variants = try makeVariants(set, fromFileAt: body.path, format: sourceFormat, kept: kept)
        } catch {
            if resumed != nil { try? cache.dropPartial(forKey: item.key) }
            fail(item, claim, reason: error.reason, status: response.status, attempts: attempts, elapsedMs: elapsedMs,
                 message: error.description, permanent: error.isTheImagesOwn && !spliced)
            return
        }
        let freshness = set.options.refresh == .http ? ResponseFreshness.of(response.headers, receivedAt: Date()) : nil
        do {
            if freshness?.noStore == true {
                // Fetched and checked, but not kept: the origin says not to store it (and an older copy goes).
                try cache.remove(key: item.key)
                if resumed != nil { try cache.dropPartial(forKey: item.key) }
            } else {
                try commit(item, body: body, response: response, info: info, resumed: resumed, freshness: freshness)
                try storeVariants(variants, key: item.key, format: sourceFormat, url: item.shownURL, set: set,
                                  replacing: replacing, remaking: !set.options.keepOriginal)
            }
        } catch {
            // A stopping run's body that meets another process's lock is left, as a transfer a stop aborts.
            if error.isBusy && isStopping { return settleInterrupted(item, claim) }
            fail(item, claim, reason: "cache", status: response.status, attempts: attempts, elapsedMs: elapsedMs,
                 message: "\(error)", permanent: false)
            if error.isLasting { stop(for: error) }
            if error.isBusy { noteIndexLocked() }
            return
        }
        noteIndexFree()
        board.settleStored(claim, bytes: response.bytes, url: item.shownURL, warnings: info?.warnings ?? [])
        log.record(RunEvent(.finished, url: item.shownURL, set: set.name, status: response.status, bytes: response.bytes,
                            elapsedMs: elapsedMs, attempt: attempts))
    }

    /// Puts a checked body under its final name with its row; in the same batch the key's ledger row
    /// goes, a partial it resumed loses its row (its file is the one placed), and the freshness its
    /// origin gave it is recorded for a `refresh: http` set.
    private func commit(_ item: PlanItem, body: TempFile, response: FetchResponse, info: ImageInfo?, resumed: PartialRecord?,
                        freshness: ResponseFreshness?) throws(CacheError) {
        let set = plan.sets[item.setIndex]
        var entry = NewEntry(
            url: item.shownURL, key: item.key, setName: set.name, format: info?.format,
            width: info.flatMap { $0.width > 0 ? $0.width : nil }, height: info.flatMap { $0.height > 0 ? $0.height : nil },
            etag: response.headers.etag, lastModified: response.headers.lastModified)
        entry.unchecked = set.options.validate == .none
        entry.frames = set.options.validate == .decode ? info?.frames : nil
        // With `keep_original: false` only the variants are stored.
        let stored = set.options.keepOriginal
            ? try cache.commit(body, as: entry, streamed: response.checksum.map { DiskCache.Streamed(checksum: $0, size: response.bytes) })
            : nil
        if ledgerInUse.load(ordering: .acquiring) { try cache.index.removeFailure(forKey: item.key) }
        if resumed != nil { try cache.index.deletePartial(forKey: item.key) }
        if let freshness, let stored {
            try cache.index.recordFreshness(relativePath: stored.relativePath, modifiedAt: stored.modifiedAt,
                                            freshUntil: freshness.freshUntil)
        }
    }

    /// After a failed transfer: a body cut part way (its file holding `result.kept`'s bytes) is kept
    /// for a later run, when its set keeps partials and the key had no entry; a partial this transfer
    /// resumed that came to nothing else is removed. Not after a stop: what a stop aborted is left as
    /// it was recorded.
    private func keepOrDropPartial(_ item: PlanItem, result: FetchResult, body: TempFile, revalidating entry: CacheEntry?,
                                   resumed: PartialRecord?) {
        let options = plan.sets[item.setIndex].options
        guard !isStopping else { return }
        if let kept = result.kept, entry == nil, options.resumeMaxAge > .zero {
            do {
                try cache.keepPartial(body, key: item.key, url: item.shownURL, size: kept.offset, validator: kept.validator,
                                      keepFor: options.resumeMaxAge)
            } catch {
                log.warn("\(item.shownURL) [\(plan.sets[item.setIndex].name)]: the part received could not be kept: \(error)")
            }
        } else if resumed != nil {
            try? cache.dropPartial(forKey: item.key)
        }
    }

    /// Records a failure in the report and the ledger; a revalidation that fails keeps the old file.
    private func fail(
        _ item: PlanItem, _ claim: KeyClaim, reason: String, status: Int?, attempts: Int, elapsedMs: Double, message: String, permanent: Bool
    ) {
        let set = plan.sets[item.setIndex]
        let failure = RunFailure(url: item.shownURL, set: set.name, reason: reason, httpStatus: status,
                                 attempts: attempts, message: message)
        if reason != "cache" {
            ledgerInUse.store(true, ordering: .releasing)
            let previous = try? cache.index.failure(forKey: item.key)
            let record = FailureLedgerPolicy.record(url: item.shownURL, key: item.key, failure: failure,
                                                    permanent: permanent, previous: previous, now: Date())
            try? cache.index.recordFailure(record)
        }
        board.settle(claim, .failed(failure))
        log.record(.failed(failure, elapsedMs: elapsedMs))
    }
}
