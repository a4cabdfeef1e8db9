import Foundation

/// A row a clean may remove: what removing and reporting it takes.
struct RemovalCandidate: Sendable {
    var id: Int64
    var relativePath: String
    var size: Int64
    /// Its last use (`accessed_at` as stored, seconds since 1970): where a least-recently-used walk goes on
    /// from, kept as the stored number so that a comparison with it is exact.
    var accessedAt: Double
}

/// Rows a batch removes, read inside its write transaction, with what deleting them takes off the
/// running totals (counted as they were read; `IndexConnection.deleteEntries(_:)`).
struct RemovalRows: Sendable {
    var rows: [RemovalCandidate] = []
    var change = IndexTotalsChange()

    /// Adds the rows of `other`, read in the same transaction.
    mutating func append(_ other: RemovalRows) {
        rows += other.rows
        change.add(other.change)
    }
}

/// Which rows a removal step takes: a condition on the entries table, checked when the step lists its
/// rows and again inside each batch's write transaction, so a row whose clock a run moved in between is
/// kept (a use moves the last access; a revalidation or a new body, the modification time; the first
/// fetch never moves).
struct RemovalRule: Sendable {
    let condition: String
    let values: [IndexValue]

    /// Rows older than `cutoff` by `clock`.
    static func olderThan(_ cutoff: Date, by clock: ExpiryClock) -> RemovalRule {
        RemovalRule(condition: "\(CacheIndex.column(for: clock)) < ?", values: [.date(cutoff)])
    }

    /// Rows last used no later than `last` (by last use, then row id): a trim's least recently used, up
    /// to the last one it listed.
    static func usedNoLaterThan(_ last: RemovalCandidate) -> RemovalRule {
        RemovalRule(
            condition: "(accessed_at < ? OR (accessed_at = ? AND id <= ?))",
            values: [.real(last.accessedAt), .real(last.accessedAt), .integer(last.id)]
        )
    }

    /// Rows last used in an hour before `hour`, by the hour the running totals count a use in
    /// (`IndexTotals`, `accessed_hour`): a range of the `entries_accessed_at` index, filtered on the
    /// index's own column, so its ids are read without the table.
    static func usedBefore(hour: Int64) -> RemovalRule {
        RemovalRule(
            condition: "(accessed_at < ? AND CAST(accessed_at / 3600 AS INTEGER) < ?)",
            values: [.real(Double(hour) * 3_600 + 1), .integer(hour)]
        )
    }
}

/// One hour of last uses as the running totals hold it (`accessed_hour`): the entries last used in it
/// and their bytes.
struct AccessHour: Sendable {
    var hour: Int64
    var entries: Int
    var bytes: Int64
}

/// A walk over the entries least recently used first (then by row id), in pages: each page starts after
/// the last row of the one before (`cursor`).
struct LeastRecentlyUsedWalk {
    /// Rows this rule takes are skipped (a dry run's trim, past what its expiry would take).
    var skipping: RemovalRule?
    var cursor: RemovalCandidate?
    /// Whether the candidates carry their relative paths (empty otherwise: the walk needs only ids,
    /// sizes and last uses).
    var paths = true
    /// Before the first page: where the walk starts, the first hour of last use (by the totals' hour,
    /// as `RemovalRule.usedBefore(hour:)`; at least 1) it reads; nil, from the least recently used.
    var fromHour: Int64?

    init(skipping: RemovalRule? = nil) {
        self.skipping = skipping
    }
}

/// The queries `clean` runs: the rows a removal step takes, a least-recently-used walk, short write
/// transactions, and the rows under one fan-out folder for the orphan sweep.
extension CacheIndex {
    static func column(for clock: ExpiryClock) -> String {
        switch clock {
        case .access: "accessed_at"
        case .modification: "modified_at"
        case .creation: "fetched_at"
        }
    }

    /// The ids of the rows `rule` takes, in row order (by fan-out folder, then by the path's hash).
    /// Sorted here: with an `ORDER BY id` SQLite scans the table in row order rather than read a
    /// clock's index alone and sort.
    func ids(where rule: RemovalRule) throws(CacheError) -> [Int64] {
        try foldRecentUses()
        return try withConnection { connection throws(CacheError) in
            try connection.query("SELECT id FROM entries WHERE \(rule.condition)", rule.values) { $0.int64(0) }
        }.sorted()
    }

