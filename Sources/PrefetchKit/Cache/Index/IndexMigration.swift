/// Upgrades an index of an earlier schema in place, when a writer opens it, one step a version:
/// 8 to 9 gives entries a `frames` column (NULL, unknown, for the rows already there) and their running
/// totals a frames count (each existing entry counted as 1 frame, as the totals count unknown frames);
/// 9 to 10 is `IndexMigration+Variants.swift`. Cheap at any size: SQLite adds a column by rewriting the
/// schema, not the rows.
enum IndexMigration {
    /// The oldest schema this build upgrades.
    static let upgradable = "8"

    /// The step from each upgradable version to the next; each ends by writing the version it makes.
    static let steps: [String: String] = ["8": frames, "9": variants]

    private static let frames = """
        ALTER TABLE entries ADD COLUMN frames INTEGER;
        ALTER TABLE entry_totals ADD COLUMN frames INTEGER NOT NULL DEFAULT 0;
        UPDATE entry_totals SET frames = entries;
        DROP TRIGGER IF EXISTS entries_totals_update;
        \(IndexTotals.updateTrigger)
        UPDATE meta SET value = '9' WHERE key = 'schema_version';
        """

    /// The upgradable versions as a sentence says them: "8 and 9".
    static var upgradableList: String {
        steps.keys.compactMap { Int($0) }.sorted().map(String.init).joined(separator: " and ")
    }

    /// Whether an index of `version` is upgraded on open.
    static func upgrades(_ version: String?) -> Bool {
        version.map { steps[$0] != nil } ?? false
    }

    /// Runs the steps in one write transaction, unless another process did them first (two runs
    /// opening the same old index together: the second finds the new version once it has the lock).
    static func upgrade(_ database: IndexDatabase) throws(CacheError) {
        try database.execute("BEGIN IMMEDIATE")
        do throws(CacheError) {
            while let version = try database.text("SELECT value FROM meta WHERE key='schema_version'"), let step = steps[version] {
                try database.execute(step)
            }
            try database.execute("COMMIT")
        } catch {
            try? database.execute("ROLLBACK")
            throw error
        }
    }
}
