import PrefetchKit

/// The words and exit status of a cache a command cannot use, the same in every command that needs
/// an existing one (`path`, `fsck`, `verify`, `stats`, `clean`, `remove`, `export`, a `merge` source): exit 3 with
/// `prefetchd COMMAND: no cache at DIR`, `prefetchd COMMAND: is a file, not a cache folder: DIR`,
/// or `prefetchd COMMAND: cache DIR: what failed`.
enum CacheFailure {
    static func noCache(_ command: String, at folder: String, into diagnostics: Diagnostics) {
        diagnostics.report(.environment, "prefetchd \(command): \(MaintenanceError.noCache(path: folder))")
    }

    static func report(_ command: String, cacheAt folder: String, _ error: CacheError, into diagnostics: Diagnostics) {
        if case .notAFolder = error {
            diagnostics.report(.environment, "prefetchd \(command): \(error)")
        } else {
            diagnostics.report(.environment, "prefetchd \(command): cache \(folder): \(error)")
        }
    }
}
