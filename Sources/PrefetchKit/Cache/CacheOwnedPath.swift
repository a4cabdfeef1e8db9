import Foundation

/// The places in a cache folder that are the cache's own: a file written there by hand (a report, a
/// stats file) would replace the index, its marker or lock, or a cached body, or be taken for one of
/// them by the next clean or fsck. Anything else in the folder, such as a file of another name at its
/// top, the cache leaves alone.
package enum CacheOwnedPath {
    /// The cache's own names at the top of its folder, in either layout.
    static let rootNames: Set<String> = [
        "index.sqlite", "index.sqlite-wal", "index.sqlite-shm", "index.sqlite-journal", "CACHEDIR.TAG", "clean.lock", "tmp",
    ]

    /// Why the output file `path`, given as `--option`, may not be written for the cache at `root`
    /// (`isOwned`); nil when it may. `-` is standard output, never a place of the cache.
    package static func refusal(option: String, path: String, root: String) -> String? {
        guard path != "-" else { return nil }
        return refusal(naming: "--\(option) \(path)", path: path, root: root)
    }

    /// Why `path`, called `naming` in the message (`DST path`), may not be written for the cache at
    /// `root`; nil when it may.
    package static func refusal(naming: String, path: String, root: String) -> String? {
        guard isOwned(path, root: root) else { return nil }
        return "\(naming) is where the cache \(root) keeps its own files; write it elsewhere"
    }

    /// Why a folder to be made at `path`, called `naming` in the message, may not go there: it is one
    /// of the own places of a cache in a folder above it (a fan-out folder, `tmp/`), where a clean,
    /// fsck or store would take its files for the cache's. Nil when no folder above `path` holds a cache.
    package static func enclosingCacheRefusal(naming: String, path: String) -> String? {
        var folder = (ResolvedPath.of(path) as NSString).deletingLastPathComponent
        while !folder.isEmpty {
            if (try? CacheMarker.recordedLayout(root: folder)) != nil, let refusal = refusal(naming: naming, path: path, root: folder) {
                return refusal
            }
            guard folder != "/" else { break }
            folder = (folder as NSString).deletingLastPathComponent
        }
        return nil
    }

    /// True when `path` is the cache folder `root` itself or one of its own places in either layout:
    /// a name of `rootNames` or an index set aside (`index.sqlite...`), anything under `tmp/` or a
    /// fan-out folder (`ab/`), or a body named as the SDWebImage layout names them.
    static func isOwned(_ path: String, root: String) -> Bool {
        let path = ResolvedPath.of(path), root = ResolvedPath.of(root)
        guard path != root else { return true }
        let top = root.hasSuffix("/") ? root : root + "/"
        guard path.hasPrefix(top) else { return false }
        let components = path.dropFirst(top.count).split(separator: "/", omittingEmptySubsequences: true)
        guard let first = components.first.map(String.init) else { return true }
        if rootNames.contains(first) || first.hasPrefix("index.sqlite") { return true }
        if first.utf8.count == 2 && DiskCache.isLowerHex(first) { return true }
        return components.count == 1 && DiskCache.isSDWebImageName(first)
    }
}
