import Foundation

/// An entry row with its row id, which keyset cursors and conditional deletes need.
struct IndexedEntry: Sendable {
    var id: Int64
    var entry: CacheEntry
}

/// The queries `clean` runs: sorted walks over the time indexes, short write transactions, and the
/// rows under one fan-out folder for the orphan sweep.
extension CacheIndex {
    static func column(for clock: ExpiryClock) -> String {
        switch clock {
        case .access: "accessed_at"
        case .modification: "modified_at"
        case .creation: "fetched_at"
        }
    }

    /// Up to `limit` entries ordered by `clock` (then id) strictly after `cursor`, all older than `before`
    /// when given, skipping those `excluding` names (older than its cutoff by its clock).
    func entries(
        by clock: ExpiryClock, after cursor: (date: Date, id: Int64)?, before: Date?,
        excluding: (clock: ExpiryClock, cutoff: Date)?, limit: Int
    ) throws(CacheError) -> [IndexedEntry] {
        let column = Self.column(for: clock)
        var conditions: [String] = []
        var values: [IndexValue] = []
        if let cursor {
            conditions.append("\(column) >= ? AND (\(column) > ? OR id > ?)")
            values += [.date(cursor.date), .date(cursor.date), .integer(cursor.id)]
        }
        if let before {
            conditions.append("\(column) < ?")
            values.append(.date(before))
        }
        if let excluding {
            conditions.append("\(Self.column(for: excluding.clock)) >= ?")
            values.append(.date(excluding.cutoff))
        }
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        let root = root
        return try withConnection { connection throws(CacheError) in
            try connection.query(
                "SELECT \(IndexSchema.entryColumns), id FROM entries \(filter) ORDER BY \(column), id LIMIT ?",
                values + [.int(limit)]
            ) { IndexedEntry(id: $0.int64(15), entry: CacheEntry(row: $0, root: root)) }
        }
    }

    /// Entries whose relative path starts with `prefix` (one fan-out folder or name prefix), by range on
    /// the path's unique index. Cache file names are ASCII, so every match sorts below `prefix + "\u{7f}"`.
    func entries(withPathPrefix prefix: String) throws(CacheError) -> [IndexedEntry] {
        let root = root
        return try withConnection { connection throws(CacheError) in
            try connection.query(
                "SELECT \(IndexSchema.entryColumns), id FROM entries WHERE relative_path >= ? AND relative_path < ?",
                [.text(prefix), .text(prefix + "\u{7f}")]
            ) { IndexedEntry(id: $0.int64(15), entry: CacheEntry(row: $0, root: root)) }
        }
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
}

/// What a clean may do inside one write transaction: read a row as it is now, delete it.
struct MaintenanceTransaction {
    fileprivate let connection: IndexConnection
    let root: String

    /// The row `id` as committed now; nil when it is gone.
    func entry(id: Int64) throws(CacheError) -> CacheEntry? {
        let root = root
        return try connection.query("SELECT \(IndexSchema.entryColumns) FROM entries WHERE id = ?", [.integer(id)]) {
            CacheEntry(row: $0, root: root)
        }.first
    }

    func entry(relativePath: String) throws(CacheError) -> IndexedEntry? {
        let root = root
        return try connection.query(
            "SELECT \(IndexSchema.entryColumns), id FROM entries WHERE relative_path = ?", [.text(relativePath)]
        ) { IndexedEntry(id: $0.int64(15), entry: CacheEntry(row: $0, root: root)) }.first
    }

    /// The rows `ids` as committed now, by id; a gone row is absent.
    func entries(ids: [Int64]) throws(CacheError) -> [Int64: CacheEntry] {
        let root = root
        let rows = try connection.query(
            "SELECT \(IndexSchema.entryColumns), id FROM entries WHERE id IN (SELECT value FROM json_each(?))",
            [.text(Self.jsonList(ids))]
        ) { IndexedEntry(id: $0.int64(15), entry: CacheEntry(row: $0, root: root)) }
        return Dictionary(rows.map { ($0.id, $0.entry) }, uniquingKeysWith: { first, _ in first })
    }

    func deleteEntry(id: Int64) throws(CacheError) {
        try connection.statement("DELETE FROM entries WHERE id = ?").run([.integer(id)])
    }

    /// Deletes the rows `ids` in one statement (one pass over each index, one statement journal).
    func deleteEntries(ids: [Int64]) throws(CacheError) {
        guard !ids.isEmpty else { return }
        try connection.statement("DELETE FROM entries WHERE id IN (SELECT value FROM json_each(?))")
            .run([.text(Self.jsonList(ids))])
    }

    /// `[1,2,3]`: a list of ids bound as one parameter and read back by `json_each`.
    private static func jsonList(_ ids: [Int64]) -> String {
        "[" + ids.map(String.init).joined(separator: ",") + "]"
    }
}

extension CacheError {
    /// Another connection holds the index's write lock longer than the busy timeout.
    var isBusy: Bool {
        guard case .index(_, let code, _) = self else { return false }
        return code & 0xff == 5 || code & 0xff == 6  // SQLITE_BUSY, SQLITE_LOCKED
    }
}

extension CacheIndex {
    /// Tunes this connection for a clean's many deletes: a 256 MiB page cache (most of a 1M-entry
    /// index's pages stay in memory), a WAL checkpoint every 65,536 pages instead of 1,000, so pages
    /// dirtied by many batches (the totals, index interiors, leaves hit again) are copied back and
    /// synced once per many batches rather than after each one, and statement journals in memory (a
    /// delete that fires the totals triggers otherwise spills one to a temp file). Measured on a
    /// 1,000,000-row index (726,000 rows deleted, files absent so only the index counts): 132 s with
    /// 64 MiB and 8,192 pages, 107 s with these.
    func prepareForBulkDeletes() throws(CacheError) {
        try withConnection { connection throws(CacheError) in
            try connection.commit()
            try connection.database.execute(
                "PRAGMA cache_size = -262144; PRAGMA wal_autocheckpoint = 65536; PRAGMA temp_store = MEMORY")
        }
    }
}
