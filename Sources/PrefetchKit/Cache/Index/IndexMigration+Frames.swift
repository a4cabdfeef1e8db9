extension IndexMigration {
    /// Schema 8 to 9 gives entries a `frames` column (NULL, unknown, for the rows already there) and
    /// their running totals a frames count (each existing entry counted as 1 frame, as the totals
    /// count unknown frames). Cheap at any size: SQLite adds a column by rewriting the schema, not the rows.
    static let frames = Step(from: "8", to: "9", statements: """
        ALTER TABLE entries ADD COLUMN frames INTEGER;
        ALTER TABLE entry_totals ADD COLUMN frames INTEGER NOT NULL DEFAULT 0;
        UPDATE entry_totals SET frames = entries;
        DROP TRIGGER IF EXISTS entries_totals_update;
        \(IndexTotals.updateTrigger)
        """)
}
