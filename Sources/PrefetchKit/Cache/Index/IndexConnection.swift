import Foundation

/// The index's connection state: the database, its cached prepared statements, the open batch
/// transaction and the access times waiting to be written. Lives behind `CacheIndex`'s lock.
final class IndexConnection {
    /// The schema this code reads and writes; another value on open means rebuild.
    static let schemaVersion = "15"

    let database: IndexDatabase
    private var statements: [String: IndexStatement] = [:]
    private var inTransaction = false
    private var writesInBatch = 0
    private var batchStarted = Date()
    /// The uses recorded and not yet written; the next commit writes them.
    let uses: IndexPendingUses
    /// The rows the open batch inserted, by id and size, not yet in the totals and the largest entries;
    /// `settleInserted()` adds them (see `IndexConnection+Inserts`).
    var insertedRows: [(id: Int64, size: Int64)] = []
    /// The bodies placed under their final names in the open batch, whose rows are in it only: a batch
    /// that is lost takes these files with it (`abandonBatch`), so none is left without a row.
    private var placedInBatch: [(path: String, key: String)] = []
    /// The keys of bodies removed with a lost batch, until `takeRemovedBodies`.
    private var removedBodies: [String] = []
    /// The statements `insertEntry` runs, once prepared.
    var entryStatementsKept: EntryStatements?

    /// A path's slots read, and a new row inserted: the statements of every stored entry.
    struct EntryStatements {
        let slots: IndexStatement
        let insert: IndexStatement
    }

    /// Writes are committed in one transaction every `batchRows` writes or `batchInterval` seconds.
    let batchRows: Int
    let batchInterval: TimeInterval

    init(database: IndexDatabase, batchRows: Int, batchInterval: TimeInterval) {
        self.database = database
        self.batchRows = batchRows
        self.batchInterval = batchInterval
        uses = IndexPendingUses(due: max(batchRows, Self.touchRows))
    }

    deinit {
        try? commit()
    }

    /// The prepared statement for `sql`, prepared once per connection.
    func statement(_ sql: String) throws(CacheError) -> IndexStatement {
        if let statement = statements[sql] { return statement }
        let statement = try IndexStatement(database, sql)
        statements[sql] = statement
        return statement
    }

    /// Runs a write inside the current batch transaction and commits the batch when it is due.
    func write(_ sql: String, _ values: [IndexValue]) throws(CacheError) {
        try writing { () throws(CacheError) in try statement(sql).run(values) }
    }

    /// Runs `body`, one write, inside the current batch transaction (after the batch's inserted rows are
    /// counted in the totals) and commits the batch when it is due.
    func writing(_ body: () throws(CacheError) -> Void) throws(CacheError) {
        try beginIfNeeded()
        try settleInserted()
        try body()
        try countWrite()
    }

    /// Counts one write of the batch and commits the batch when it is due.
    func countWrite() throws(CacheError) {
        writesInBatch += 1
        if writesInBatch >= batchRows || Date().timeIntervalSince(batchStarted) >= batchInterval {
            try commit()
        }
    }

    /// Runs a query and maps every row.
    func query<Row>(_ sql: String, _ values: [IndexValue], _ row: (IndexStatement) -> Row) throws(CacheError) -> [Row] {
        var rows: [Row] = []
        try forEachRow(sql, values) { rows.append(row($0)) }
        return rows
    }

    /// Calls `body` with each row of `sql` in turn, which reads what it needs of the row before the
    /// next: for reading more rows than are worth holding at once.
    func forEachRow(_ sql: String, _ values: [IndexValue], _ body: (IndexStatement) -> Void) throws(CacheError) {
        let statement = try statement(sql)
        statement.reset()
        defer { statement.reset() }
        try statement.bind(values)
        while try statement.step() { body(statement) }
    }

    /// The uses a batch holds before it is written, at the least: a run's uses fall on rows all over the
    /// table (row ids are made from paths), so each written batch rewrites about one page a use, and
    /// the fewer batches, the fewer times a small cache's pages are written; but every page a batch
    /// dirties stays in memory until it commits. A warm rerun of 20,000 URLs took 0.46 s with 256 a
    /// batch, 0.34 s with 8,192 and 0.30 s with 65,536, and one of 1,000,000 URLs the same 31-33 s with
    /// any, its peak RSS 49 MiB with 256, 65 MiB with 4,096 and 199 MiB with 65,536 (bench/RESULTS.md, "Row
    /// ids from paths"). A use not yet written when the process dies is only a later last use lost.
    /// Up to twice as many wait while a write beside the recording thread is under way (`IndexPendingUses`),
    /// and a commit writes them `touchRows` a transaction.
    static let touchRows = 4096

