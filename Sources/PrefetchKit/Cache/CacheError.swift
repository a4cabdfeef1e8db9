import Foundation
internal import CSQLite

/// Everything that can go wrong in the disk cache, its index and its checker.
package enum CacheError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A file-system call failed; `operation` names it, `errno` is the system's reason.
    case fileSystem(operation: String, path: String, errno: Int32)
    /// Something other than a folder (a file) is where the cache folder should be.
    case notAFolder(path: String)
    /// The cache folder was made with another layout than the one asked for.
    case layoutMismatch(path: String, existing: CacheLayout, requested: CacheLayout)
    /// The layout marker exists but cannot be understood.
    case unreadableMarker(path: String)
    /// SQLite refused an operation; `message` is `sqlite3_errmsg`.
    case index(operation: String, code: Int32, message: String)
    /// A temp file was committed twice, or written after its commit.
    case tempFileClosed(path: String)
    /// The index was written by a newer prefetchd: it is left as it is, never rebuilt.
    case newerIndex(path: String, version: Int)
    /// The index was written by a pre-release prefetchd (an earlier schema): it is left as it is.
    case retiredIndex(path: String, version: Int)
    /// One of the cache's own folders (`tmp/`, a fan-out folder) is a symbolic link.
    case linkedFolder(path: String, what: String)
    /// The index must be upgraded to be read, and its disk cannot be written to.
    case indexNeedsUpgrade(path: String, version: String)

    /// True when the error will not pass by itself: a full disk or quota, a file-size limit, an I/O
    /// error, a read-only file system, or any index error but a lock held by another connection.
    package var isLasting: Bool {
        switch self {
        case .index: !isBusy
        case .fileSystem(_, _, let code): [ENOSPC, EDQUOT, EFBIG, EIO, EROFS].contains(code)
        case .notAFolder, .layoutMismatch, .unreadableMarker, .tempFileClosed, .newerIndex, .retiredIndex, .linkedFolder, .indexNeedsUpgrade: false
        }
    }

    /// True when the disk (or quota) had no room: a write's ENOSPC or EDQUOT, or the index's SQLITE_FULL.
    var isDiskFull: Bool {
        switch self {
        case .index(_, let code, _): code & 0xff == 13  // SQLITE_FULL
        case .fileSystem(_, _, let code): code == ENOSPC || code == EDQUOT
        case .notAFolder, .layoutMismatch, .unreadableMarker, .tempFileClosed, .newerIndex, .retiredIndex, .linkedFolder, .indexNeedsUpgrade: false
        }
    }

    /// A file or folder this user may not make or change (a cache folder another user owns, readable
    /// but not writable by this one).
    var isPermissionDenied: Bool {
        if case .fileSystem(_, _, let code) = self { return code == EACCES || code == EPERM }
        return false
    }

    /// True when the disk under the cache cannot take a write: full or over quota, mounted read-only,
    /// or SQLite could not open, write or make the index's files.
    var isUnwritableDisk: Bool {
        if isDiskFull { return true }
        switch self {
        case .fileSystem(_, _, let code): return code == EROFS
        case .index(_, let code, _): return [8, 10, 14].contains(code & 0xff)  // READONLY, IOERR, CANTOPEN
        case .notAFolder, .layoutMismatch, .unreadableMarker, .tempFileClosed, .newerIndex, .retiredIndex, .linkedFolder, .indexNeedsUpgrade: return false
        }
    }

    package var description: String {
        switch self {
        case .fileSystem(let operation, let path, let code):
            "Could not \(operation) \(path): \(String(cString: strerror(code)))."
        case .notAFolder(let path):
            "is a file, not a cache folder: \(path)"
        case .layoutMismatch(let path, let existing, let requested):
            "The cache at \(path) uses the \(existing.rawValue) layout, not \(requested.rawValue)."
        case .unreadableMarker(let path):
            "The cache marker \(path) does not name a known layout."
        case .index where isDamagedIndex:
            "\(indexFailure) `prefetchd fsck --repair` sets the damaged index aside and makes it again from the files."
        case .index:
            indexFailure
        case .tempFileClosed(let path):
            "The temp file \(path) was already committed or discarded."
        case .newerIndex(let path, let version):
            "The cache index \(path) has schema version \(version), newer than this prefetchd reads "
                + "(\(IndexConnection.schemaVersion)); nothing was changed: use a newer prefetchd."
        case .linkedFolder(let path, let what):
            "The cache's own folder \(path) is \(what); nothing was changed, and nothing is read, written or removed "
                + "through it: prefetchd fsck --repair puts a real folder in its place."
        case .retiredIndex(let path, let version):
            "The cache index \(path) has schema version \(version), written by a pre-release prefetchd; this one "
                + "reads version \(IndexConnection.schemaVersion) and upgrades versions from \(IndexMigration.upgradable) on. Nothing was changed: move the index aside to "
                + "have it rebuilt from the files (its URLs, sets, failure ledger and runs are then lost)."
        case .indexNeedsUpgrade(let path, let version):
            "The cache index \(path) has schema version \(version), which must be upgraded to be read, and its disk "
                + "cannot be written to."
        }
    }

    /// The index file is damaged (SQLite found a page it cannot read as what it should be) or is not a
    /// database at all: it will not read better a second time.
    package var isDamagedIndex: Bool {
        guard case .index(_, let code, _) = self else { return false }
        return code & 0xff == SQLITE_CORRUPT || code & 0xff == SQLITE_NOTADB
    }

    /// What an index error says, without the advice a damaged index adds.
    var indexFailure: String {
        guard case .index(let operation, let code, let message) = self else { return description }
        return "The cache index failed to \(operation): \(message) (SQLite code \(code))."
    }

    /// The error for the failed system call that just set `errno`.
    static func fromErrno(_ operation: String, _ path: String) -> CacheError {
        .fileSystem(operation: operation, path: path, errno: errno)
    }
}
