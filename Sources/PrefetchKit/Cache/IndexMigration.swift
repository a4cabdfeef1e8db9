/// Brings an index written by an older prefetchd up to `IndexConnection.schemaVersion` in place,
/// keeping its rows (a rebuild from the files would lose URLs, sets and the failure ledger).
enum IndexMigration {
    /// Schema versions this code can migrate from.
    static let migratable: Set<String> = ["1"]

    /// Version 1 -> 2: adds the `entry_totals` table and its triggers, fills it from the entries, and
    /// the size index the largest-entries query uses. One transaction; a concurrent opener that
    /// migrated first is noticed inside it.
    static func migrate(_ database: IndexDatabase) throws(CacheError) {
        try database.execute("BEGIN IMMEDIATE")
        do throws(CacheError) {
            let version = try database.text("SELECT value FROM meta WHERE key='schema_version'")
            if let version, migratable.contains(version) {
                try database.execute(IndexSchema.create)
                try database.execute(IndexTotals.backfill)
                try database.execute(
                    "UPDATE meta SET value = '\(IndexConnection.schemaVersion)' WHERE key = 'schema_version'")
            }
            try database.execute("COMMIT")
        } catch {
            try? database.execute("ROLLBACK")
            throw error
        }
    }
}