    /// Writes the inserted rows' totals and the pending access times, and commits the open transaction:
    /// the uses in row order, `touchRows` a transaction, so that no transaction holds more of their
    /// dirty pages than one batch of them. Uses not yet written when a write fails wait for the next commit.
    func commit() throws(CacheError) {
        try settleInserted()
        // In row order, so that each write walks the pages in order rather than at random.
        let taken = uses.take()
        var touched = (taken.byRowID.map { Use(id: $0.key, path: nil, time: $0.value) }
            + taken.byPath.map { Use(id: IndexRowID.base(of: $0.key), path: $0.key, time: $0.value) })
            .sorted { $0.id < $1.id }[...]
        repeat {
            let batch = touched.prefix(Self.touchRows)
            do throws(CacheError) {
                if !batch.isEmpty {
                    try beginIfNeeded()
                    try writeUses(batch)
                    touched = touched.dropFirst(batch.count)
                }
                guard inTransaction else { return }
                try database.execute("COMMIT")
            } catch {
                uses.putBack(Use.pending(touched))
                throw error
            }
            inTransaction = false
            writesInBatch = 0
            placedInBatch.removeAll(keepingCapacity: true)
        } while !touched.isEmpty
    }

    /// A use waiting to be written: by the row id its caller read, or (`path` given) by the path, whose
    /// lowest row id `id` then is, for the order.
    private struct Use {
        let id: Int64
        let path: String?
        let time: Double

        /// `uses` as they wait again.
        static func pending(_ uses: some Sequence<Use>) -> PendingUses {
            var pending = PendingUses()
            for use in uses {
                if let path = use.path { pending.add(path: path, at: use.time) } else { pending.add(rowID: use.id, at: use.time) }
            }
            return pending
        }
    }

    /// Two statements for the uses, those by row id and those by path, each with its uses as one JSON
    /// list: a statement per row cost more in its start and end than the row's write (a warm rerun's
    /// are written `touchRows` at a time). They go to `recent_uses` (`IndexRecentUses`); a use by
    /// path is found by its path's row ids, which reads the row, and a run's lookups hand their row
    /// ids over so that its uses need not (a tenth of a warm rerun's CPU).
    private func writeUses(_ touched: ArraySlice<Use>) throws(CacheError) {
        let byRowID = touched.filter { $0.path == nil }
        let byPath = touched.compactMap { use in use.path.map { ($0, use.time) } }
        if !byRowID.isEmpty {
            try statement(IndexRecentUses.recordByRowID).run([IndexValue.rowTimeList(byRowID.lazy.map { ($0.id, $0.time) })])
        }
        if !byPath.isEmpty { try statement(IndexRecentUses.record).run([IndexValue.touchList(byPath)]) }
    }

    /// Whether uses recorded in `recent_uses` wait to be folded into their rows.
    func hasRecentUses() throws(CacheError) -> Bool {
        try query(IndexRecentUses.any, []) { $0.int64(0) == 1 }.first ?? false
    }

    /// Folds the recorded uses into their rows (`IndexRecentUses.fold`), inside the write transaction
    /// the caller has open; nothing when none waits.
    func foldRecentUses() throws(CacheError) {
        guard try hasRecentUses() else { return }
        try database.execute(IndexRecentUses.fold)
    }

    /// Notes a body placed under its final name at `path` for `key` in the open batch.
    func notePlaced(_ path: String, key: String) {
        placedInBatch.append((path, key))
    }

    /// Gives up the open batch when it cannot be committed (the disk is full): rolls it back and
    /// removes the bodies it placed, whose rows it held.
    func abandonBatch() {
        if database.isInTransaction { try? database.execute("ROLLBACK") }
        inTransaction = false
        writesInBatch = 0
        insertedRows.removeAll()
        uses.drop()
        removePlacedBodies()
    }

    /// Whether a lost batch took bodies with it that `takeRemovedBodies` has not handed out.
    var hasRemovedBodies: Bool { !removedBodies.isEmpty }

    /// The keys of the bodies removed with lost batches since the last call.
    func takeRemovedBodies() -> [String] {
        defer { removedBodies.removeAll() }
        return removedBodies
    }

    /// Opens the batch transaction (taking the index's write lock) unless it is open already.
    func beginIfNeeded() throws(CacheError) {
        forgetRolledBackBatch()
        guard !inTransaction else { return }
        try database.execute("BEGIN IMMEDIATE")
        inTransaction = true
        batchStarted = Date()
    }

    /// SQLite rolls a transaction back by itself after some errors (a full disk, an I/O error): the
    /// batch's rows are gone, and with them what they were to add to the totals.
    func forgetRolledBackBatch() {
        guard inTransaction, !database.isInTransaction else { return }
        inTransaction = false
        writesInBatch = 0
        insertedRows.removeAll()
        removePlacedBodies()
    }

    private func removePlacedBodies() {
        for placed in placedInBatch where unlink(placed.path) == 0 || errno == ENOENT {
            removedBodies.append(placed.key)
        }
        placedInBatch.removeAll()
    }
}