    /// The hours of last use the running totals count entries in, oldest first.
    func accessHours() throws(CacheError) -> [AccessHour] {
        try foldRecentUses()
        return try withConnection { connection throws(CacheError) in
            try connection.settleInserted()
            return try connection.query(
                "SELECT value, entries, bytes FROM entry_totals WHERE dimension = 'accessed_hour' AND entries > 0 ORDER BY value", []
            ) { AccessHour(hour: $0.int64(0), entries: Int($0.int64(1)), bytes: $0.int64(2)) }
        }
    }

    /// The next `limit` rows of `walk` as committed now.
    func candidates(of walk: LeastRecentlyUsedWalk, limit: Int) throws(CacheError) -> [RemovalCandidate] {
        try foldRecentUses()
        return try withConnection { connection throws(CacheError) in try connection.candidates(of: walk, limit: limit) }
    }

    /// The rows `ids` as committed now, in row order (a dry run's listing).
    func candidates(ids: ArraySlice<Int64>) throws(CacheError) -> [RemovalCandidate] {
        try withConnection { connection throws(CacheError) in try connection.candidates(ids: ids, where: nil) }
    }

    /// The rows whose relative path starts with `prefix` (one fan-out folder or name prefix of two hex
    /// digits), by the range of row ids of its slice (`IndexRowID.slice(ofPrefix:)`). Cache file names
    /// are ASCII, so every match sorts below `prefix + "\u{7f}"`.
    func rows(withPathPrefix prefix: String) throws(CacheError) -> [RemovalCandidate] {
        try withConnection { connection throws(CacheError) in try connection.rows(withPathPrefix: prefix) }
    }

    /// Runs `body` inside its own `BEGIN IMMEDIATE` transaction, after committing any batched writes,
    /// and commits (or rolls back when it throws). Other processes wait for the index while it runs,
    /// so `body` must be short.
    func inWriteTransaction<Result: Sendable>(
        _ body: (MaintenanceTransaction) throws(CacheError) -> Result
    ) throws(CacheError) -> Result {
        let root = root
        return try withConnection { connection throws(CacheError) in
            try connection.commit()
            try connection.database.execute("BEGIN IMMEDIATE")
            do throws(CacheError) {
                let result = try body(MaintenanceTransaction(connection: connection, root: root))
                try connection.database.execute("COMMIT")
                return result
            } catch {
                try? connection.database.execute("ROLLBACK")
                throw error
            }
        }
    }

    /// Fills the largest entries' table again from one scan when removals left it short of
    /// `IndexLargest.keep` rows (a clean's last step; a second at 1,000,000 entries).
    func refillLargestIfShort() throws(CacheError) {
        try inWriteTransaction { transaction throws(CacheError) in try transaction.refillLargestIfShort() }
    }
}

/// Where the index stood when a write transaction read it: the data version (which another
/// connection's commit moves) and this connection's own change count.
struct IndexWriteVersion: Equatable {
    let data: Int64
    let changes: Int64
}

/// What a clean may do inside one write transaction: read a row as it is now, delete it.
struct MaintenanceTransaction {
    fileprivate let connection: IndexConnection
    let root: String

    /// The index's version now (see `RemovalReadAhead`).
    func version() throws(CacheError) -> IndexWriteVersion {
        let data = try connection.query("PRAGMA data_version", []) { $0.int64(0) }.first ?? 0
        return IndexWriteVersion(data: data, changes: connection.database.totalChanges)
    }

    /// Folds the uses runs recorded into their rows (`IndexRecentUses`), so that a rule checked after
    /// it sees them.
    func foldRecentUses() throws(CacheError) {
        try connection.foldRecentUses()
    }

    /// The row `id` as committed now; nil when it is gone.
    func entry(id: Int64) throws(CacheError) -> CacheEntry? {
        let root = root
        return try connection.query("SELECT \(IndexSchema.selectedEntryColumns) FROM entries WHERE id = ?", [.integer(id)]) {
            CacheEntry(row: $0, root: root)
        }.first
    }

    func entry(relativePath: String) throws(CacheError) -> IndexedEntry? {
        let root = root
        return try connection.query(
            "SELECT \(IndexSchema.selectedEntryColumns), id FROM entries WHERE \(IndexRowID.matches("?1"))", [.text(relativePath)]
        ) { IndexedEntry(id: $0.int64(IndexSchema.entryColumnCount), entry: CacheEntry(row: $0, root: root)) }.first
    }

