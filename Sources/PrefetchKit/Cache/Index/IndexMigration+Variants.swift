extension IndexMigration {
    /// Schema 11 to 12: entries get `variant_of` (the relative path of the original a variant was made
    /// from) and `variant` (the variant's name), NULL for every row already there, which are all
    /// originals; and the partial index that finds an original's variants (a clean removing the
    /// original, `verify`).
    static let variants = Step(from: "11", to: "12", statements: """
        ALTER TABLE entries ADD COLUMN variant_of TEXT;
        ALTER TABLE entries ADD COLUMN variant TEXT;
        \(IndexSchema.variantIndex);
        """)
}
