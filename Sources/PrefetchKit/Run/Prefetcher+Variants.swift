import Foundation

/// The transform step: a set's `variants:` made from each original it stores, on the validation
/// workers (never the network thread), and stored as entries of their own linked to the original.
extension Prefetcher {
    /// Every variant of `set` made from the body at `path` (from the pixels its decode check kept,
    /// when it did), before anything is stored: one that fails fails the URL with `transform_failed`
    /// and leaves no entry at all.
    func makeVariants(_ set: JobSet, fromFileAt path: String, format: ImageFormat?,
                      kept: KeptJPEG?) throws(VariantError) -> [(VariantSpec, VariantMaker.Made)] {
        guard !set.options.variants.isEmpty else { return [] }
        return try VariantMaker.make(set.options.variants, fromFileAt: path, format: format, kept: kept)
    }

    /// Stores made variants of the original under `key` (stored in `format`, or not at all with
    /// `keep_original: false`).
    /// `replacing`: the original is a new body in place of an older one, whose variants (of every set,
    /// in any format) were made from what is gone: those not made again here go. `remaking`: a body
    /// whose original is not kept (`keep_original: false`), so nothing tells whether it changed: this
    /// set's names made again go in another format, and another set's variants stay (no original is
    /// left for them to be made again from).
    func storeVariants(_ made: [(VariantSpec, VariantMaker.Made)], key: String, format: ImageFormat?, url: String,
                       set: JobSet, replacing: Bool = false, remaking: Bool = false) throws(CacheError) {
        let originalPath = cache.relativePath(forKey: key)
        var stored: Set<String> = []
        for (spec, variant) in made {
            let location = cache.variantLocation(spec, originalKey: key, format: format)
            try cache.storeVariant(variant, at: location, url: url, setName: set.name, variant: spec.name, originalPath: originalPath)
            stored.insert(location.relativePath)
        }
        if replacing {
            try cache.removeVariants(ofOriginalAt: originalPath, keeping: stored)
        } else if remaking {
            try cache.removeVariants(ofOriginalAt: originalPath, keeping: stored, named: Set(made.map(\.0.name)))
        }
    }

    /// The format a cached original's variants are made from and named by: its check's, else (a
    /// `validate: none` set's body, which no check read) what its first bytes say, as for a new body,
    /// so that `format: same` keeps a JPEG a JPEG.
    static func sourceFormat(of entry: CacheEntry) -> ImageFormat? {
        entry.format ?? (try? DiskCache.sniffFormat(entry.path)) ?? nil
    }

    /// The variants of `set` that a cached original lacks: a set that gained a variant since the
    /// original was stored (or whose parameters changed, which makes a new key).
    func missingVariants(_ set: JobSet, of entry: CacheEntry, key: String) throws(CacheError) -> [VariantSpec] {
        guard !set.options.variants.isEmpty else { return [] }
        let format = Self.sourceFormat(of: entry)
        var missing: [VariantSpec] = []
        for spec in set.options.variants where try cache.lookup(cache.variantLocation(spec, originalKey: key, format: format)) == nil {
            missing.append(spec)
        }
        return missing
    }

    /// Makes the missing variants of a cached original from its file, without fetching it again, on
    /// the workers; the key settles as cached, or failed with `transform_failed`.
    func completeVariants(_ item: PlanItem, _ claim: KeyClaim, entry: CacheEntry, missing: [VariantSpec]) {
        defer { gate.release() }
        let set = plan.sets[item.setIndex]
        let made: [(VariantSpec, VariantMaker.Made)]
        let format = Self.sourceFormat(of: entry)
        do {
            made = try VariantMaker.make(missing, fromFileAt: entry.path, format: format)
        } catch {
            failTransform(item, claim, error)
            return
        }
        do {
            try storeVariants(made, key: item.key, format: format, url: item.shownURL, set: set)
        } catch {
            let failure = RunFailure(url: item.shownURL, set: set.name, reason: "cache", httpStatus: nil, attempts: 0, message: "\(error)")
            board.settle(claim, .failed(failure))
            log.record(.failed(failure))
            if error.isLasting { stop(for: error) }
            return
        }
        board.settle(claim, .cached)
        log.record(RunEvent(.cached, url: item.shownURL, set: set.name))
    }

    /// Makes the missing variants of each occurrence that was told another set's outcome
    /// (`variantFollowUps`), from the original that set stored or found, on this thread once the
    /// transfers have settled. One that cannot be made turns its set's success into a failure.
    func makeFollowUpVariants() {
        let items = variantFollowUps.withLock { $0.values.sorted { $0.setIndex < $1.setIndex } }
        for item in items where !isStopping {
            let set = plan.sets[item.setIndex]
            do throws(CacheError) {
                guard let entry = try cache.lookup(cache.location(forKey: item.key)),
                      case let missing = try missingVariants(set, of: entry, key: item.key), !missing.isEmpty else { continue }
                let made: [(VariantSpec, VariantMaker.Made)]
                let format = Self.sourceFormat(of: entry)
                do {
                    made = try VariantMaker.make(missing, fromFileAt: entry.path, format: format)
                } catch {
                    let failure = transformFailure(item, error)
                    board.failLater(set: item.setIndex, failure)
                    log.record(.failed(failure))
                    continue
                }
                try storeVariants(made, key: item.key, format: format, url: item.shownURL, set: set)
            } catch {
                stop(for: error)
            }
        }
    }

    /// A variant that could not be made from a cached original: reported, not ledgered (the original
    /// is not the network's failure, and the next run tries again).
    private func failTransform(_ item: PlanItem, _ claim: KeyClaim, _ error: VariantError) {
        let failure = transformFailure(item, error)
        board.settle(claim, .failed(failure))
        log.record(.failed(failure))
    }

    private func transformFailure(_ item: PlanItem, _ error: VariantError) -> RunFailure {
        RunFailure(url: item.shownURL, set: plan.sets[item.setIndex].name, reason: error.reason, httpStatus: nil, attempts: 0,
                   message: error.description)
    }
}
