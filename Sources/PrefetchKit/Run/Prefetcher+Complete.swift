import Foundation

extension Prefetcher {
    /// A transfer settled: validate and store the body, or record the failure; then tell every set
    /// that asked, and free the slot. Runs on the workers, never on the network thread.
    func complete(_ item: PlanItem, _ claim: KeyClaim, result: FetchResult, body: TempFile, revalidating entry: CacheEntry?) {
        defer { gate.release() }
        events?.unregister(result.id)
        let set = plan.sets[item.setIndex]
        let elapsed = result.elapsed.seconds * 1000
        switch result.outcome {
        case .success(let response) where response.kind == .notModified:
            do {
                try cache.markRevalidated(key: item.key, etag: response.headers.etag ?? entry?.etag,
                                          lastModified: response.headers.lastModified ?? entry?.lastModified)
                try cache.touch(key: item.key)
                board.settle(claim, .revalidated)
                log.record(RunEvent(.revalidated, url: item.shownURL, set: set.name, status: 304, elapsedMs: elapsed))
            } catch {
                fail(item, claim, reason: "cache", status: 304, attempts: result.attempts, elapsedMs: elapsed, message: "\(error)",
                     permanent: false)
                if error.isLasting { stop(for: error) }
            }
        case .success(let response):
            store(item, claim, response: response, attempts: result.attempts, body: body, elapsedMs: elapsed)
        case .failure(.cancelled) where isStopping, .failure(.engineStopped) where isStopping:
            settleInterrupted(item, claim)
        case .failure(let error):
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
    private func store(_ item: PlanItem, _ claim: KeyClaim, response: FetchResponse, attempts: Int, body: TempFile, elapsedMs: Double) {
        let set = plan.sets[item.setIndex]
        for warning in response.warnings {
            log.warn("\(item.shownURL) [\(set.name)]: \(warning)")
        }
        let info: ImageInfo?
        do {
            info = try validators[item.setIndex].validate(fileAt: body.path, head: response.head, size: response.bytes)
        } catch {
            fail(item, claim, reason: error.reason, status: response.status, attempts: attempts, elapsedMs: elapsedMs,
                 message: error.description, permanent: error.isTheBodysOwn)
            return
        }
        // The transform step, before anything is stored: a variant that fails leaves no entry.
        let variants: [(VariantSpec, VariantMaker.Made)]
        do {
            variants = try makeVariants(set, fromFileAt: body.path, format: info?.format)
        } catch {
            fail(item, claim, reason: error.reason, status: response.status, attempts: attempts, elapsedMs: elapsedMs,
                 message: error.description, permanent: true)
            return
        }
        do {
            var entry = NewEntry(
                url: item.shownURL, key: item.key, setName: set.name, format: info?.format,
                width: info.flatMap { $0.width > 0 ? $0.width : nil }, height: info.flatMap { $0.height > 0 ? $0.height : nil },
                etag: response.headers.etag, lastModified: response.headers.lastModified)
            entry.unchecked = set.options.validate == .none
            entry.frames = set.options.validate == .decode ? info?.frames : nil
            if set.options.keepOriginal {
                try cache.commit(body, as: entry, streamed: response.checksum.map { DiskCache.Streamed(checksum: $0, size: response.bytes) })
            }
            try storeVariants(variants, key: item.key, format: info?.format, url: item.shownURL, set: set)
            if ledgerInUse.load(ordering: .acquiring) { try cache.index.removeFailure(forKey: item.key) }
        } catch {
            fail(item, claim, reason: "cache", status: response.status, attempts: attempts, elapsedMs: elapsedMs,
                 message: "\(error)", permanent: false)
            if error.isLasting { stop(for: error) }
            return
        }
        board.settleStored(claim, bytes: response.bytes, url: item.shownURL, warnings: info?.warnings ?? [])
        log.record(RunEvent(.finished, url: item.shownURL, set: set.name, status: response.status, bytes: response.bytes,
                            elapsedMs: elapsedMs, attempt: attempts))
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
        log.record(RunEvent(.failed, url: item.shownURL, set: set.name, status: status, elapsedMs: elapsedMs,
                            reason: reason, attempt: attempts))
    }
}
