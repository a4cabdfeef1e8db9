/// Deleting entry rows: the one way rows leave the entries table, taking them off the running totals
/// (`IndexTotals`) and the largest entries (`IndexLargest`) as they go.
extension IndexConnection {
    /// Deletes the entry rows `condition` selects (a SQL condition over the entries' columns, its
    /// parameters bound from `values`) and subtracts them from the totals, one upsert per group touched;
    /// returns how many rows went. Runs in whatever transaction is open (a batch or a clean's own).
    @discardableResult
    func deleteEntries(where condition: String, _ values: [IndexValue]) throws(CacheError) -> Int {
        let delete = try statement("DELETE FROM entries WHERE \(condition) RETURNING byte_size, \(IndexTotals.valueColumns)")
        delete.reset()
        defer { delete.reset() }
        try delete.bind(values)
        var change = TotalsChange()
        while try delete.step() { change.remove(delete) }
        let upsert = try statement(
            """
            INSERT INTO entry_totals(dimension, value, entries, bytes) VALUES(?, ?, ?, ?)
            ON CONFLICT(dimension, value) DO UPDATE SET entries = entries + excluded.entries, bytes = bytes + excluded.bytes
            """)
        for (group, amount) in change.groups {
            try upsert.run([.text(IndexTotals.dimensions[group.dimension]), group.value, .integer(-amount.entries), .integer(-amount.bytes)])
        }
        if change.rows > 0 { try statement(IndexLargest.prune).run([]) }
        return change.rows
    }
}

/// The entries and bytes deleted rows took from each (dimension, value) group.
private struct TotalsChange {
    struct Group: Hashable {
        var dimension: Int
        var value: IndexValue
    }

    private(set) var groups: [Group: (entries: Int64, bytes: Int64)] = [:]
    private(set) var rows = 0

    /// Counts the row `row` is on: its size in column 0, its dimension values after it.
    mutating func remove(_ row: IndexStatement) {
        let bytes = row.int64(0)
        rows += 1
        for dimension in IndexTotals.dimensions.indices {
            let group = Group(dimension: dimension, value: row.value(Int32(dimension + 1)))
            groups[group, default: (0, 0)].entries += 1
            groups[group, default: (0, 0)].bytes += bytes
        }
    }
}
