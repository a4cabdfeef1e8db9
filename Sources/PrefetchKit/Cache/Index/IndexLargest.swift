/// The largest entries, kept beside the entries table so that stats need no index on `byte_size`.
/// Such an index would cost every store and every removal a random B-tree page (bench/maintain/RESULTS.md,
/// "Design figures").
///
/// `largest_entries` holds exactly the entries whose size is at least a floor (`meta.largest_floor`):
/// an insert (`IndexConnection.settleInserted()`) or a size change (by trigger) at or above the floor
/// adds the row, a delete takes it out
/// (`prune`, one statement per delete batch: the table is small), and when the table grows past
/// `2 × keep` rows the floor rises to the `keep`-th largest size and the rows below it go; when more
/// than `2 × keep` rows tie at or above that size (a cache of one image size), one byte above it, so
/// the tied rows go too and the table never grows with the cache. Whatever the
/// removals, the rows left are the largest entries; when fewer are left than stats asks for (a big
/// clean took them), `largestEntries` scans the entries, and the clean's `refill` starts the table
/// again from one scan.
enum IndexLargest {
    /// The rows a refill keeps, and half the most the table holds.
    static let keep = 100

    /// The floor as a number, for triggers and queries.
    static let floor = "(SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'largest_floor')"

    static let create = """
        CREATE TABLE IF NOT EXISTS largest_entries (
            id INTEGER PRIMARY KEY,
            byte_size INTEGER NOT NULL
        );
        INSERT OR IGNORE INTO meta(key, value) VALUES('largest_floor', '0');
        CREATE TRIGGER IF NOT EXISTS entries_largest_update AFTER UPDATE OF byte_size ON entries
        WHEN old.byte_size IS NOT new.byte_size BEGIN
            DELETE FROM largest_entries WHERE id = old.id;
            INSERT INTO largest_entries(id, byte_size) SELECT new.id, new.byte_size WHERE new.byte_size >= \(floor);
        END;
        CREATE TRIGGER IF NOT EXISTS largest_entries_raise AFTER INSERT ON largest_entries
        WHEN (SELECT count(*) FROM largest_entries) > \(2 * keep) BEGIN
            UPDATE meta SET value = (
                SELECT CASE WHEN (SELECT count(*) FROM largest_entries WHERE byte_size >= k.size) > \(2 * keep)
                    THEN k.size + 1 ELSE k.size END
                FROM (SELECT byte_size AS size FROM largest_entries ORDER BY byte_size DESC LIMIT 1 OFFSET \(keep - 1)) AS k)
            WHERE key = 'largest_floor';
            DELETE FROM largest_entries WHERE byte_size < \(floor);
        END;
        """

    /// Adds the entry with id `?1` and size `?2` when its size is at least the floor (after an insert).
    static let join = "INSERT OR REPLACE INTO largest_entries(id, byte_size) SELECT ?1, ?2 WHERE ?2 >= \(floor)"

    /// Takes out the rows whose entries are gone (after a delete).
    static let prune = "DELETE FROM largest_entries WHERE NOT EXISTS (SELECT 1 FROM entries WHERE entries.id = largest_entries.id)"

    /// Fills the table again from one scan of the entries: the `keep + 1` largest, then the floor set one
    /// byte above the last of them, which drops it and any entry tied with it (so no tied entry outside
    /// the table is missed) and leaves at most `keep`; every entry, and a floor of 0, when there are no
    /// more than `keep`.
    static let refill = """
        DELETE FROM largest_entries;
        INSERT INTO largest_entries(id, byte_size) SELECT id, byte_size FROM entries ORDER BY byte_size DESC LIMIT \(keep + 1);
        UPDATE meta SET value = CASE WHEN (SELECT count(*) FROM largest_entries) <= \(keep) THEN 0
            ELSE (SELECT min(byte_size) + 1 FROM largest_entries) END
        WHERE key = 'largest_floor';
        DELETE FROM largest_entries WHERE byte_size < \(floor);
        """
}

extension IndexConnection {
    /// Whether the table has fewer than `limit` rows while entries outside it (below a floor above 0)
    /// might come next: then it cannot answer for the `limit` largest.
    func largestAreShort(of limit: Int) throws(CacheError) -> Bool {
        let kept = try query("SELECT count(*), \(IndexLargest.floor) FROM largest_entries", []) {
            (rows: Int($0.int64(0)), floor: $0.int64(1))
        }.first
        guard let kept else { return true }
        return kept.rows < limit && kept.floor > 0
    }
}
