/// `freshness`: how long the origin said an entry stays fresh, for `refresh: http`. One row an entry
/// stored or revalidated by such a set, by the entry's relative path, with the entry's `modified_at`
/// at that time: a row whose `modified_at` is not the entry's is of an earlier body (one stored since
/// by another set, or removed and fetched again) and is not used. `fresh_until` is NULL when the
/// response gave no freshness of its own (the set then falls back to `cache.max_age`). A row is never
/// deleted with its entry (that would cost every removal a lookup here); a later store replaces it.
enum IndexFreshness {
    static let create = """

        CREATE TABLE IF NOT EXISTS freshness (
            relative_path TEXT PRIMARY KEY,
            modified_at REAL NOT NULL,
            fresh_until REAL
        );

        """
}
