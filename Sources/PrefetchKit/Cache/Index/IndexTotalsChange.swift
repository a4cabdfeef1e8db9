/// What rows added to or took from each (dimension, value) group of the running totals
/// (`IndexTotals`), gathered in memory and written as one upsert per group.
struct IndexTotalsChange {
    struct Group: Hashable {
        var dimension: Int
        var value: IndexValue
    }

    private(set) var groups: [Group: (entries: Int64, bytes: Int64, frames: Int64)] = [:]
    private(set) var rows = 0

    /// Counts the row `row` is on, `sign` times: its size in column `sizeColumn`, its frames
    /// (`IndexTotals.framesColumn`) in the next, its dimension values (`IndexTotals.valueColumns`) in
    /// the columns after those.
    mutating func count(_ row: IndexStatement, sizeColumn: Int32, sign: Int64) {
        let bytes = sign * row.int64(sizeColumn)
        let frames = sign * row.int64(sizeColumn + 1)
        rows += 1
        for dimension in IndexTotals.dimensions.indices {
            let group = Group(dimension: dimension, value: row.value(sizeColumn + 2 + Int32(dimension)))
            groups[group, default: (0, 0, 0)].entries += sign
            groups[group, default: (0, 0, 0)].bytes += bytes
            groups[group, default: (0, 0, 0)].frames += frames
        }
    }

    /// Adds what `other` counted.
    mutating func add(_ other: IndexTotalsChange) {
        rows += other.rows
        for (group, amount) in other.groups {
            groups[group, default: (0, 0, 0)].entries += amount.entries
            groups[group, default: (0, 0, 0)].bytes += amount.bytes
            groups[group, default: (0, 0, 0)].frames += amount.frames
        }
    }

    /// Adds the change to the kept totals, inside the transaction open on `connection`.
    func write(on connection: IndexConnection) throws(CacheError) {
        guard !groups.isEmpty else { return }
        let upsert = try connection.statement(
            """
            INSERT INTO entry_totals(dimension, value, entries, bytes, frames) VALUES(?, ?, ?, ?, ?)
            ON CONFLICT(dimension, value) DO UPDATE SET entries = entries + excluded.entries, bytes = bytes + excluded.bytes,
                frames = frames + excluded.frames
            """)
        for (group, amount) in groups {
            try upsert.run([.text(IndexTotals.dimensions[group.dimension]), group.value, .integer(amount.entries),
                            .integer(amount.bytes), .integer(amount.frames)])
        }
    }
}
