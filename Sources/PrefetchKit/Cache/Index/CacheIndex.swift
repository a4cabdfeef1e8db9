internal import CSQLite
import Foundation

/// The SQLite index at `<cache>/index.sqlite`: entries, the failure ledger, runs and meta.
/// A cache of the truth on disk: `DiskCache.open` rebuilds it from the files when it is missing or corrupt.
/// Writes are batched into one transaction; `flush()` commits them.
package final class CacheIndex: Sendable {
    /// The index file.
    package let path: String
    /// The cache folder the entries' relative paths start from.
    let root: String
    /// Used only with `lock` held.
    private nonisolated(unsafe) let connection: IndexConnection
    private let lock = PlainLock()
    /// A second connection for lookups that need only committed rows (`withReader`); WAL lets it
    /// read beside the batch transaction. Opened on first use; used only with `readerLock` held.
    private nonisolated(unsafe) var reader: IndexConnection?
    private let readerLock = PlainLock()
    /// The connection's uses not yet written, recorded without its lock (`touch`).
    let uses: IndexPendingUses
    /// Writes the uses once `IndexPendingUses.due` of them wait, beside the thread recording them.
    let useWriter = DispatchQueue(label: "prefetchd.uses")

    /// How `openSnapshot` opened the index, read-only; nil for an index opened for writing.
    private let snapshotAccess: IndexDatabase.Access?
    /// Opened read-only by `openSnapshot`: uses of entries are not recorded.
    package var isSnapshot: Bool { snapshotAccess != nil }

    private init(path: String, root: String, connection: sending IndexConnection, snapshotAccess: IndexDatabase.Access? = nil) {
        self.path = path
        self.root = root
        self.uses = connection.uses
        self.connection = connection
        self.snapshotAccess = snapshotAccess
    }

    /// What opening an index found.
    struct Opening {
        let index: CacheIndex
        /// The index had to be created anew: missing, empty, not a database, or of an unknown schema.
        let rebuilt: Bool
        /// Where an index that could not be used was set aside, with why, before one was made anew.
        let setAside: (path: String, reason: String)?
    }

    /// Opens the index of the cache folder `root`; one that cannot be used is set aside, never deleted,
    /// as is one found `damaged` deeper inside than opening reads (`fsck --repair`; the reason given).
    static func open(
        root: String, batchRows: Int = 256, batchInterval: TimeInterval = 0.25, damaged: String? = nil
    ) throws(CacheError) -> Opening {
        let path = root + "/index.sqlite"
        let opened: (database: IndexDatabase, created: Bool)
        var setAside: (path: String, reason: String)?
        if let damaged { setAside = (try setIndexFilesAside(path), damaged) }
        do {
            opened = try openChecked(path)
        } catch let error where error.isDamagedIndex {
            setAside = (try setIndexFilesAside(path), String(error.indexFailure.dropLast()))
            opened = try openChecked(path)
        }
        let database = opened.database
        let connection = IndexConnection(database: database, batchRows: batchRows, batchInterval: batchInterval)
        return Opening(index: CacheIndex(path: path, root: root, connection: connection), rebuilt: opened.created,
                       setAside: setAside)
    }

    /// Opens the index of the cache folder `root` for reading only: for a cache on a disk that cannot be
    /// written (mounted read-only, or full to the last byte), where SQLite cannot make the `-wal` and
    /// `-shm` files a shared open needs. Where a writer stopped by such a disk left a `-wal` file with
    /// its last commits, they are read through it and the `-shm` beside it (the index file alone when
    /// that `-shm` is missing too); otherwise the index file is read alone, as immutable (prefetchd
    /// copies the `-wal` into it and removes it when its last connection closes).
    static func openSnapshot(root: String) throws(CacheError) -> CacheIndex {
        let path = root + "/index.sqlite"
        var walInfo = stat()
        if stat(path + "-wal", &walInfo) == 0 && walInfo.st_size > 0,
           let index = try? openSnapshot(path: path, root: root, access: .readOnly) {
            return index
        }
        return try openSnapshot(path: path, root: root, access: .immutable)
    }

    private static func openSnapshot(path: String, root: String, access: IndexDatabase.Access) throws(CacheError) -> CacheIndex {
        let database = try IndexDatabase(path: path, access: access)
        try database.execute("PRAGMA query_only=1")
        let version = try database.text("SELECT value FROM meta WHERE key='schema_version'") ?? "none"
        try refuseOtherVersions(version, path: path)
        guard version == IndexConnection.schemaVersion else {
            throw .indexNeedsUpgrade(path: path, version: version)
        }
        let connection = IndexConnection(database: database, batchRows: 1, batchInterval: 0)
        return CacheIndex(path: path, root: root, connection: connection, snapshotAccess: access)
    }

    /// An index of another numbered schema is refused as it is: rebuilt, it would lose its URLs, sets,
    /// failure ledger and runs. A newer prefetchd wrote a later one; one older than
    /// `IndexMigration.upgradable` was written by a pre-release build, whose migrations are not kept.
    private static func refuseOtherVersions(_ version: String?, path: String) throws(CacheError) {
        guard let number = version.flatMap({ Int($0) }) else { return }
        let current = Int(IndexConnection.schemaVersion)!
        if number > current { throw .newerIndex(path: path, version: number) }
        if number < Int(IndexMigration.upgradable)! { throw .retiredIndex(path: path, version: number) }
    }

    /// Opens, checks and prepares the schema; throws when the file is not a usable index.
    /// `created` tells that the schema was new (no file, or an empty one).
    private static func openChecked(_ path: String) throws(CacheError) -> (database: IndexDatabase, created: Bool) {
        let database = try IndexDatabase(path: path)
        // No quick_check here: it reads the whole file (tens of seconds cold at a million rows). A file
        // that is not a database fails the schema read below; deeper damage is fsck's to find.
        try switchToWAL(database)
        try database.execute("PRAGMA synchronous=NORMAL")
        // Statement journals in memory: a statement that fires a trigger (an entry update) or changes
        // many rows makes SQLite keep one, by default in a temp file (/var/tmp/etilqs_*), written to
        // several times for each stored body.
        try database.execute("PRAGMA temp_store=MEMORY")
        // Debian's SQLite zeroes deleted content (SECURE_DELETE): every page a delete frees is written
        // again, into the WAL, so a clean's batch needed free disk in proportion to the bytes its rows
        // held; on a full disk with long URLs no batch could commit. The index holds nothing secret.
        try database.execute("PRAGMA secure_delete=OFF")
        let hasMeta = try database.text("SELECT name FROM sqlite_master WHERE type='table' AND name='meta'") != nil
        if hasMeta {
            var version = try database.text("SELECT value FROM meta WHERE key='schema_version'")
            try refuseOtherVersions(version, path: path)
            if IndexMigration.upgrades(version) {
                try IndexMigration.upgrade(database)
                version = try database.text("SELECT value FROM meta WHERE key='schema_version'")
            }
            guard version == IndexConnection.schemaVersion else {
                throw .index(
                    operation: "open \(path)", code: SQLITE_CORRUPT, message: "unknown schema version \(version ?? "none")")
            }
            // An index of this version has every table: nothing to write, so a reader does not wait for
            // another process's write lock.
            return (database, false)
        }
        try database.execute(IndexSchema.create)
        try database.execute(
            "INSERT OR IGNORE INTO meta(key, value) VALUES('schema_version', '\(IndexConnection.schemaVersion)')")
        return (database, !hasMeta)
    }

    /// Puts the index in WAL mode. SQLite answers a busy lock at once, without the busy handler, while
    /// another process is making the same new index (two runs started together on a new cache): it is
    /// asked again for up to the busy timeout.
    private static func switchToWAL(_ database: IndexDatabase) throws(CacheError) {
        let deadline = ContinuousClock.now + IndexDatabase.busyTimeout
        while true {
            do throws(CacheError) {
                _ = try database.text("PRAGMA journal_mode=WAL")
                return
            } catch where error.isBusy && ContinuousClock.now < deadline {
                usleep(10_000)
            }
        }
    }

    /// Corruption, not a database, or another schema: the index is rebuilt. A busy lock, a full disk or
    /// a permission error is not the index's fault and is reported instead.
    /// Renames the index and its `-wal` to `index.sqlite.corrupt-<UTC time>` (and that name's
    /// `-wal`, which SQLite reads with it) and removes its `-shm`; returns the new name.
    private static func setIndexFilesAside(_ path: String) throws(CacheError) -> String {
        let time = Date().formatted(.iso8601.year().month().day().time(includingFractionalSeconds: false)
            .timeZone(separator: .omitted).dateSeparator(.omitted).timeSeparator(.omitted))
        let aside = path + ".corrupt-" + time
        for (file, kept) in [(path, aside), (path + "-wal", aside + "-wal")]
        where rename(file, kept) != 0 && errno != ENOENT {
            throw .fromErrno("set aside", file)
        }
        if unlink(path + "-shm") != 0 && errno != ENOENT { throw .fromErrno("remove", path + "-shm") }
        return aside
    }

    /// Runs `body` with the connection held.
    func withConnection<Result: Sendable>(
        _ body: (IndexConnection) throws(CacheError) -> Result
    ) throws(CacheError) -> Result {
        try lock.withLock { () throws(CacheError) -> Result in try body(connection) }
    }

    /// Runs `body` with the reader connection, which sees only committed rows (not the open batch)
    /// and never waits for the writer: for the scheduling thread's lookups, which would otherwise
    /// wait behind every store's placement and row.
    func withReader<Result: Sendable>(
        _ body: (IndexConnection) throws(CacheError) -> Result
    ) throws(CacheError) -> Result {
        try readerLock.withLock { () throws(CacheError) -> Result in
            if let reader { return try body(reader) }
            let database = try IndexDatabase(path: path, access: snapshotAccess ?? .readWrite)
            try database.execute("PRAGMA query_only=1")
            let opened = IndexConnection(database: database, batchRows: 1, batchInterval: 0)
            reader = opened
            return try body(opened)
        }
    }

    /// Pages of the index file a connection maps into memory at the most (`mapForReading`).
    static let mappedBytes = 1 << 30

    /// Reads the index file's pages through a memory map rather than copying each into SQLite's page
    /// cache, for a command that reads much of the table and writes nothing (`verify` looking its
    /// keys up a descent each: about 10 % of its CPU at 20,000 URLs). Only there: an I/O error on a
    /// mapped page ends the process with a signal rather than an error, which a command that writes
    /// must be able to report.
    func mapForReading() throws(CacheError) {
        try withConnection { connection throws(CacheError) in
            try connection.database.execute("PRAGMA mmap_size = \(Self.mappedBytes)")
        }
    }

    /// Drops the uses remembered and not yet written.
    func forgetPendingUses() {
        uses.drop()
    }

    /// After a failure that stops the writer (a full disk): commits the open batch if it still can,
    /// else gives it up with the bodies it placed, so that no file is left under a final name without
    /// its row. Returns the keys of the bodies removed, here or with a batch lost before.
    func settleAfterFailure() -> [String] {
        (try? withConnection { connection throws(CacheError) -> [String] in
            connection.forgetRolledBackBatch()
            do throws(CacheError) {
                try connection.commit()
            } catch {
                connection.abandonBatch()
            }
            return connection.takeRemovedBodies()
        }) ?? []
    }

    /// Whether a batch was lost (SQLite rolled it back after a failed write) with bodies it had placed,
    /// which `settleAfterFailure` has not handed out yet. A commit after such a loss commits what came
    /// after it and succeeds: the lost batch's stores were not recorded all the same.
    func lostPlacedBodies() -> Bool {
        (try? withConnection { connection throws(CacheError) in
            connection.forgetRolledBackBatch()
            return connection.hasRemovedBodies
        }) ?? true
    }

    /// The process is stopping: another process's write lock is no longer waited for, unless the
    /// caller gives a wait of its own (`flush(waitingAtMost:)`). Callable while a write waits.
    package func shortenLockWaits() {
        // The connection's database is a constant of it; only its wait's atomic flag is touched.
        connection.database.shortenWaits()
    }

    /// Commits every batched write and access time, waiting at most `wait` for another connection's
    /// write lock (`IndexDatabase.busyTimeout` when nil).
    package func flush(waitingAtMost wait: Duration? = nil) throws(CacheError) {
        // A write of uses queued beside a `touch` ends first (it never calls this).
        useWriter.sync {}
        try withConnection { connection throws(CacheError) in
            guard let wait else { return try connection.commit() }
            try connection.database.waitingAtMost(wait) { Result { () throws(CacheError) in try connection.commit() } }.get()
        }
    }

    // MARK: meta

    /// A value from the meta table.
    package func meta(_ key: String) throws(CacheError) -> String? {
        try withConnection { connection throws(CacheError) in
            try connection.query("SELECT value FROM meta WHERE key = ?", [.text(key)]) { $0.text(0) }.first ?? nil
        }
    }

    package func setMeta(_ key: String, _ value: String) throws(CacheError) {
        try withConnection { connection throws(CacheError) in
            try connection.write(
                "INSERT INTO meta(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                [.text(key), .text(value)])
        }
    }
}
