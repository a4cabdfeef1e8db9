/// Finding entries by the URL their runs stored, not by their cache key (`path`).
extension DiskCache {
    /// The absolute paths of the cached files whose stored URL is one of `urls`, each present with
    /// its recorded size (a stale row is dropped), in row order; each counts as a use.
    package func paths(forStoredURLs urls: [String]) throws(CacheError) -> [String] {
        var paths: [String] = []
        for key in try index.keys(storedURLs: urls) {
            if let path = try path(forKey: key) { paths.append(path) }
        }
        return paths
    }
}
