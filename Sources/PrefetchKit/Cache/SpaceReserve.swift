import Foundation

/// Disk space held back for `clean`: a file of `size` allocated bytes, `tmp/clean.reserve`, made with
/// the cache and again after every clean. A clean lets it go before it opens the index, so on a disk
/// that a run (or anything else) filled to the last byte it still has room to open the index, write its
/// first batch's journal and unlink that batch's files, which then free far more.
///
/// On a copy-on-write file system that does not reserve blocks for `fallocate` (ZFS) the file holds no
/// space; nothing else depends on it.
public enum SpaceReserve {
    static let name = "clean.reserve"
    /// Room for the index's shared-memory file, a 4,000-path journal and a batch's first index pages.
    static let size: Int64 = 2 << 20

    static func path(root: String) -> String { root + "/tmp/" + name }

    /// Frees the reserve of the cache at `root`, when there is one.
    public static func release(root: String) {
        unlink(path(root: root))
    }

    /// Allocates the reserve when it is not all there; where that fails (no room on the disk, or
    /// something else by that name), leaves no part of a reserve and throws why.
    static func restore(root: String) throws(CacheError) {
        let path = path(root: root)
        var info = stat()
        if lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG && Int64(info.st_blocks) * 512 >= size { return }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw .fromErrno("create", path) }
        defer { close(descriptor) }
        let code = posix_fallocate(descriptor, 0, off_t(size))
        guard code == 0 else {
            unlink(path)
            throw .fileSystem(operation: "allocate \(ByteFormat.human(size)) for", path: path, errno: code)
        }
    }
}
