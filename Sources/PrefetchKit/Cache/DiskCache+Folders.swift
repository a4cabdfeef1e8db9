import Foundation
internal import Glibc

/// The cache's own folders: `tmp/` and, in the native layout, the fan-out folders. A symbolic link put
/// in the place of one could lead a store, the index or a removal outside the cache, so nothing is
/// read, written or removed through it: it is damage that `fsck` reports and `fsck --repair`
/// replaces, and that every other command that reads or writes the cache's files refuses (`run`,
/// `clean`, `remove`, `path`, `verify`, `export`, `merge`, its sources and its destination). A plain file in a folder's place leads nowhere: a
/// store into it fails and says so; `fsck` reports it too, and `--repair` puts a folder there.
extension DiskCache {
    /// The names of the cache's own folders that are symbolic links, with where each points.
    func linkedFolders() -> [(name: String, what: String)] {
        Self.linkedFolders(root: root, layout: layout)
    }

    private static func linkedFolders(root: String, layout: CacheLayout) -> [(name: String, what: String)] {
        ownFolders(ofType: S_IFLNK, root: root, layout: layout).map { name in
            let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: root + "/" + name)) ?? "?"
            return (name, "a symbolic link to \(oneLine(target))")
        }
    }

    /// The names of the cache's own folders that are plain files.
    func foldersThatAreFiles() -> [String] {
        Self.ownFolders(ofType: S_IFREG, root: root, layout: layout)
    }

    /// The cache's own folders (`tmp` and the native layout's fan-out folders) that are there as an
    /// object of `type` (`S_IFLNK`, `S_IFREG`), not as a folder.
    private static func ownFolders(ofType type: mode_t, root: String, layout: CacheLayout) -> [String] {
        let names = ["tmp"] + (layout == .native ? CacheFileNaming.nativeFolders : [])
        return names.filter { name in
            var info = stat()
            return lstat(root + "/" + name, &info) == 0 && (info.st_mode & S_IFMT) == type
        }
    }

    /// Throws when any of the cache's own folders is a symbolic link.
    package func refuseLinkedFolders() throws(CacheError) {
        try Self.refuseLinkedFolders(root: root, layout: layout)
    }

    /// Throws when any of the own folders of the cache at `root`, made with `layout`, is a symbolic
    /// link: for a command that reads the cache's index only as a snapshot (a merge's source).
    package static func refuseLinkedFolders(root: String, layout: CacheLayout) throws(CacheError) {
        if let first = linkedFolders(root: root, layout: layout).first {
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

    /// Puts a real, empty folder in the place of `name`: the link (or plain file) is removed, never what
    /// a link points at.
    func replaceLinkedFolder(_ name: String) throws(CacheError) {
        let path = root + "/" + name
        guard unlink(path) == 0 || errno == ENOENT else { throw .fromErrno("remove", path) }
        try Self.makeDirectory(path)
    }
}
