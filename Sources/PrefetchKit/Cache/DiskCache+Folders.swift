import Foundation
internal import Glibc

/// The cache's own folders: `tmp/` and, in the native layout, the fan-out folders. A symbolic link put
/// in the place of one could lead a store, the index or a removal outside the cache, so nothing is
/// read, written or removed through it: it is damage that `fsck` reports and `fsck --repair`
/// replaces, and that `run` and `clean` refuse. A plain file in a folder's place is the same damage:
/// every store into that folder would fail, and fsck would find nothing there to check.
extension DiskCache {
    /// The names of the cache's own folders that are not real folders: a symbolic link, with where it
    /// points, or a file. (A folder that is missing is made again when it is needed.)
    func linkedFolders() -> [(name: String, what: String)] {
        let names = ["tmp"] + (layout == .native ? CacheFileNaming.nativeFolders : [])
        return names.compactMap { name -> (name: String, what: String)? in
            var info = stat()
            guard lstat(root + "/" + name, &info) == 0 else { return nil }
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                return nil
            case S_IFLNK:
                let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: root + "/" + name)) ?? "?"
                return (name, "a symbolic link to \(oneLine(target))")
            default:
                return (name, "a file, not a folder")
            }
        }
    }

    /// Throws when any of the cache's own folders is a symbolic link or a file.
    package func refuseLinkedFolders() throws(CacheError) {
        if let first = linkedFolders().first {
            throw .linkedFolder(path: root + "/" + first.name, what: first.what)
        }
    }

    /// Whether `relativePath` names one of the cache's folders as a real folder (not a link).
    func isRealFolder(_ relativePath: String) -> Bool {
        Self.isRealFolder(root + "/" + relativePath)
    }

    /// Whether `path` is a folder itself, not a link to one.
    static func isRealFolder(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Puts a real, empty folder in the place of `name`: the link (or file) is removed, never what a
    /// link points at.
    func replaceLinkedFolder(_ name: String) throws(CacheError) {
        let path = root + "/" + name
        guard unlink(path) == 0 || errno == ENOENT else { throw .fromErrno("remove", path) }
        try Self.makeDirectory(path)
    }
}