    /// Those of the rows `ids` that `rule` still takes (all of them when nil) and `keep` keeps, in row
    /// order (inside the transaction nothing changes them before it ends), counted for their delete
    /// (`deleteEntries(_:)`), which must come in this transaction.
    func removalRows(
        ids: ArraySlice<Int64>, where rule: RemovalRule?, keep: (RemovalCandidate) -> Bool = { _ in true }
    ) throws(CacheError) -> RemovalRows {
        try connection.removalRows(ids: ids, where: rule, keep: keep)
    }

    /// Deletes the rows `removal` read in this transaction, taking them off the totals as counted.
    func deleteEntries(_ removal: RemovalRows) throws(CacheError) {
        try connection.deleteEntries(removal)
    }

    /// Makes the clocks' indexes a large removal dropped (`CacheIndex.dropClockIndexes`), those missing.
    func makeClockIndexes() throws(CacheError) {
        try connection.makeMissingClockIndexes()
    }

    /// The variants made from the originals at `relativePaths`, which a clean removes with them.
    func variantCandidates(ofOriginalsAt relativePaths: [String]) throws(CacheError) -> [RemovalCandidate] {
        try connection.variantCandidates(ofOriginalsAt: relativePaths)
    }

    /// Fills the largest entries' table again when removals left it short (`IndexLargest.refill`).
    func refillLargestIfShort() throws(CacheError) {
        guard try connection.largestAreShort(of: IndexLargest.keep) else { return }
        try connection.database.execute(IndexLargest.refill)
    }

    func deleteEntry(id: Int64) throws(CacheError) {
        try connection.deleteEntries(where: "id = ?", [.integer(id)])
    }

    /// Deletes the failure-ledger lines `rule` (a condition on the failures table) takes; returns how many went.
    func deleteFailures(where rule: RemovalRule) throws(CacheError) -> Int {
        try connection.query("DELETE FROM failures WHERE \(rule.condition) RETURNING 1", rule.values) { _ in 1 }.count
    }

    /// Deletes the rows `ids` in one statement (one pass over each index).
    func deleteEntries(ids: some Collection<Int64>) throws(CacheError) {
        guard !ids.isEmpty else { return }
        try connection.deleteEntries(where: "id IN (SELECT value FROM json_each(?))", [.idList(ids)])
    }
}

extension CacheError {
    /// Another connection holds the index's write lock longer than the busy timeout.
    var isBusy: Bool {
        guard case .index(_, let code, _) = self else { return false }
        return code & 0xff == 5 || code & 0xff == 6  // SQLITE_BUSY, SQLITE_LOCKED
    }
}

extension IndexConnection {
    private static let candidateColumns = "id, relative_path, byte_size, accessed_at"

    private static func candidate(_ row: IndexStatement) -> RemovalCandidate {
        RemovalCandidate(id: row.int64(0), relativePath: row.text(1) ?? "", size: row.int64(2), accessedAt: row.double(3))
    }

    /// Up to `limit` rows least recently used first (then by id) strictly after the walk's cursor,
    /// skipping those its `skipping` rule takes.
    func candidates(of walk: LeastRecentlyUsedWalk, limit: Int) throws(CacheError) -> [RemovalCandidate] {
        var conditions: [String] = []
        var values: [IndexValue] = []
        if let cursor = walk.cursor {
            conditions.append("accessed_at >= ? AND (accessed_at > ? OR id > ?)")
            values += [.real(cursor.accessedAt), .real(cursor.accessedAt), .integer(cursor.id)]
        } else if let hour = walk.fromHour {
            conditions.append("accessed_at >= ? AND CAST(accessed_at / 3600 AS INTEGER) >= ?")
            values += [.real(Double(hour) * 3_600 - 1), .integer(hour)]
        }
        if let skipping = walk.skipping {
            conditions.append("NOT (\(skipping.condition))")
            values += skipping.values
        }
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        let columns = walk.paths ? Self.candidateColumns : "id, '', byte_size, accessed_at"
        return try query(
            "SELECT \(columns) FROM entries \(filter) ORDER BY accessed_at, id LIMIT ?", values + [.int(limit)],
            Self.candidate
        )
    }

