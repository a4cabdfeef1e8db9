extension IndexMigration {
    /// Schema 14 to 15: the runs' uses are recorded in a table of their own (`IndexRecentUses`); the
    /// rows keep the last uses they hold.
    static let recentUses = Step(from: "14", to: "15", statements: IndexRecentUses.create)
}
