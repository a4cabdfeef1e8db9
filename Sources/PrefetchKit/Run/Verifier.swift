import Foundation

/// `prefetchd verify`: is every URL of a job cached and fresh? Reads the index and each file's
/// size: no network, no writes (a row whose file is gone is reported missing and left for a run or
/// `fsck` to drop), not counted as a use.
package enum Verifier {
    package struct Finding: Sendable, Equatable {
        package enum Kind: String, Sendable { case missing, stale }
        package var kind: Kind
        /// Redacted.
        package var url: String
        /// The name of the set's variant that is missing or stale; nil for the original.
        package var variant: String? = nil

        /// `missing URL`, or `missing URL variant NAME`: one line of `verify`'s output.
        package var line: String {
            "\(kind.rawValue) \(url)" + (variant.map { " variant \($0)" } ?? "")
        }
    }

    package struct Result: Sendable {
        /// URL occurrences of the job.
        package var urls = 0
        /// Distinct keys checked: each fresh, missing (its original or a variant missing) or stale.
        package var checked = 0
        package var fresh = 0
        package var missing = 0
        package var stale = 0
        /// One a line of output: a key missing with two variants has three.
        package var findings: [Finding] = []
    }

    /// Distinct keys looked up in the index by one query.
    static let batchSize = 512

    /// Batches looked up at once, each on a thread of its own.
    static let lookups = 2

    /// The keys the table of keys seen is sized for at the start, at the most (a job's URLs up to
    /// this; a larger job's table grows from there): each growth copies the table into new pages.
    static let seenReserved = 1 << 20

    /// A job's URLs as a share of the index's rows (one in `everyRowShare`) from which `verify` reads
    /// every original once rather than looking up each key.
    static let everyRowShare = 4

    /// Checks `job` against the cache at `cachePath` (the job's own when nil); nil when the folder
    /// holds no cache (which `verify` reports as every command does, not as every URL missing).
    /// `report` is called per finding, in the plan's order, as each batch of keys is checked. Batches'
    /// rows are read and their files checked on `lookups` threads (two batches at once, whose file
    /// checks wait on the kernel apart) while the next batch is gathered and the oldest judged (its
    /// entries held to the job). A job that asks for a large share of the rows (`readsEveryRow`) has
    /// every original read first, in one pass, and its batches find their rows among those.
    package static func verify(_ job: Job, cachePath: String? = nil, now: Date = Date(),
                              report: (Finding) -> Void) throws(CacheError) -> Result? {
        guard let cache = try DiskCache.openExisting(at: cachePath ?? job.cache.path, for: .read) else { return nil }
        try cache.refuseLinkedFolders()
        // A plan item's set index is its place in the plan's sets, which go by priority.
        let plan = RunPlan(job: job)
        let rows = try cache.index.totals("all").first?.entries ?? 0
        let originals = readsEveryRow(urls: plan.count, rows: rows) ? try cache.index.originalBodies(rows: rows) : nil
        // Keys looked up one at a time read the index through a memory map; one pass reads each page
        // once, in order, where a map would keep every page in the resident set.
        if originals == nil { try cache.index.mapForReading() }
        var result = Result()
        var seen = StringTable(placeholder: (), capacity: min(plan.count, seenReserved), bytesEach: 64)
        let asks = askGroups(plan.sets)
        var batch: [PlanItem] = []
        batch.reserveCapacity(batchSize)
        let reader = WorkerPool(name: "prefetchd.verify.read", width: lookups)
        var pending: [Lookup] = []
        func judgeOldest() throws(CacheError) {
            try pending.removeFirst().judge(of: plan.sets, maxAge: job.cache.maxAge, in: cache, now: now, into: &result, report: report)
        }
        for item in plan {
            result.urls += 1
            let ask = asks[item.setIndex]
            guard seen.insert(ask == 0 ? item.key : item.key + "\u{0}" + String(ask), ()) else { continue }
            batch.append(item)
            guard batch.count == batchSize else { continue }
            pending.append(Lookup(batch, of: plan.sets, in: cache, among: originals, on: reader))
            if pending.count > lookups { try judgeOldest() }
            batch.removeAll(keepingCapacity: true)
        }
        pending.append(Lookup(batch, of: plan.sets, in: cache, among: originals, on: reader))
        while !pending.isEmpty { try judgeOldest() }
        return result
    }

    /// For each set, the first set that asks the same of a key (the original kept or not, the same
    /// variants, the same refresh policy): a key is judged once for each such group of sets that lists
    /// it, so a set that asks for variants another set of the same URL does not is held to them.
    /// (A key judged for two groups counts as two of the keys checked.)
    static func askGroups(_ sets: [JobSet]) -> [Int] {
        sets.map { set in
            sets.firstIndex { other in
                other.options.keepOriginal == set.options.keepOriginal && other.options.variants == set.options.variants
                    && other.options.refresh == set.options.refresh
            }!
        }
    }

    /// Whether a job of `urls` asks for so large a share of an index's `rows` that reading every
    /// original once (`CacheIndex.originalBodies(rows:)`) costs less than looking its keys up: one in
    /// `everyRowShare` or more. The rows read are held, about 120 bytes each, so a small job over a
    /// large cache looks its keys up.
    static func readsEveryRow(urls: Int, rows: Int) -> Bool {
        urls * everyRowShare >= rows
    }

    /// One batch of distinct keys, their originals' rows read by one index query (or found among
    /// every original read first) and their files checked on another thread.
    private struct Lookup {
        let batch: [PlanItem]
        let bodies: PendingResult<[StoredBody?], CacheError>

        init(_ batch: [PlanItem], of sets: [JobSet], in cache: DiskCache, among originals: StringTable<StoredBody>?,
             on reader: WorkerPool) {
            self.batch = batch
            // The file names are worked out, the rows read and the files checked there; the entries are
            // held to the job in `judge`.
            let keys = batch.filter { sets[$0.setIndex].options.keepOriginal }.map(\.key)
            bodies = PendingResult(on: reader) { () throws(CacheError) in
                try cache.presentBodies(keys.map(cache.location(forKey:)), among: originals)
            }
        }

        /// Judges each key of the batch once its rows are read and its files checked.
        func judge(of sets: [JobSet], maxAge: Duration, in cache: DiskCache, now: Date,
                   into result: inout Result, report: (Finding) -> Void) throws(CacheError) {
            var bodies = try bodies.wait().makeIterator()
            for item in batch {
                result.checked += 1
                let options = sets[item.setIndex].options
                var found: [Finding] = []
                if options.keepOriginal {
                    if let body = bodies.next() ?? nil {
                        let freshness = options.refresh == .http
                            ? try cache.index.freshness(relativePath: cache.relativePath(forKey: item.key), modifiedAt: body.modifiedAt)
                            : .unknown
                        if CacheDecision.isStale(modifiedAt: body.modifiedAt, refresh: options.refresh, freshness: freshness,
                                                 maxAge: maxAge, now: now) {
                            found.append(Finding(kind: .stale, url: item.shownURL))
                        }
                    } else {
                        found.append(Finding(kind: .missing, url: item.shownURL))
                    }
                }
                for spec in options.variants where try !hasVariant(spec, ofKey: item.key, in: cache) {
                    found.append(Finding(kind: .missing, url: item.shownURL, variant: spec.name))
                }
                for finding in found {
                    result.findings.append(finding)
                    report(finding)
                }
                if found.isEmpty {
                    result.fresh += 1
                } else if found.contains(where: { $0.kind == .missing }) {
                    result.missing += 1
                } else {
                    result.stale += 1
                }
            }
        }
    }

    /// Whether the variant `spec` of the original under `key` is stored as the set now asks for it
    /// (its key carries every parameter), with its file there at its recorded size.
    private static func hasVariant(_ spec: VariantSpec, ofKey key: String, in cache: DiskCache) throws(CacheError) -> Bool {
        guard let row = try cache.variant(of: spec, originalKey: key), let wanted = row.key else { return false }
        return try cache.lookup(CacheLocation(key: wanted, relativePath: row.relativePath), droppingGoneRows: false) != nil
    }
}
