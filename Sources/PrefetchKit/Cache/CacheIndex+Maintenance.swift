import Foundation

/// An entry row with its row id, which conditional deletes need.
struct IndexedEntry: Sendable {
    var id: Int64
    var entry: CacheEntry
}

/// A row a clean may remove: what removing and reporting it takes, and where its walk goes on from.
struct RemovalCandidate: Sendable {
    var id: Int64
    var relativePath: String
    var size: Int64
    /// The row's time by the clock its walk follows.
    var date: Date
}

/// A walk over the entries by one clock, oldest first, in batches: each batch starts after the last
/// row of the one before (`cursor`).
struct RemovalWalk {
    var clock: ExpiryClock
    /// Only rows older than this by `clock`, when given.
    var before: Date?
    /// Rows older than `cutoff` by `clock` skipped (a dry run's trim, past what its expiry would take).
    var excluding: (clock: ExpiryClock, cutoff: Date)?
    var cursor: (date: Date, id: Int64)?

    init(by clock: ExpiryClock, before: Date? = nil, excluding: (clock: ExpiryClock, cutoff: Date)? = nil) {
        self.clock = clock
        self.before = before
        self.excluding = excluding
    }

    mutating func advance(past candidate: RemovalCandidate) {
        cursor = (candidate.date, candidate.id)
    }
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

    /// The next `limit` rows of `walk` as committed now (a dry run's listing).
    func candidates(of walk: RemovalWalk, limit: Int) throws(CacheError) -> [RemovalCandidate] {
        try withConnection { connection throws(CacheError) in try connection.candidates(of: walk, limit: limit) }
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

    /// Fills the largest entries' table again from one scan when removals left it short of
    /// `IndexLargest.keep` rows (a clean's last step; a second at 1,000,000 entries).
    func refillLargestIfShort() throws(CacheError) {
        try inWriteTransaction { transaction throws(CacheError) in try transaction.refillLargestIfShort() }
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

    /// The next `limit` rows of `walk` as committed now; inside the transaction nothing changes them
    /// before it ends.
    func candidates(of walk: RemovalWalk, limit: Int) throws(CacheError) -> [RemovalCandidate] {
        try connection.candidates(of: walk, limit: limit)
    }

    /// Fills the largest entries' table again when removals left it short (`IndexLargest.refill`).
    func refillLargestIfShort() throws(CacheError) {
        guard try connection.largestAreShort(of: IndexLargest.keep) else { return }
        try connection.database.execute(IndexLargest.refill)
    }

    func deleteEntry(id: Int64) throws(CacheError) {
        try connection.deleteEntries(where: "id = ?", [.integer(id)])
    }

    /// Deletes the rows `ids` in one statement (one pass over each index).
    func deleteEntries(ids: [Int64]) throws(CacheError) {
        guard !ids.isEmpty else { return }
        try connection.deleteEntries(where: "id IN (SELECT value FROM json_each(?))", [.text(Self.jsonList(ids))])
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

extension IndexConnection {
    /// Up to `limit` rows ordered by the walk's clock (then id) strictly after its cursor, older than its
    /// `before` when given, skipping those its `excluding` names.
    func candidates(of walk: RemovalWalk, limit: Int) throws(CacheError) -> [RemovalCandidate] {
        let column = CacheIndex.column(for: walk.clock)
        var conditions: [String] = []
        var values: [IndexValue] = []
        if let cursor = walk.cursor {
            conditions.append("\(column) >= ? AND (\(column) > ? OR id > ?)")
            values += [.date(cursor.date), .date(cursor.date), .integer(cursor.id)]
        }
        if let before = walk.before {
            conditions.append("\(column) < ?")
            values.append(.date(before))
        }
        if let excluding = walk.excluding {
            conditions.append("\(CacheIndex.column(for: excluding.clock)) >= ?")
            values.append(.date(excluding.cutoff))
        }
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        return try query(
            "SELECT id, relative_path, byte_size, \(column) FROM entries \(filter) ORDER BY \(column), id LIMIT ?",
            values + [.int(limit)]
        ) { row in
            RemovalCandidate(id: row.int64(0), relativePath: row.text(1) ?? "", size: row.int64(2), date: row.date(3) ?? .distantPast)
        }
    }
}

extension CacheIndex {
    /// Readies this connection for a clean's many deletes: a 256 MiB page cache (most of a 1M-entry
    /// index's pages stay in memory), and its WAL checkpoints handed to an `IndexCheckpointer` that
    /// copies every 65,536 pages beside the clean instead of inside its commits. Measured on a
    /// 1,000,000-row index (726,000 rows deleted, files absent so only the index counts): 132 s with a
    /// 64 MiB cache and checkpoints every 8,192 pages in the commits, 107 s with 256 MiB and 65,536
    /// pages in the commits; 60 s with the checkpointer, rows picked inside each batch and no delete
    /// trigger. `endBulkDeletes` hands the checkpoints back.
    func beginBulkDeletes() throws(CacheError) -> IndexCheckpointer {
        let checkpointer = try IndexCheckpointer(path: path, pages: 65_536)
        try withConnection { connection throws(CacheError) in
            try connection.commit()
            try connection.database.execute("PRAGMA cache_size = -262144")
            checkpointer.watch(connection.database)
        }
        return checkpointer
    }

    func endBulkDeletes(_ checkpointer: IndexCheckpointer) {
        try? withConnection { connection throws(CacheError) in checkpointer.finish(connection.database) }
    }
}
