import Foundation

/// The cache folder of commands that take `--cache DIR` without a job file:
/// `--cache`, else `$PREFETCHD_CACHE_DIR`, else `.prefetchd-cache` in the current folder.
enum CacheLocation {
    static func resolve(_ arguments: ParsedArguments) -> String {
        let path = arguments.value("cache")
            ?? ProcessInfo.processInfo.environment["PREFETCHD_CACHE_DIR"].flatMap { $0.isEmpty ? nil : $0 }
            ?? ".prefetchd-cache"
        return URL(fileURLWithPath: path).standardizedFileURL.path
    }
}
