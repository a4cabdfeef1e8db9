/// Deleting entry rows: the one way rows leave the entries table, taking them off the running totals
/// (`IndexTotals`) and the largest entries (`IndexLargest`) as they go.
extension IndexConnection {
    /// Deletes the entry rows `condition` selects (a SQL condition over the entries' columns, its
    /// parameters bound from `values`) and subtracts them from the totals, one upsert per group touched;
    /// returns how many rows went. Runs in whatever transaction is open: a batch's `writing` (which has
    /// counted the batch's inserts first) or a clean's own (which committed the batch first).
    @discardableResult
    func deleteEntries(where condition: String, _ values: [IndexValue]) throws(CacheError) -> Int {
        let delete = try statement("DELETE FROM entries WHERE \(condition) RETURNING byte_size, \(IndexTotals.framesColumn), \(IndexTotals.valueColumns)")
        delete.reset()
        defer { delete.reset() }
        try delete.bind(values)
        var change = IndexTotalsChange()
        while try delete.step() { change.count(delete, sizeColumn: 0, sign: -1) }
        try change.write(on: self)
        if change.rows > 0 { try statement(IndexLargest.prune).run([]) }
        return change.rows
    }

    /// Deletes the rows `removal` read, in the same transaction as that read (so they are as it found
    /// them), and subtracts what it counted from the totals: the delete then returns nothing, and SQLite
    /// keeps no statement journal for it (a `RETURNING` makes every page the delete touches be copied
    /// aside first). Throws, leaving the rollback to the caller, when the delete did not take exactly the
    /// rows counted.
    func deleteEntries(_ removal: RemovalRows) throws(CacheError) {
        guard !removal.rows.isEmpty else { return }
        try statement("DELETE FROM entries WHERE id IN (SELECT value FROM json_each(?))").run([.idList(removal.rows.map(\.id))])
        guard database.changes == removal.change.rows else {
            throw .index(operation: "delete counted entries", code: 1,
                         message: "deleted \(database.changes) rows where \(removal.change.rows) were counted")
        }
        try removal.change.write(on: self)
        try statement(IndexLargest.prune).run([])
    }
}
