internal import CSQLite

/// Copies a bulk writer's WAL back into the index file on a thread and connection of its own, so the
/// writer (a clean deleting hundreds of thousands of rows) does not stop for the bulk of it: without
/// this SQLite checkpoints inside the commit that fills the WAL, copying and syncing every page while
/// the clean's batch waits.
///
/// `watch` replaces the writer's automatic checkpoints by a hook run after each of its commits. Once
/// `pages` uncopied pages have gathered, a passive checkpoint (it never blocks the writer) copies them
/// on the checkpointer's thread, and again for those added meanwhile while many remain. A passive
/// checkpoint never catches up with a writer that keeps writing, and SQLite starts the WAL again from
/// its beginning only when every page of it is copied; so when few pages are left uncopied, the hook
/// copies those itself between two of the writer's transactions (a restarting checkpoint), and the
/// writer's next transaction starts the WAL again instead of growing it without end.
/// `finish` copies the rest, empties the WAL file and hands the checkpoints back to SQLite.
final class IndexCheckpointer: Sendable {
    private struct Progress {
        var running = false
        /// Frames copied by the last passive checkpoint since the WAL was last started again, and the
        /// WAL's length at the last commit.
        var copied: Int32 = 0
        var lastLength: Int32 = 0
    }

    private enum Step {
        case none, passive, restart
    }

    private let connection: Locked<IndexDatabase>
    private let pool = WorkerPool(name: "prefetchd.checkpoint", width: 1)
    private let progress = Locked(Progress())
    private let pages: Int32

    /// Opens a connection of its own to the index at `path`; checkpoints each `pages` pages (4 KiB each).
    init(path: String, pages: Int32) throws(CacheError) {
        let database = try IndexDatabase(path: path)
        // A connection checkpoints only a WAL it has opened, which its first read does.
        _ = try database.text("SELECT count(*) FROM sqlite_master")
        connection = Locked(database)
        self.pages = pages
    }

    /// Takes over the checkpoints of the writer `database` (one that outlives this call until `finish`).
    func watch(_ database: IndexDatabase) {
        sqlite3_wal_hook(database.handle, { context, handle, _, length in
            guard let context, let handle else { return SQLITE_OK }
            Unmanaged<IndexCheckpointer>.fromOpaque(context).takeUnretainedValue().committed(handle, walLength: length)
            return SQLITE_OK
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Copies what is left of the WAL into the index file, empties the WAL file, and gives `database`
    /// its automatic checkpoints back. Waits at most a second for other writers: a clean that stops
    /// because the index stayed busy must not wait out another busy timeout on its way out, and a WAL
    /// left behind is copied and started again by the next writer's own checkpoints.
    func finish(_ database: IndexDatabase) {
        pool.waitUntilIdle()
        _ = database.waitingAtMost(.seconds(1)) {
            sqlite3_wal_checkpoint_v2(database.handle, nil, SQLITE_CHECKPOINT_TRUNCATE, nil, nil)
        }
        sqlite3_wal_autocheckpoint(database.handle, 1000)
    }

    /// After a commit of the writer `handle`, whose WAL is now `walLength` frames long.
    private func committed(_ handle: OpaquePointer, walLength: Int32) {
        let step = progress.withLock { progress -> Step in
            // A shorter WAL than at the last commit was started again from its beginning.
            if walLength < progress.lastLength { progress.copied = 0 }
            progress.lastLength = walLength
            guard !progress.running else { return .none }
            let uncopied = walLength - progress.copied
            if progress.copied > 0 && uncopied <= pages / 8 { return .restart }
            guard progress.copied > 0 || uncopied >= pages else { return .none }
            progress.running = true
            return .passive
        }
        switch step {
        case .none:
            break
        case .passive:
            pool.submit { [self] in
                var copied: Int32 = 0
                let code = connection.withLock { database in
                    sqlite3_wal_checkpoint_v2(database.handle, nil, SQLITE_CHECKPOINT_PASSIVE, nil, &copied)
                }
                // A busy or failed checkpoint leaves the pages for the next one.
                progress.withLock { progress in
                    if code == SQLITE_OK { progress.copied = max(copied, 1) }
                    progress.running = false
                }
            }
        case .restart:
            // Between the writer's transactions: copies the last pages and lets the next one start the WAL again.
            if sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_RESTART, nil, nil) == SQLITE_OK {
                progress.withLock { $0.copied = 0 }
            }
        }
    }
}
