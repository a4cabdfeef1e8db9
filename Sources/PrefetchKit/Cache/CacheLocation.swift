/// A cache key and where its file lives inside the cache folder (`DiskCache.location(forKey:)`).
package struct CacheLocation: Sendable, Equatable {
    package let key: String
    package let relativePath: String
}
