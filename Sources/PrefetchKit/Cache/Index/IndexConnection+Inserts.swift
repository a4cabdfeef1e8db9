internal import CSQLite

/// Inserting entry rows: the one way rows enter the entries table. What a batch inserts is added to the
/// running totals (`IndexTotals`) and the largest entries (`IndexLargest`) in one go, before anything
/// else in the batch changes or reads them and at the latest as the batch commits: one read of the
/// batch's new rows and one upsert per group touched, instead of six upserts and a largest-entries test
/// per row by trigger (bench/RESULTS.md, "Design figures"). Updates keep theirs by trigger.
extension IndexConnection {
    /// Inserts the entry's row unless one has its relative path; true when it did. Counts as one write
    /// of the batch. The row takes the first free slot of its path's (`IndexRowID`); the open batch
    /// holds the index's write lock, so no other writer takes it meanwhile.
    func insertEntry(_ entry: CacheEntry) throws(CacheError) -> Bool {
        try beginIfNeeded()
        let slotIDs = IndexRowID.slotIDs(of: entry.relativePath)
        let statements = try entryStatements()
        let slots = statements.slots
        slots.reset()
        defer { slots.reset() }
        try slots.bind(1, slotIDs.lowerBound)
        try slots.bind(2, slotIDs.upperBound)
        try slots.bind(3, entry.relativePath)
        // Which of the path's slots hold a row (bit 0 the first), and whether one of them is its own.
        var taken: UInt8 = 0
        var isStored = false
        while try slots.step() {
            taken |= 1 << UInt8(slots.int64(0) - slotIDs.lowerBound)
            isStored = isStored || slots.int64(1) == 1
        }
        var inserted = false
        if !isStored {
            guard let id = slotIDs.first(where: { taken & 1 << UInt8($0 - slotIDs.lowerBound) == 0 }) else {
                throw .index(operation: "store \(entry.relativePath)", code: SQLITE_CONSTRAINT,
                             message: "every row id of the path's \(IndexRowID.slots) is taken by another path")
            }
            try statements.insert.run { insert throws(CacheError) in
                try insert.bind(1, id)
                try entry.bind(to: insert, from: 2)
            }
            insertedRows.append((id, entry.size))
            inserted = true
        }
        try countWrite()
        return inserted
    }

    /// The two statements every new entry runs, prepared once and kept (`entryStatementsKept`): looked
    /// up by their SQL text, each cost a hash of it per stored entry.
    private func entryStatements() throws(CacheError) -> EntryStatements {
        if let kept = entryStatementsKept { return kept }
        let kept = EntryStatements(
            slots: try statement("SELECT id, relative_path = ?3 FROM entries WHERE id BETWEEN ?1 AND ?2"),
            insert: try statement(
                "INSERT INTO entries(id, \(IndexSchema.entryColumns)) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"))
        entryStatementsKept = kept
        return kept
    }

    /// Adds the rows inserted since the last call to the totals and to the largest entries, as their
    /// insert triggers did: a row joins the largest entries when its size is at least the floor as it
    /// stands then (which a join can raise).
    func settleInserted() throws(CacheError) {
        forgetRolledBackBatch()
        guard !insertedRows.isEmpty else { return }
        // Taken first: a failure part way must not count the rows twice on the next call.
        let rows = insertedRows
        insertedRows = []
        let read = try statement(
            "SELECT byte_size, \(IndexTotals.framesColumn), \(IndexTotals.valueColumns) FROM entries WHERE id IN (SELECT value FROM json_each(?))")
        read.reset()
        defer { read.reset() }
        try read.bind([.idList(rows.map(\.id))])
        var totals = IndexTotalsChange()
        while try read.step() { totals.count(read, sizeColumn: 0, sign: 1) }
        try totals.write(on: self)
        let floor = try query("SELECT \(IndexLargest.floor)", []) { $0.int64(0) }.first ?? 0
        let join = try statement(IndexLargest.join)
        for row in rows where row.size >= floor {
            try join.run([.integer(row.id), .integer(row.size)])
        }
    }
}
