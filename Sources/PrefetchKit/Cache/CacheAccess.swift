import Foundation

/// What a command will do with an existing cache it opens by its folder (`DiskCache.openExisting`).
public enum CacheAccess: Sendable {
    /// Read and write it: fsck --repair, a run.
    case write
    /// Only read it: stats, verify, path, fsck without --repair, a dry-run clean. On a disk it cannot
    /// write to (mounted read-only, or full to the last byte) the index is read as a snapshot
    /// (`CacheIndex.openSnapshot`), and `path` does not record its use.
    case read
    /// Clean it: the cache's `SpaceReserve` is let go first.
    case clean
}

extension CacheError {
    /// True when the disk under the cache cannot take a write: mounted read-only, full, or over quota,
    /// or SQLite could not open, write or make the index's files.
    var isUnwritableDisk: Bool {
        switch self {
        case .fileSystem(_, _, let code): [EROFS, ENOSPC, EDQUOT].contains(code)
        case .index(_, let code, _): [8, 10, 13, 14].contains(code & 0xff)  // READONLY, IOERR, FULL, CANTOPEN
        case .layoutMismatch, .unreadableMarker, .tempFileClosed, .newerIndex, .indexNeedsUpgrade: false
        }
    }
}
