/// Upgrades an index of the schema before this one in place, when a writer opens it: schema 8 to 9
/// gives entries a `frames` column (NULL, unknown, for the rows already there) and their running
/// totals a frames count (each existing entry counted as 1 frame, as the totals count unknown frames).
/// Cheap at any size: SQLite adds a column by rewriting the schema, not the rows.
enum IndexMigration {
    /// The one earlier schema this build upgrades.
    static let upgradable = "8"

    private static let steps = """
        ALTER TABLE entries ADD COLUMN frames INTEGER;
        ALTER TABLE entry_totals ADD COLUMN frames INTEGER NOT NULL DEFAULT 0;
        UPDATE entry_totals SET frames = entries;
        DROP TRIGGER IF EXISTS entries_totals_update;
        \(IndexTotals.updateTrigger)
        UPDATE meta SET value = '\(IndexConnection.schemaVersion)' WHERE key = 'schema_version';
        """

    /// Runs the upgrade in one write transaction, unless another process did it first (two runs
    /// opening the same old index together: the second finds the new version once it has the lock).
    static func upgrade(_ database: IndexDatabase) throws(CacheError) {
        try database.execute("BEGIN IMMEDIATE")
        do throws(CacheError) {
            if try database.text("SELECT value FROM meta WHERE key='schema_version'") == upgradable {
                try database.execute(steps)
            }
            try database.execute("COMMIT")
        } catch {
            try? database.execute("ROLLBACK")
            throw error
        }
    }
}
