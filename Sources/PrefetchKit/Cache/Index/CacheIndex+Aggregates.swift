import Foundation

/// One group of a stats breakdown: its name and the entries, bytes and image frames in it.
package struct CacheGroupTotal: Sendable, Equatable {
    package var name: String
    package var entries: Int
    package var bytes: Int64
    /// Frames of the group's images (a still counts 1, as does an entry whose frames are unknown).
    package var frames: Int = 0
}

/// The aggregate reads stats is answered from: the running totals (see `IndexTotals`) and small
/// index-ordered queries. None of them reads every row.
extension CacheIndex {
    /// The totals of one dimension (`all`, `format`, `set`, `host`, `fetched_hour`, `accessed_hour`),
    /// largest by bytes first; empty groups are left out. `accessed_hour`'s count the uses runs
    /// recorded once they are folded in (`foldRecentUses`).
    package func totals(_ dimension: String) throws(CacheError) -> [CacheGroupTotal] {
        try withConnection { connection throws(CacheError) in
            try connection.settleInserted()
            return try connection.query(
                """
                SELECT CAST(value AS TEXT), entries, bytes, frames FROM entry_totals WHERE dimension = ? AND entries > 0
                ORDER BY bytes DESC, value
                """, [.text(dimension)]
            ) { CacheGroupTotal(name: $0.text(0) ?? "", entries: Int($0.int64(1)), bytes: $0.int64(2), frames: Int($0.int64(3))) }
        }
    }

    /// When the kept totals disagree with the rows anywhere (in any dimension): the kept count and
    /// bytes of all entries next to what the rows hold. Nil when they agree.
    func totalsDrift() throws(CacheError) -> CacheProblem? {
        try withConnection { connection throws(CacheError) in
            try connection.settleInserted()
            let differences = try connection.query(IndexTotals.differences, []) { $0.int64(0) }.first ?? 0
            guard differences > 0 else { return nil }
            return try connection.query(
                """
                SELECT (SELECT coalesce(sum(entries), 0) FROM entry_totals WHERE dimension = 'all'),
                       (SELECT coalesce(sum(bytes), 0) FROM entry_totals WHERE dimension = 'all'),
                       count(*), coalesce(sum(byte_size), 0) FROM entries
                """, []
            ) { row in
                CacheProblem.totalsMismatch(keptEntries: Int(row.int64(0)), keptBytes: row.int64(1),
                                            rowEntries: Int(row.int64(2)), rowBytes: row.int64(3))
            }.first
        }
    }

    /// Recomputes the kept totals and the largest entries' table from the rows, in one transaction.
    func recomputeTotals() throws(CacheError) {
        try withConnection { connection throws(CacheError) in
            try connection.writing { () throws(CacheError) in
                try connection.database.execute(IndexTotals.backfill + IndexLargest.refill)
            }
        }
    }

    /// The earliest and latest value of a time column (`fetched_at`, `accessed_at`: the latter as of the
    /// last fold of the recorded uses), from its index.
    /// Two subqueries: SQLite reads one end of the index for a lone `min()` or `max()`, but scans all of
    /// it (150 ms at a million rows) for both in one select.
    func timeRange(of column: String) throws(CacheError) -> (oldest: Date, newest: Date)? {
        try withConnection { connection throws(CacheError) in
            try connection.query(
                "SELECT (SELECT min(\(column)) FROM entries), (SELECT max(\(column)) FROM entries)", []
            ) { row in
                row.date(0).flatMap { oldest in row.date(1).map { (oldest, $0) } }
            }.first ?? nil
        }
    }

    /// The `limit` largest entries (ties by row id): from the `largest_entries` table, or from a scan of
    /// the entries when a removal left that table short (see `IndexLargest`).
    package func largestEntries(limit: Int) throws(CacheError) -> [CacheEntry] {
        let root = root
        return try withConnection { connection throws(CacheError) in
            try connection.settleInserted()
            let source = try connection.largestAreShort(of: limit)
                ? "entries" : "entries WHERE id IN (SELECT id FROM largest_entries)"
            return try connection.query(
                "SELECT \(IndexSchema.selectedEntryColumns) FROM \(source) ORDER BY byte_size DESC, id LIMIT ?", [.int(limit)]
            ) { CacheEntry(row: $0, root: root) }
        }
    }

    /// What the failure ledger can be counted by.
    package enum FailureGrouping: Sendable {
        case reason
        /// The URL's host, spelt as `totals("host")` spells it.
        case host

        var expression: String {
            switch self {
            case .reason: "reason"
            case .host: IndexTotals.host(of: "url")
            }
        }
    }

    /// The failure ledger's rows counted by `grouping` (as `entries`), most frequent first.
    package func failureCounts(by grouping: FailureGrouping) throws(CacheError) -> [CacheGroupTotal] {
        try withConnection { connection throws(CacheError) in
            try connection.query(
                "SELECT \(grouping.expression), count(*) FROM failures GROUP BY 1 ORDER BY 2 DESC, 1", []
            ) { CacheGroupTotal(name: $0.text(0) ?? "", entries: Int($0.int64(1)), bytes: 0) }
        }
    }
}
