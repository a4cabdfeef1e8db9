import Foundation

/// One source cache folded into the merge's destination: originals first, then the variants of the
/// originals the destination now holds in the body they were made from, then the failure ledger and
/// the run history. Partial bodies (`tmp/*.resume`, the `partials` table) are left behind.
struct MergePass {
    let source: String
    let target: MergeTarget
    let options: CacheMerger.Options
    let onAction: (CacheMerger.Action) -> Void
    /// The originals taken from this source, by relative path.
    private var takenOriginals: Set<String> = []

    init(source: String, target: MergeTarget, options: CacheMerger.Options, onAction: @escaping (CacheMerger.Action) -> Void) {
        self.source = source
        self.target = target
        self.options = options
        self.onAction = onAction
    }

    mutating func run(into report: inout MergeReport) throws(MergeError) {
        let index = try merging { () throws(CacheError) in try CacheIndex.openSnapshot(root: source) }
        let (entries, freshness, failures, runs) = try merging { () throws(CacheError) in
            (try index.allEntries(), try index.freshnessRows(), try index.failures(), try index.recentRuns(limit: Int.max))
        }
        let originals = entries.filter { $0.variantOf == nil }
        let checksums = Dictionary(originals.map { ($0.relativePath, $0.checksum) }) { first, _ in first }
        for entry in originals {
            if try take(entry, freshness: freshness[entry.relativePath], into: &report) { takenOriginals.insert(entry.relativePath) }
        }
        for variant in entries where variant.variantOf != nil {
            guard try madeFromHeldBody(variant, checksums: checksums) else {
                count(.strayVariant, variant, linked: false, into: &report)
                continue
            }
            _ = try take(variant, freshness: freshness[variant.relativePath], into: &report)
        }
        let taken = try target.take(failures: failures, runs: runs)
        report.failures += taken.failures
        report.runs += taken.runs
    }

    /// Whether the destination holds (or, taken now, will hold) the variant's original in the body the
    /// source made it from; a variant whose source kept no original (`keep_original: false`) goes alone.
    private func madeFromHeldBody(_ variant: CacheEntry, checksums: [String: String?]) throws(MergeError) -> Bool {
        guard let original = variant.variantOf, let checksum = checksums[original] else { return true }
        if takenOriginals.contains(original) { return true }
        return try target.stamp(relativePath: original).map { $0.checksum == checksum } ?? false
    }

    /// Adds or replaces `entry` in the destination when its fetch is newer than what is there; true
    /// when it did (or, dry, would).
    private func take(_ entry: CacheEntry, freshness: FreshnessRow?, into report: inout MergeReport) throws(MergeError) -> Bool {
        let existing = try target.stamp(relativePath: entry.relativePath)
        let planned = Self.decide(existing, entry)
        guard planned != .skip else {
            count(.skip, entry, linked: false, into: &report)
            return false
        }
        // Checked before the placement (and so in a dry run): a row whose file is gone or of another
        // size is not carried, nor one that would replace the destination's body unless its own bytes
        // are what its row says (a body changed behind the source's back never takes a sound one's place).
        var info = stat()
        guard stat(entry.path, &info) == 0, Int64(info.st_size) == entry.size,
              planned != .replace || Self.holdsItsChecksum(entry) else {
            count(.unreadable, entry, linked: false, into: &report)
            return false
        }
        guard let cache = target.cache else {
            if planned == .replace, entry.variantOf == nil, existing?.checksum != entry.checksum {
                try dropVariants(ofReplaced: entry, into: &report)
            }
            target.plan(entry)
            count(planned, entry, linked: !options.copy && device(of: entry.path) == target.device, into: &report)
            return true
        }
        var placed = entry
        placed.path = cache.root + "/" + entry.relativePath
        var decided = planned
        var linked = false
        var replacedBody: String?
        let taken = try merging { () throws(CacheError) in
            try cache.index.merge(placed, freshness: freshness, accept: {
                decided = Self.decide($0, entry)
                replacedBody = $0?.checksum
                return decided != .skip
            }, place: { () throws(CacheError) in
                linked = try BodyPlacement.place(entry.path, at: placed.path, in: cache, link: !options.copy)
            })
        }
        if taken, decided == .replace, entry.variantOf == nil, replacedBody != entry.checksum {
            try dropVariants(ofReplaced: entry, into: &report)
        }
        count(taken ? decided : .skip, entry, linked: linked, into: &report)
        return taken
    }

    /// The destination's variants of an original another body just replaced go: they were made from
    /// the body replaced (this source's own, made from the new body, come after the originals).
    private func dropVariants(ofReplaced original: CacheEntry, into report: inout MergeReport) throws(MergeError) {
        for variant in try target.dropVariants(ofReplaced: original.relativePath) {
            count(.strayVariant, variant, linked: false, into: &report)
        }
    }

    /// Whether `entry`'s file hashes to its row's checksum (a row without one is taken at its word).
    private static func holdsItsChecksum(_ entry: CacheEntry) -> Bool {
        guard let checksum = entry.checksum else { return true }
        return (try? ContentHasher.checksum(ofFileAt: entry.path)) == checksum
    }

    /// Add when the destination has no row, replace when its row's last fetch is older, else skip.
    static func decide(_ existing: EntryStamp?, _ incoming: CacheEntry) -> CacheMerger.Action.Kind {
        guard let existing else { return .add }
        return existing.modifiedAt < incoming.modifiedAt ? .replace : .skip
    }

    private func count(_ kind: CacheMerger.Action.Kind, _ entry: CacheEntry, linked: Bool, into report: inout MergeReport) {
        switch kind {
        case .add, .replace:
            if kind == .add { report.added += 1 } else { report.replaced += 1 }
            report.bytes += entry.size
            if linked { report.linked += 1 } else { report.copied += 1 }
        case .skip: report.skipped += 1
        case .unreadable: report.unreadable += 1
        case .strayVariant: report.strayVariants += 1
        }
        onAction(CacheMerger.Action(kind: kind, relativePath: entry.relativePath, bytes: entry.size, source: source, linked: linked))
    }

    private func device(of path: String) -> UInt64? {
        var info = stat()
        return stat(path, &info) == 0 ? UInt64(info.st_dev) : nil
    }
}
