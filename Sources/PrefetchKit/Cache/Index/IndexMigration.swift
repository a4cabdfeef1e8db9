/// Brings an index written by an older prefetchd up to `IndexConnection.schemaVersion` in place,
/// keeping its rows (a rebuild from the files would lose URLs, sets and the failure ledger).
enum IndexMigration {
    /// Schema versions this code can migrate from.
    static let migratable: Set<String> = ["1", "2", "3", "4", "5", "6", "7"]
    /// Older versions whose tables read as the current one's (the migrations since changed only
    /// indexes and triggers): a read-only snapshot (`CacheIndex.openSnapshot`) reads them as they are.
    static let readableAsIs: Set<String> = ["5", "6", "7"]

    /// In one transaction (a concurrent opener that migrated first is noticed inside it):
    /// - 1 -> 2: the `entry_totals` table and its triggers, filled from the entries, and the size index
    ///   the largest-entries query uses;
    /// - 2 -> 3: the entries table rebuilt without the unique index on `cache_key` (rows and ids kept;
    ///   its other indexes and triggers made again);
    /// - 3 -> 4: the delete trigger on `entries` dropped (deletes keep the totals themselves, see
    ///   `IndexConnection.deleteEntries(where:)`);
    /// - 4 -> 5: the size index dropped, the largest entries kept in their own table (`IndexLargest`);
    /// - 5 -> 6: the index on `modified_at` dropped (`IndexSchema`);
    /// - 6 -> 7: the trigger that raises the largest entries' floor made again, so that ties at the
    ///   floor cannot grow the table (`IndexLargest`), and the table refilled;
    /// - 7 -> 8: the insert triggers of the totals and the largest entries dropped (inserts keep both
    ///   themselves, see `IndexConnection.insertEntry(_:)`).
    static func migrate(_ database: IndexDatabase) throws(CacheError) {
        try database.execute("BEGIN IMMEDIATE")
        do throws(CacheError) {
            let version = try database.text("SELECT value FROM meta WHERE key='schema_version'")
            if let version, migratable.contains(version) {
                if version == "1" || version == "2" { try rebuildEntries(database) }
                try database.execute("DROP INDEX IF EXISTS entries_byte_size")
                try database.execute("DROP INDEX IF EXISTS entries_modified_at")
                try database.execute("DROP TRIGGER IF EXISTS entries_totals_delete")
                try database.execute("DROP TRIGGER IF EXISTS largest_entries_raise")
                try database.execute("DROP TRIGGER IF EXISTS entries_totals_insert")
                try database.execute("DROP TRIGGER IF EXISTS entries_largest_insert")
                try database.execute(IndexSchema.create)
                if version == "1" { try database.execute(IndexTotals.backfill) }
                try database.execute(IndexLargest.refill)
                try database.execute(
                    "UPDATE meta SET value = '\(IndexConnection.schemaVersion)' WHERE key = 'schema_version'")
            }
            try database.execute("COMMIT")
        } catch {
            try? database.execute("ROLLBACK")
            throw error
        }
    }

    /// Copies the entries into a table of the current definition and puts it in the old one's place;
    /// dropping the old table drops its indexes and triggers, which `IndexSchema.create` makes again.
    private static func rebuildEntries(_ database: IndexDatabase) throws(CacheError) {
        let columns = "id, " + IndexSchema.entryColumns
        try database.execute("""
            DROP TABLE IF EXISTS entries_rebuilt;
            \(IndexSchema.entriesTable(named: "entries_rebuilt"));
            INSERT INTO entries_rebuilt(\(columns)) SELECT \(columns) FROM entries;
            DROP TABLE entries;
            ALTER TABLE entries_rebuilt RENAME TO entries;
            """)
    }
}
