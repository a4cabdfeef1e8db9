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

    /// Allocates the reserve when it is not all there; where the disk has no room for it, leaves none
    /// (never a part) and returns false.
    @discardableResult
    static func restore(root: String) -> Bool {
        let path = path(root: root)
        var info = stat()
        if stat(path, &info) == 0 && Int64(info.st_blocks) * 512 >= size { return true }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        guard posix_fallocate(descriptor, 0, off_t(size)) == 0 else {
            unlink(path)
            return false
        }
        return true
    }
}
