/// How cached files are named on disk (`cache.layout:`).
package enum CacheLayout: String, Sendable, CaseIterable, Codable {
    /// Fanned out into subfolders by hash prefix.
    case native
    /// Flat MD5(key)+extension names, as SDImageCache writes them.
    case sdwebimage
}
