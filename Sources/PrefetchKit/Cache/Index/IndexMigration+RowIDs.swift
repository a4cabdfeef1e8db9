extension IndexMigration {
    /// Schema 13 to 14: every entry's row id made from its relative path (`IndexRowID`), and the unique
    /// index on the path gone. The table is copied in id order into one without the path's uniqueness
    /// (a constraint SQLite cannot drop), each row at the first slot of its path, paths sharing a base
    /// in the order of their old ids; then the old table goes (its indexes and triggers with it), the
    /// new one takes its name, and its indexes and triggers are made again. The largest entries, kept by
    /// row id, are filled again from the new ids; the totals are unchanged (the same rows). The copy
    /// needs free space for the table once more; the old table's pages are reused by later rows.
    /// The new table is `IndexSchema`'s: a later schema that changes it
    /// (or the columns and indexes used here) must write schema 14's here.
    static let rowIDs = Step(from: "13", to: "14", statements: """
        \(IndexSchema.entriesTable(named: "entries_v14"));
        INSERT INTO entries_v14(id, \(IndexSchema.entryColumns))
        SELECT base + row_number() OVER (PARTITION BY base ORDER BY old_id) - 1, \(IndexSchema.entryColumns)
        FROM (SELECT path_id(relative_path) AS base, id AS old_id, \(IndexSchema.entryColumns) FROM entries)
        ORDER BY 1;
        DROP TABLE entries;
        ALTER TABLE entries_v14 RENAME TO entries;
        \(IndexSchema.entriesIndexes);
        \(IndexTotals.updateTrigger)
        \(IndexLargest.triggers)
        \(IndexLargest.refill)
        """)
}
