/// `recent_uses`: the last uses that runs recorded and that are not yet folded into their rows'
/// `accessed_at`, by row id (schema 15). A warm rerun uses every row it asks for. Written into the
/// entries table, each use rewrote its row's page (about 450 bytes a row), so a batch of uses rewrote
/// most of the table into the WAL, and a warm rerun of 20,000 URLs spent a third of its CPU doing it;
/// here a use is a 16-byte row of a table that holds nothing else (bench/RESULTS.md, "Last uses in a
/// table of their own").
///
/// An entry's last use is the later of its `accessed_at` and its row here (`lastUse`, which whole-row
/// reads select, `IndexSchema.selectedEntryColumns`; a lookup by path reads the row's own,
/// `IndexSchema.lookupColumns`). A run's uses of rows its lookups read are recorded by row id
/// (`recordByRowID`), the others by path (`record`). What reads the last uses of many rows at once (a
/// clean's least-recently-used walk and expiry by access, stats' ages and least recently used entry)
/// first folds them into the rows (`fold`), in a write transaction; so does each removal batch of a
/// clean before it checks its rule again, so that a use a run committed in between keeps its row. An
/// index opened as a snapshot (a read-only disk) cannot fold: there those read the rows as stored.
///
/// A row here is not deleted with its entry (that would cost every removal a lookup); the next fold
/// drops it. Until then it counts for the next row of the same id, which is the same path's (a path
/// takes the first free of its four slots, `IndexRowID`), save for a collision of 61 bits of hash;
/// and the later of the two times is taken, so a use from before a store changes nothing.
enum IndexRecentUses {
    static let create = """

        CREATE TABLE IF NOT EXISTS recent_uses (
            id INTEGER PRIMARY KEY,
            accessed_at REAL NOT NULL
        );

        """

    /// Records the uses of a JSON list of `[path, time]` pairs (`IndexValue.touchList`), each found
    /// by its path's row ids; a path without a row (removed since it was used) is passed over.
    static let record = """
        INSERT INTO recent_uses(id, accessed_at)
        SELECT entries.id, touched.time
        FROM (SELECT json_extract(value, '$[0]') AS path, json_extract(value, '$[1]') AS time FROM json_each(?1)) AS touched
        CROSS JOIN entries ON \(IndexRowID.matches("touched.path"))
        WHERE true
        ON CONFLICT(id) DO UPDATE SET accessed_at = max(recent_uses.accessed_at, excluded.accessed_at)
        """

    /// Records the uses of a JSON list of `[row id, time]` pairs (`IndexValue.rowTimeList`): rows a
    /// run's lookup read. A row removed since leaves its use here until the next fold drops it.
    static let recordByRowID = """
        INSERT INTO recent_uses(id, accessed_at)
        SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(?1)
        WHERE true
        ON CONFLICT(id) DO UPDATE SET accessed_at = max(recent_uses.accessed_at, excluded.accessed_at)
        """

    /// Whether any use waits to be folded.
    static let any = "SELECT EXISTS (SELECT 1 FROM recent_uses)"

    /// Moves every recorded use into its row, where it is the later one, and empties the table. The
    /// rows' updates move their `accessed_hour` totals (`IndexTotals.updateTrigger`).
    static let fold = """
        UPDATE entries SET accessed_at = recent_uses.accessed_at FROM recent_uses
        WHERE entries.id = recent_uses.id AND recent_uses.accessed_at > entries.accessed_at;
        DELETE FROM recent_uses;
        """

    /// An entry's last use, as a column of a query of `entries`.
    static let lastUse = """
        max(entries.accessed_at, coalesce((SELECT recent_uses.accessed_at FROM recent_uses WHERE recent_uses.id = entries.id), 0))
        """
}
