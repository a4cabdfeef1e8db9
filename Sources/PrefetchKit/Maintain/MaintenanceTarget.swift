import Foundation

/// Which cache a maintenance command works on, from `--cache DIR` or the environment.
package enum MaintenanceTarget {
    /// `--cache DIR`, else `$PREFETCHD_CACHE_DIR`, else `.prefetchd-cache`, as an absolute path.
    package static func cacheFolder(option: String?, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        URL(fileURLWithPath: option ?? CacheSettings.defaultPath(environment: environment)).standardizedFileURL.path
    }

    /// Opens the existing cache at `folder` `for` what the command will do with it; a folder without a
    /// cache is an error (nothing is created).
    package static func open(_ folder: String, for access: CacheAccess) throws(MaintenanceError) -> DiskCache {
        guard let cache = try wrap({ () throws(CacheError) in try DiskCache.openExisting(at: folder, for: access) }) else {
            throw .noCache(path: folder)
        }
        return cache
    }
}

extension MaintenanceTarget {
    /// The stats of the existing cache at `folder`, its recorded limits under `overrides`.
    package static func stats(_ folder: String, overrides: LimitOverrides) throws(MaintenanceError) -> CacheStats {
        let cache = try open(folder, for: .read)
        return try wrap { () throws(CacheError) in try CacheStats.collect(from: cache, overrides: overrides) }
    }

    /// The limits a clean of `cache` applies: those its runs recorded under `overrides`.
    package static func limits(of cache: DiskCache, _ overrides: LimitOverrides) throws(MaintenanceError) -> ResolvedLimits {
        try wrap { () throws(CacheError) in ResolvedLimits(recorded: try cache.index.recordedLimits(), overrides: overrides) }
    }

    /// Writes a report file atomically.
    package static func write(_ text: String, to path: String) throws(MaintenanceError) {
        do {
            try AtomicFile.write(Data(text.utf8), to: path)
        } catch {
            throw .output(error.description)
        }
    }
}
