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
            let entry = if let variant { try cachedVariant(variant, ofKey: item.key, in: cache) } else { try cache.lookup(key: item.key) }
            guard let entry else {
                selection.missing.append(item.shownURL)
                continue
            }
            selection.take(entry, as: item.key, shown: item.shownURL)
        }
        return selection
    }

    /// Every original the cache holds, or every original's variant `variant`. Partial downloads are
    /// not entries and are never taken.
    package static func selectAll(from cache: DiskCache, variant: String?) throws(CacheError) -> ExportSelection {
        var selection = ExportSelection()
        var newest: [String: CacheEntry] = [:]
        for entry in try cache.index.allEntries() {
            guard let key = entry.key else {
                selection.skipped.append(Skipped(what: entry.relativePath, reason: "no key (found by a rescan; a run gives it one)"))
                continue
            }
            guard entry.variant == variant else { continue }
            let original = variant == nil ? key : originalKey(ofVariantKey: key)
            if let kept = newest[original], kept.modifiedAt >= entry.modifiedAt { continue }
            newest[original] = entry
        }
        for key in newest.keys.sorted() {
            let entry = newest[key]!
            guard let present = try cache.lookup(CacheLocation(key: entry.key ?? key, relativePath: entry.relativePath)) else {
                selection.skipped.append(Skipped(what: entry.url ?? key, reason: "its file is gone"))
                continue
            }
            selection.take(present, as: key, shown: entry.url ?? key)
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
        guard let row = try cache.variant(named: name, ofOriginalAt: cache.relativePath(forKey: key)), let variantKey = row.key else {
            return nil
        }
        return try cache.lookup(CacheLocation(key: variantKey, relativePath: row.relativePath))
    }

    /// Takes `entry` under `key` when it is an image: a body stored without a check (`validate: none`)
    /// may be anything, and SDImageCache would fail to decode it.
    private mutating func take(_ entry: CacheEntry, as key: String, shown: String) {
        guard entry.format != nil else {
            skipped.append(Skipped(what: shown, reason: "not known to be an image (stored with validate: none)"))
            return
        }
        items.append(Item(key: key, source: entry.path, bytes: entry.size, width: entry.width, height: entry.height))
    }
}
