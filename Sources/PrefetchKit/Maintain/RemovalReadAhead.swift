/// The next batch of a clean, its rows read through the index's reader connection on a thread of
/// their own while the batch before it is removed: that read was a third of the main thread's time,
/// which set a clean's wall time (bench/maintain/RESULTS.md, "Fifteenth pass").
///
/// The read starts inside the batch before's write transaction, after that transaction has taken
/// the index's version (`IndexWriteVersion`), so it sees the rows as committed when that batch began,
/// or (if it starts late) as that batch left them. The rows stand for the batch's own read only when
/// nothing else changed the index between: no other connection committed (the data version is the
/// same at the batch's start), the clean's own connection wrote nothing since the batch before's last
/// statement (its change count is the same), and none of the rows is one the batch before removed
/// beyond its own ids (a variant of its originals). Otherwise the batch reads its rows itself.
struct RemovalReadAhead {
    /// The batch's row ids.
    let ids: ArraySlice<Int64>
    /// The index's data version inside the transaction during which the read started.
    let dataVersion: Int64
    private let pending: PendingResult<RemovalRows, CacheError>

    /// Starts reading the rows `ids` that `rule` takes on `thread`.
    init(ids: ArraySlice<Int64>, rule: RemovalRule, dataVersion: Int64, index: CacheIndex, on thread: WorkerPool) {
        self.ids = ids
        self.dataVersion = dataVersion
        pending = PendingResult(on: thread) { () throws(CacheError) in
            try index.withReader { reader throws(CacheError) in try reader.removalRows(ids: ids, where: rule, keep: { _ in true }) }
        }
    }

    /// The rows read, when they are the rows as the index is at `now`, after the batch before
    /// (`previous`) removed its rows; nil when the batch must read them itself (a failed read included).
    func rows(at now: IndexWriteVersion, after previous: RemovedBatch) -> RemovalRows? {
        guard let rows = try? pending.wait(),
              now.data == dataVersion && now.changes == previous.changes,
              previous.beyondItsIDs.isEmpty || !rows.rows.contains(where: { previous.beyondItsIDs.contains($0.id) })
        else { return nil }
        return rows
    }
}

/// What the last batch a clean committed left for the next one's check of its read-ahead rows.
struct RemovedBatch {
    /// The clean's connection's change count after the batch's last statement.
    let changes: Int64
    /// The rows it removed that were not among its ids (variants of its originals, rows of a failed attempt).
    let beyondItsIDs: Set<Int64>
}
