/// The largest entries, kept beside the entries table so that stats need no index on `byte_size`.
/// Such an index would cost every store and every removal a random B-tree page (bench/maintain/RESULTS.md,
/// "Design figures").
///
/// Entries rank by size, largest first, then by row id, lowest first: the order stats lists them in,
/// and one without ties. `largest_entries` holds exactly the entries that rank at or above a floor, an
/// entry's size and row id (`meta.largest_floor`, `meta.largest_floor_id`): an insert
/// (`IndexConnection.settleInserted()`) or a size change (by trigger) that ranks at or above it adds the
/// row, a delete takes it out (`prune`, one statement per delete batch: the table is small), and when
/// the table grows past `2 × keep` rows the floor rises to the `keep`-th row and the rows below it go.
/// Ranked by row id too, entries of one size (a job that stores one image under many URLs) never tie at
/// the floor, so the table keeps `keep` of them rather than none (schema 9's floor was a size alone, set
/// one byte above a tie it could not split: then every stats read scanned the entries).
/// Whatever the removals, the rows left are the largest entries; when fewer are left than stats asks
/// for (a big clean took them), `largestEntries` scans the entries, and the clean's `refill` starts the
/// table again from one scan.
enum IndexLargest {
    /// The rows a refill keeps, and half the most the table holds.
    static let keep = 100

    /// The floor's size and row id, as numbers, for triggers and queries.
    static let floor = "(SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'largest_floor')"
    static let floorID = "(SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'largest_floor_id')"

    /// The floor below every entry (a cache of at most `keep` entries keeps them all): size 0, the
    /// highest row id.
    static let lowestFloorID = Int64.max

    /// Whether the entry of size `size` and row id `id` ranks at or above the floor.
    static func ranksAtFloor(size: String, id: String) -> String {
        "(\(size) > \(floor) OR (\(size) = \(floor) AND \(id) <= \(floorID)))"
    }

    static let create = """
        CREATE TABLE IF NOT EXISTS largest_entries (
            id INTEGER PRIMARY KEY,
            byte_size INTEGER NOT NULL
        );
        INSERT OR IGNORE INTO meta(key, value) VALUES('largest_floor', '0');
        INSERT OR IGNORE INTO meta(key, value) VALUES('largest_floor_id', '\(lowestFloorID)');
        \(triggers)
        """

    /// The `keep`-th row of the table, by rank: where a raised floor goes.
    private static func keptRow(_ column: String) -> String {
        "(SELECT \(column) FROM largest_entries ORDER BY byte_size DESC, id LIMIT 1 OFFSET \(keep - 1))"
    }

    /// A size change moves the row in or out; a table past `2 × keep` rows has its floor raised.
    static let triggers = """
        CREATE TRIGGER IF NOT EXISTS entries_largest_update AFTER UPDATE OF byte_size ON entries
        WHEN old.byte_size IS NOT new.byte_size BEGIN
            DELETE FROM largest_entries WHERE id = old.id;
            INSERT INTO largest_entries(id, byte_size) SELECT new.id, new.byte_size WHERE \(ranksAtFloor(size: "new.byte_size", id: "new.id"));
        END;
        CREATE TRIGGER IF NOT EXISTS largest_entries_raise AFTER INSERT ON largest_entries
        WHEN (SELECT count(*) FROM largest_entries) > \(2 * keep) BEGIN
            UPDATE meta SET value = \(keptRow("byte_size")) WHERE key = 'largest_floor';
            UPDATE meta SET value = \(keptRow("id")) WHERE key = 'largest_floor_id';
            DELETE FROM largest_entries WHERE NOT \(ranksAtFloor(size: "byte_size", id: "id"));
        END;
        """

    /// Adds the entry with id `?1` and size `?2` when it ranks at or above the floor (after an insert).
    static let join = "INSERT OR REPLACE INTO largest_entries(id, byte_size) SELECT ?1, ?2 WHERE \(ranksAtFloor(size: "?2", id: "?1"))"

    /// Takes out the rows whose entries are gone (after a delete).
    static let prune = "DELETE FROM largest_entries WHERE NOT EXISTS (SELECT 1 FROM entries WHERE entries.id = largest_entries.id)"

    /// Fills the table again from one scan of the entries: the `keep + 1` largest, then the floor set at
    /// the `keep`-th, which drops the last; every entry, and the lowest floor, when there are no more
    /// than `keep`.
    static let refill = """
        DELETE FROM largest_entries;
        INSERT INTO largest_entries(id, byte_size) SELECT id, byte_size FROM entries ORDER BY byte_size DESC, id LIMIT \(keep + 1);
        UPDATE meta SET value = CASE WHEN (SELECT count(*) FROM largest_entries) <= \(keep) THEN 0 ELSE \(keptRow("byte_size")) END
        WHERE key = 'largest_floor';
        UPDATE meta SET value = CASE WHEN (SELECT count(*) FROM largest_entries) <= \(keep) THEN \(lowestFloorID) ELSE \(keptRow("id")) END
        WHERE key = 'largest_floor_id';
        DELETE FROM largest_entries WHERE NOT \(ranksAtFloor(size: "byte_size", id: "id"));
        """
}

extension IndexConnection {
    /// Whether the table has fewer than `limit` rows while entries outside it (below a floor above the
    /// lowest) might come next: then it cannot answer for the `limit` largest.
    func largestAreShort(of limit: Int) throws(CacheError) -> Bool {
        let kept = try query("SELECT count(*), \(IndexLargest.floor), \(IndexLargest.floorID) FROM largest_entries", []) {
            (rows: Int($0.int64(0)), floor: $0.int64(1), floorID: $0.int64(2))
        }.first
        guard let kept else { return true }
        return kept.rows < limit && (kept.floor > 0 || kept.floorID != IndexLargest.lowestFloorID)
    }
}
