import Foundation

/// Disk space and inodes held back for `clean`: a file of `size` allocated bytes, `tmp/clean.reserve`,
/// and `inodeFiles` empty files beside it, `tmp/clean.reserve-1`..., made with the cache and again after
/// every clean. A clean lets them go before it opens the index, so on a disk that a run (or anything
/// else) filled to the last byte, or to the last inode (many small files), it still has room to make the
/// index's `-wal` and `-shm` files and its lock, write its first batch's journal and unlink that batch's
/// files, which then free far more.
///
/// On a copy-on-write file system that does not reserve blocks for `fallocate` (ZFS) the file holds no
/// space; nothing else depends on it.
package enum SpaceReserve {
    static let name = "clean.reserve"
    /// Room for the index's shared-memory file, a 4,000-path journal and a batch's first index pages.
    static let size: Int64 = 2 << 20
    /// One inode each for the index's `-wal` and `-shm`, `clean.lock` and a journal.
    static let inodeFiles = 4

    /// The reserve's file names in `tmp/`: the space first, then the inode holders.
    static let names = [name] + (1...inodeFiles).map { "\(name)-\($0)" }

    static func path(root: String, _ name: String = name) -> String { root + "/tmp/" + name }

    /// Frees the reserve of the cache at `root`, as much of it as is there; nothing when `tmp/` is not
    /// a real folder (a link leads elsewhere: `DiskCache+Folders`).
    package static func release(root: String) {
        guard DiskCache.isRealFolder(root + "/tmp") else { return }
        for name in names { unlink(path(root: root, name)) }
    }

    /// Makes the reserve whole where it is not; where that fails (no room on the disk, or something else
    /// under one of its names), leaves no part of the space file and throws why.
    package static func restore(root: String) throws(CacheError) {
        guard DiskCache.isRealFolder(root + "/tmp") else {
            throw .linkedFolder(path: root + "/tmp", what: "not a real folder")
        }
        for name in names.dropFirst() {
            let descriptor = open(path(root: root, name), O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
            guard descriptor >= 0 else { throw .fromErrno("create", path(root: root, name)) }
            close(descriptor)
        }
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
