/// The rows `export` takes, with only the columns it needs: a whole-cache export of a large cache
/// holds one small row an entry, not every column of it.
extension CacheIndex {
    /// An entry as an export sees it.
    package struct ExportRow: Sendable, Equatable {
        package var key: String
        package var relativePath: String
        package var size: Int64
        /// A format is recorded: the body was checked as an image (not stored with `validate: none`).
        package var isImage: Bool
        package var width: Int?
        package var height: Int?
    }

    /// Every original with a key; with `variant`, every variant of that name with a key instead, the
    /// newest of each original's (SQLite takes a bare column's value from the row `max()` picks).
    package func exportRows(variant: String?) throws(CacheError) -> [ExportRow] {
        let columns = "cache_key, relative_path, byte_size, format IS NOT NULL, width, height"
        let sql = variant == nil
            ? "SELECT \(columns) FROM entries WHERE variant_of IS NULL AND cache_key IS NOT NULL"
            : "SELECT \(columns), max(modified_at) FROM entries WHERE variant = ? AND cache_key IS NOT NULL GROUP BY variant_of"
        return try withConnection { connection throws(CacheError) in
            try connection.query(sql, variant.map { [.text($0)] } ?? []) { row in
                ExportRow(key: row.text(0) ?? "", relativePath: row.text(1) ?? "", size: row.int64(2), isImage: row.int(3) == 1,
                          width: row.int(4), height: row.int(5))
            }
        }
    }

    /// The relative paths of the rows a rescan made (no key: nothing to name their file by).
    package func keylessPaths() throws(CacheError) -> [String] {
        try withConnection { connection throws(CacheError) in
            try connection.query("SELECT relative_path FROM entries WHERE cache_key IS NULL", []) { $0.text(0) ?? "" }
        }
    }
}
