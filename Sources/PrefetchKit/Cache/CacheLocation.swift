/// A cache key and where its file lives inside the cache folder (`DiskCache.location(forKey:)`).
public struct CacheLocation: Sendable, Equatable {
    public let key: String
    public let relativePath: String
}
