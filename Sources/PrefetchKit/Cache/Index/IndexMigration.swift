/// Upgrades an index of an earlier released schema in place, when a writer opens it: each step takes
/// one version to the next (`IndexMigration+Frames`: 8 to 9, `IndexMigration+Partials`: 9 to 10,
/// `IndexMigration+Largest`: 10 to 11, `IndexMigration+Variants`: 11 to 12, `IndexMigration+Uses`: 12 to 13,
/// `IndexMigration+RowIDs`: 13 to 14, `IndexMigration+RecentUses`: 14 to 15), and an index several
/// versions behind runs them one after the other, in one write transaction.
enum IndexMigration {
    /// One step: the version it upgrades and the statements that make it the next.
    struct Step {
        let from: String
        let to: String
        let statements: String
    }

    /// Every step, oldest first; each `to` is the next one's `from`, the last one's the current schema.
    static let steps: [Step] = [frames, partials, largest, variants, uses, rowIDs, recentUses]

    /// The oldest schema this build upgrades; older ones were pre-releases, refused.
    static let upgradable = steps[0].from

    /// Whether an index of `version` is upgraded rather than refused.
    static func upgrades(_ version: String?) -> Bool {
        steps.contains { $0.from == version }
    }

    /// Runs the steps from the index's version in one write transaction, unless another process did
    /// it first (two runs opening the same old index together: the second finds the new version once
    /// it has the lock).
    static func upgrade(_ database: IndexDatabase) throws(CacheError) {
        try database.execute("BEGIN IMMEDIATE")
        do throws(CacheError) {
            var version = try database.text("SELECT value FROM meta WHERE key='schema_version'")
            let upgraded = version != IndexConnection.schemaVersion
            while let step = steps.first(where: { $0.from == version }) {
                try database.execute(step.statements)
                try database.execute("UPDATE meta SET value = '\(step.to)' WHERE key = 'schema_version'")
                version = step.to
            }
            if upgraded { try refillLargestIfShort(database) }
            try database.execute("COMMIT")
        } catch {
            try? database.execute("ROLLBACK")
            throw error
        }
    }

    /// The refill that a clean's last step makes (`CacheIndex.refillLargestIfShort`), on the upgrading
    /// connection: a largest-entries table an earlier schema left short (a cache of tied sizes kept
    /// none) is filled once.
    private static func refillLargestIfShort(_ database: IndexDatabase) throws(CacheError) {
        let connection = IndexConnection(database: database, batchRows: 1, batchInterval: 0)
        if try connection.largestAreShort(of: IndexLargest.keep) { try database.execute(IndexLargest.refill) }
    }
}
