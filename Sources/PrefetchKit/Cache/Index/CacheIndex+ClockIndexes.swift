/// A removal of a large share of the rows goes without the two clocks' indexes and makes them again
/// in its last batch. Each batch deletes its rows in row order, which is no order in either clock, so every
/// batch rewrote most pages of the clocks' indexes that held its rows: at 1,000,000 entries, trimming
/// half in 37 batches wrote 880 MB to the WAL in a model of the same deletes, where sorting the
/// 500,000 rows left into new indexes wrote under a third of it (bench/maintain/RESULTS.md, "Eighteenth pass").
///
/// While they are gone nothing is wrong, only slower: every query that reads them (a walk, an expiry,
/// `stats`' oldest and newest) scans the table instead. A clean killed in between leaves them gone
/// until the next clean, which makes them first (`CacheCleaner.removing`).
extension CacheIndex {
    /// Whether a removal of `removed` of `rows` rows pays for dropping the clocks' indexes and making
    /// them again over the rest. With the indexes, a batch's deletes write about one index page for
    /// every `entriesPerPage` rows the removal takes (its rows' span of either index), up to one page a
    /// row, and every batch does so again: the pages written grow with the square of the rows removed.
    /// Making an index costs about as much as writing an index page for every
    /// `rowsPerPageWritten` rows it holds.
    static func dropsClockIndexes(removing removed: Int, of rows: Int, batchRows: Int) -> Bool {
        guard removed > 0, batchRows > 0 else { return false }
        let batches = (removed + batchRows - 1) / batchRows
        let pagesPerBatch = min(batchRows, removed / entriesPerPage)
        return batches * pagesPerBatch * rowsPerPageWritten > rows - removed
    }

    /// Entries of one clock's index in a page (two 8-byte numbers and their header, pages about
    /// three quarters full).
    static let entriesPerPage = 150
    /// Rows an index is made over for the cost of one page its deletes write. The eighteenth pass's
    /// model gave 28 (31 µs a page written, 1.1 µs a row sorted into a new index); since the indexes
    /// are made in the last batch while its files are unlinked, making them costs less of a clean's
    /// time than that, and with batches of 32,768 files 40 keeps the half of a 200,000-entry cache
    /// dropping them, 1.18x the bare unlink of the same files against 1.35x keeping them
    /// (bench/maintain/RESULTS.md, "Nineteenth pass").
    static let rowsPerPageWritten = 40

    /// Drops the clocks' indexes, each in a short write transaction.
    func dropClockIndexes() throws(CacheError) {
        try withConnection { connection throws(CacheError) in
            try connection.commit()
            try connection.database.execute(
                IndexSchema.clockIndexes.map { "DROP INDEX IF EXISTS \($0.name)" }.joined(separator: ";"))
        }
    }

    /// Makes those of the clocks' indexes that are missing, one write transaction each; reads only
    /// when both are there.
    func makeClockIndexes() throws(CacheError) {
        try withConnection { connection throws(CacheError) in
            try connection.commit()
            try connection.makeMissingClockIndexes()
        }
    }
}

extension IndexConnection {
    /// Makes those of the clocks' indexes that are missing, in the transaction under way if there is one.
    func makeMissingClockIndexes() throws(CacheError) {
        let present = Set(try query(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'entries'", []
        ) { $0.text(0) ?? "" })
        for index in IndexSchema.clockIndexes where !present.contains(index.name) {
            try database.execute(index.create)
        }
    }
}
