/// Entries by the URL a run stored with them (the `url` column, as runs show it: password and
/// `redact_params` values as `***`).
extension CacheIndex {
    /// The cache keys of the original rows whose stored URL is one of `urls`, in row order (a variant
    /// row stores its original's URL, and is found through `variant(of:originalKey:)`). The column has no
    /// index of its own (see `IndexSchema.entriesTable`): this reads the whole table, which a command
    /// asked about one URL can afford.
    package func keys(storedURLs urls: [String]) throws(CacheError) -> [String] {
        guard !urls.isEmpty else { return [] }
        return try withConnection { connection throws(CacheError) in
            try connection.query(
                "SELECT cache_key FROM entries WHERE url IN (\(urls.map { _ in "?" }.joined(separator: ", "))) AND cache_key IS NOT NULL AND variant_of IS NULL ORDER BY id",
                urls.map { .text($0) }
            ) { $0.text(0) ?? "" }
        }
    }
}
