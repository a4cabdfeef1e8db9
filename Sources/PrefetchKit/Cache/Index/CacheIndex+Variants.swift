/// The rows of variants, found from their original through the partial index `entries_variant_of`.
extension CacheIndex {
    /// How many variants the cache holds and their bytes, through the partial index `entries_variant_of`
    /// (a scan of the variants only, not of the originals).
    package func variantTotal() throws(CacheError) -> CacheGroupTotal {
        try withConnection { connection throws(CacheError) in
            try connection.query(
                "SELECT count(*), coalesce(sum(byte_size), 0) FROM entries WHERE variant_of IS NOT NULL", []
            ) { CacheGroupTotal(name: "variants", entries: $0.int(0) ?? 0, bytes: $0.int64(1)) }.first
        } ?? CacheGroupTotal(name: "variants", entries: 0, bytes: 0)
    }

    /// Every variant row made from the original at `relativePath`.
    package func variants(ofOriginalAt relativePath: String) throws(CacheError) -> [CacheEntry] {
        let root = root
        return try withConnection { connection throws(CacheError) in
            try connection.query(
                "SELECT \(IndexSchema.selectedEntryColumns) FROM entries WHERE variant_of = ? ORDER BY variant", [.text(relativePath)]
            ) { CacheEntry(row: $0, root: root) }
        }
    }
}
