/// Upgrades an index of an earlier schema in place, when a writer opens it, one step at a time:
/// - 8 to 9 gives entries a `frames` column (NULL, unknown, for the rows already there) and their
///   running totals a frames count (each existing entry counted as 1 frame, as the totals count
///   unknown frames). Cheap at any size: SQLite adds a column by rewriting the schema, not the rows.
/// - 9 to 10 ranks the largest entries by row id after size (`IndexLargest`): the floor gains its row
///   id (the highest, so the rows kept are still exactly those at or above it) and the triggers are
///   made again; a table that schema 9 left short (a cache of tied sizes keeps none) is refilled from
///   one scan of the entries, once.
enum IndexMigration {
    /// The earliest schema this build upgrades.
    static let oldest = "8"

    /// Each step by the version it upgrades from; each ends by recording the version it makes.
    private static let steps: [String: String] = [
        "8": """
            ALTER TABLE entries ADD COLUMN frames INTEGER;
            ALTER TABLE entry_totals ADD COLUMN frames INTEGER NOT NULL DEFAULT 0;
            UPDATE entry_totals SET frames = entries;
            DROP TRIGGER IF EXISTS entries_totals_update;
            \(IndexTotals.updateTrigger)
            UPDATE meta SET value = '9' WHERE key = 'schema_version';
            """,
        "9": """
            INSERT OR IGNORE INTO meta(key, value) VALUES('largest_floor_id', '\(IndexLargest.lowestFloorID)');
            DROP TRIGGER IF EXISTS entries_largest_update;
            DROP TRIGGER IF EXISTS largest_entries_raise;
            \(IndexLargest.triggers)
            UPDATE meta SET value = '10' WHERE key = 'schema_version';
            """,
    ]

    /// Whether `version` is an earlier schema this build upgrades.
    static func upgrades(_ version: String?) -> Bool {
        version.map { steps[$0] != nil } ?? false
    }

    /// Runs the upgrade in one write transaction, unless another process did it first (two runs
    /// opening the same old index together: the second finds the new version once it has the lock).
    static func upgrade(_ database: IndexDatabase) throws(CacheError) {
        try database.execute("BEGIN IMMEDIATE")
        do throws(CacheError) {
            var upgraded = false
            while let version = try database.text("SELECT value FROM meta WHERE key='schema_version'"), let step = steps[version] {
                try database.execute(step)
                upgraded = true
            }
            if upgraded { try refillLargestIfShort(database) }
            try database.execute("COMMIT")
        } catch {
            try? database.execute("ROLLBACK")
            throw error
        }
    }

    /// The refill that a clean's last step makes (`CacheIndex.refillLargestIfShort`), on the upgrading
    /// connection.
    private static func refillLargestIfShort(_ database: IndexDatabase) throws(CacheError) {
        let connection = IndexConnection(database: database, batchRows: 1, batchInterval: 0)
        if try connection.largestAreShort(of: IndexLargest.keep) { try database.execute(IndexLargest.refill) }
    }
}