    /// The rows `ids` that `rule` takes (all of them when nil) and `keep` keeps, in row order, each
    /// counted as it is read (its size, frames and dimension values after the candidate's columns).
    func removalRows(
        ids: ArraySlice<Int64>, where rule: RemovalRule?, keep: (RemovalCandidate) -> Bool
    ) throws(CacheError) -> RemovalRows {
        let filter = rule.map { " AND \($0.condition)" } ?? ""
        let read = try statement(
            """
            SELECT \(Self.candidateColumns), byte_size, \(IndexTotals.framesColumn), \(IndexTotals.valueColumns)
            FROM entries WHERE id IN (SELECT value FROM json_each(?))\(filter) ORDER BY id
            """)
        read.reset()
        defer { read.reset() }
        try read.bind([.idList(ids)] + (rule?.values ?? []))
        var removal = RemovalRows()
        while try read.step() {
            let candidate = Self.candidate(read)
            guard keep(candidate) else { continue }
            removal.rows.append(candidate)
            removal.change.count(read, sizeColumn: 4, sign: -1)
        }
        return removal
    }

    /// The rows whose relative path starts with `prefix` (see `CacheIndex.rows(withPathPrefix:)`).
    func rows(withPathPrefix prefix: String) throws(CacheError) -> [RemovalCandidate] {
        let slice = IndexRowID.slice(ofPrefix: prefix)
        return try query(
            "SELECT \(Self.candidateColumns) FROM entries WHERE id BETWEEN ? AND ? AND relative_path >= ? AND relative_path < ?",
            [.integer(slice.lowerBound), .integer(slice.upperBound), .text(prefix), .text(prefix + "\u{7f}")], Self.candidate)
    }

    /// The rows linked to the originals at `relativePaths` (the partial index `entries_variant_of`), in row order.
    func variantCandidates(ofOriginalsAt relativePaths: [String]) throws(CacheError) -> [RemovalCandidate] {
        // A cache without variants (one look at the partial index) spares the batch its paths' list.
        guard !relativePaths.isEmpty,
              try query("SELECT EXISTS (SELECT 1 FROM entries WHERE variant_of IS NOT NULL)", []) { $0.int64(0) }.first == 1
        else { return [] }
        let list = String(decoding: (try? JSONEncoder().encode(relativePaths)) ?? Data("[]".utf8), as: UTF8.self)
        return try query(
            "SELECT \(Self.candidateColumns) FROM entries WHERE variant_of IN (SELECT value FROM json_each(?)) ORDER BY id",
            [.text(list)], Self.candidate
        )
    }

    /// The rows `ids` that `rule` takes (all of them when nil), in row order.
    func candidates(ids: ArraySlice<Int64>, where rule: RemovalRule?) throws(CacheError) -> [RemovalCandidate] {
        let filter = rule.map { " AND \($0.condition)" } ?? ""
        return try query(
            "SELECT \(Self.candidateColumns) FROM entries WHERE id IN (SELECT value FROM json_each(?))\(filter) ORDER BY id",
            [.idList(ids)] + (rule?.values ?? []),
            Self.candidate
        )
    }
}

extension CacheIndex {
    /// Readies this connection for a clean's many deletes: a small page cache (2 MiB), and its WAL
    /// checkpoints handed to an `IndexCheckpointer` that copies every 8,192 pages beside the clean
    /// instead of inside its commits, so that no commit waits on a checkpoint (bench/maintain/RESULTS.md,
    /// "Design figures"). `endBulkDeletes` hands the checkpoints back.
    ///
    /// The cache is small because a removal reads each page about once (its batches walk the table in
    /// row order; dropping or making an index walks that index once): a large one only grew, each new
    /// 4 KiB of it a page fault the kernel clears first (167,000 faults in a trim of half of 1,000,000
    /// entries with a 256 MiB cache). The checkpoints come often, so that what the last batch wrote is
    /// mostly copied beside the sweep rather than after it (bench/maintain/RESULTS.md, "Nineteenth pass").
    func beginBulkDeletes() throws(CacheError) -> IndexCheckpointer {
        let checkpointer = try IndexCheckpointer(path: path, pages: 8_192)
        try withConnection { connection throws(CacheError) in
            try connection.commit()
            try connection.database.execute("PRAGMA cache_size = -2048")
            checkpointer.watch(connection.database)
        }
        return checkpointer
    }

    func endBulkDeletes(_ checkpointer: IndexCheckpointer) {
        try? withConnection { connection throws(CacheError) in checkpointer.finish(connection.database) }
    }
}
