import Foundation

/// What an export takes from a cache: a job's keys or every entry, originals or one variant of them,
/// each to be named by its original's key.
package struct ExportSelection: Sendable {
    /// One file to export.
    package struct Item: Sendable, Equatable {
        /// The key the app looks it up by: the original's, also for a variant.
        package var key: String
        /// The cached file.
        package var source: String
        package var bytes: Int64
        package var width: Int?
        package var height: Int?
    }

    /// An entry left out, and why, as one line.
    package struct Skipped: Sendable, Equatable {
        package var what: String
        package var reason: String
    }

    package var items: [Item] = []
    /// Redacted URLs of the job that the cache does not hold (or lacks the variant of).
    package var missing: [String] = []
    package var skipped: [Skipped] = []

    /// The job's keys, once each, in plan order.
    package static func select(_ job: Job, from cache: DiskCache, variant: String?) throws(CacheError) -> ExportSelection {
        var selection = ExportSelection()
        var seen = Set<String>()
        for item in RunPlan(job: job) where seen.insert(item.key).inserted {
            let entry = if let variant {
                try cachedVariant(variant, ofKey: item.key, in: cache)
            } else {
                try present(cache.index.entry(relativePath: cache.relativePath(forKey: item.key)))
            }
            guard let entry else {
                selection.missing.append(item.shownURL)
                continue
            }
            selection.take(key: item.key, path: entry.path, size: entry.size, isImage: entry.format != nil,
                           width: entry.width, height: entry.height, shown: item.shownURL)
        }
        return selection
    }

    /// Every original the cache holds, or every original's variant `variant` (the newest, when the
    /// set's parameters changed). Partial downloads are not entries and are never taken.
    package static func selectAll(from cache: DiskCache, variant: String?) throws(CacheError) -> ExportSelection {
        var selection = ExportSelection()
        for path in try cache.index.keylessPaths() {
            selection.skipped.append(Skipped(what: path, reason: "no key (found by a rescan; a run gives it one)"))
        }
        for row in try cache.index.exportRows(variant: variant) {
            let key = variant == nil ? row.key : originalKey(ofVariantKey: row.key)
            let path = cache.root + "/" + row.relativePath
            guard isPresent(path, size: row.size) else {
                selection.skipped.append(Skipped(what: key, reason: "its file is gone"))
                continue
            }
            selection.take(key: key, path: path, size: row.size, isImage: row.isImage, width: row.width, height: row.height)
        }
        return selection
    }

    /// The key of the original a variant's key (`VariantSpec.key(forOriginal:)`) was made from.
    static func originalKey(ofVariantKey key: String) -> String {
        guard let marker = key.range(of: VariantSpec.keyMarker, options: .backwards) else { return key }
        return String(key[..<marker.lowerBound])
    }

    /// The newest variant `name` of the original under `key`, with its file there.
    private static func cachedVariant(_ name: String, ofKey key: String, in cache: DiskCache) throws(CacheError) -> CacheEntry? {
        try present(cache.variant(named: name, ofOriginalAt: cache.relativePath(forKey: key)))
    }

    /// `entry` when its file is there with its recorded size. Unlike `DiskCache.lookup`, a stale row
    /// is left as it is: an export only reads the cache.
    private static func present(_ entry: CacheEntry?) -> CacheEntry? {
        guard let entry, isPresent(entry.path, size: entry.size) else { return nil }
        return entry
    }

    private static func isPresent(_ path: String, size: Int64) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && Int64(info.st_size) == size
    }

    /// Takes the file at `path` under `key` when it is an image: a body stored without a check
    /// (`validate: none`) may be anything, and SDImageCache would fail to decode it.
    private mutating func take(key: String, path: String, size: Int64, isImage: Bool, width: Int?, height: Int?, shown: String? = nil) {
        guard isImage else {
            skipped.append(Skipped(what: shown ?? key, reason: "not known to be an image (stored with validate: none)"))
            return
        }
        items.append(Item(key: key, source: path, bytes: size, width: width, height: height))
    }
}
