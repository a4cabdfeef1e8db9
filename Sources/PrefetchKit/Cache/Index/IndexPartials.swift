/// `partials`: the bodies a run received part way and kept for a later run to resume, one row a
/// cache key. The file is `relative_path` (under `tmp/`, named `<sha256(key)>.resume`); it holds at
/// least `byte_size` bytes, the body's first, fsynced before the row was written, so a crash leaves a
/// usable partial or a file without a row, never a row over bytes that are not there. The validator
/// (`etag`, else `last_modified`) is what the next run sends in `If-Range`. Not an entry: no totals,
/// no stats, no fsck checks of an image; a clean removes it once `expires_at` (its set's
/// `resume_max_age` after it was recorded) has passed.
enum IndexPartials {
    static let create = """

        CREATE TABLE IF NOT EXISTS partials (
            cache_key TEXT PRIMARY KEY,
            relative_path TEXT NOT NULL UNIQUE,
            url TEXT NOT NULL,
            byte_size INTEGER NOT NULL,
            etag TEXT,
            last_modified TEXT,
            recorded_at REAL NOT NULL,
            expires_at REAL NOT NULL
        );

        """
}
