extension IndexMigration {
    /// Schema 9 to 10 adds two tables and changes none: `partials`, the bodies a run kept part way
    /// for the next to resume (`IndexPartials`), and `freshness`, the freshness the origin gave each
    /// entry stored by a `refresh: http` set (`IndexFreshness`). Both start empty: an entry without a
    /// freshness row is judged as one whose response gave none.
    static let partials = Step(from: "9", to: "10", statements: IndexPartials.create + IndexFreshness.create)
}
