import Foundation

extension DiskCache {
    /// Opens the cache already at `path` with the layout its marker names; nil when `path` holds no
    /// prefetchd cache (maintenance commands must not create one).
    public static func openExisting(at path: String) throws(CacheError) -> DiskCache? {
        let root = URL(fileURLWithPath: path).standardizedFileURL.path
        guard let layout = try CacheMarker.existingLayout(root: root) else { return nil }
        return try open(at: root, layout: layout)
    }
}
