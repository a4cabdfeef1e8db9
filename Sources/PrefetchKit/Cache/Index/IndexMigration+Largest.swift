extension IndexMigration {
    /// Schema 10 to 11 ranks the largest entries by row id after size (`IndexLargest`): the floor gains
    /// its row id (the highest, so the rows kept are still exactly those at or above it) and the
    /// triggers are made again; a table the earlier schema left short is refilled after the steps.
    static let largest = Step(from: "10", to: "11", statements: """
        INSERT OR IGNORE INTO meta(key, value) VALUES('largest_floor_id', '\(IndexLargest.lowestFloorID)');
        DROP TRIGGER IF EXISTS entries_largest_update;
        DROP TRIGGER IF EXISTS largest_entries_raise;
        \(IndexLargest.triggers)
        """)
}
