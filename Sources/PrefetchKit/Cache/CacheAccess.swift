import Foundation

/// What a command will do with an existing cache it opens by its folder (`DiskCache.openExisting`).
package enum CacheAccess: Sendable {
    /// Read and write it: fsck --repair, a run.
    case write
    /// Only read it: stats, verify, path, fsck without --repair, a dry-run clean. On a disk it cannot
    /// write to (mounted read-only, or full to the last byte), or in a folder this user may read but
    /// not write, the index is read as a snapshot (`CacheIndex.openSnapshot`), and `path` does not
    /// record its use.
    case read
    /// Clean it: the cache's `SpaceReserve` is let go first.
    case clean
}
