extension IndexMigration {
    /// 9 to 10: entries get `variant_of` (the relative path of the original a variant was made from)
    /// and `variant` (the variant's name), NULL for every row already there, which are all originals;
    /// and the partial index that finds an original's variants (a clean removing the original, `verify`).
    static let variants = """
        ALTER TABLE entries ADD COLUMN variant_of TEXT;
        ALTER TABLE entries ADD COLUMN variant TEXT;
        \(IndexSchema.variantIndex);
        UPDATE meta SET value = '10' WHERE key = 'schema_version';
        """
}
