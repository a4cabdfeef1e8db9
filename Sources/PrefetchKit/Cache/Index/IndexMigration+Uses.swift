extension IndexMigration {
    /// Schema 12 to 13: the totals' update trigger split in two (`IndexTotals.updateTrigger`), so that a
    /// use in another hour than the entry's last moves its `accessed_hour` total alone. The totals
    /// themselves are unchanged.
    static let uses = Step(from: "12", to: "13", statements: """
        DROP TRIGGER IF EXISTS entries_totals_update;
        DROP TRIGGER IF EXISTS entries_totals_access;
        \(IndexTotals.updateTrigger)
        """)
}
