/// The index's tables. Times are seconds since 1970 (REAL). The relative path is an entry's
/// identity (it is a function of the cache key), and the row id a function of the path
/// (`IndexRowID`); the key itself is unknown for rescanned files.
///
/// Two of the clocks have an index: `accessed_at` (a trim's least-recently-used walk, expiry by access)
/// and `fetched_at` (stats' oldest and newest, expiry by creation). `modified_at` has none: only an
/// expiry by modification reads it, which a clean does once, in one scan of the table, while an index
/// on it would cost every store and every removed row a B-tree entry more.
enum IndexSchema {
    static let create: String = """
        CREATE TABLE IF NOT EXISTS meta (
            key TEXT PRIMARY KEY,
            value TEXT NOT NULL
        );
        \(entriesTable);
        \(entriesIndexes);
        CREATE TABLE IF NOT EXISTS failures (
            cache_key TEXT PRIMARY KEY,
            url TEXT NOT NULL,
            reason TEXT NOT NULL,
            http_status INTEGER,
            attempts INTEGER NOT NULL,
            next_retry_at REAL,
            last_error_at REAL NOT NULL
        );
        CREATE TABLE IF NOT EXISTS runs (
            id INTEGER PRIMARY KEY,
            job TEXT NOT NULL,
            started_at REAL NOT NULL,
            duration_s REAL NOT NULL,
            totals TEXT NOT NULL
        );
        """ + IndexTotals.create + IndexLargest.create + IndexPartials.create + IndexFreshness.create
        + IndexRecentUses.create

    /// The entries table. The relative path is the identity, found through the row id made from it
    /// (`IndexRowID`), so neither it nor the cache key has an index of its own (nothing looks an entry
    /// up by key, and the path is a function of the key): one would cost every store and every removal
    /// a random B-tree page more. Each path has one row: the store path checks its slots under the
    /// index's write lock (`IndexConnection.insertEntry`).
    static let entriesTable = entriesTable(named: "entries")

    /// The entries table under another name (`IndexMigration.rowIDs` fills one to take its place).
    static func entriesTable(named name: String) -> String {
        """
        CREATE TABLE IF NOT EXISTS \(name) (
            id INTEGER PRIMARY KEY,
            url TEXT,
            cache_key TEXT,
            set_name TEXT,
            relative_path TEXT NOT NULL,
            byte_size INTEGER NOT NULL,
            format TEXT,
            width INTEGER,
            height INTEGER,
            etag TEXT,
            last_modified TEXT,
            checksum TEXT,
            fetched_at REAL NOT NULL,
            modified_at REAL NOT NULL,
            accessed_at REAL NOT NULL,
            validated_at REAL,
            frames INTEGER,
            variant_of TEXT,
            variant TEXT
        )
        """
    }

    /// The entry columns every entry query selects, in `CacheEntry.init(row:root:)` order.
    static let entryColumns = entryColumns(accessedAt: "accessed_at")

    /// The entry columns with `accessedAt` in `accessed_at`'s place.
    private static func entryColumns(accessedAt: String) -> String {
        """
        url, cache_key, set_name, relative_path, byte_size, format, width, height, etag, last_modified, \
        checksum, fetched_at, modified_at, \(accessedAt), validated_at, frames, variant_of, variant
        """
    }

    /// The entries table's indexes: its two clocks and its variants.
    static let entriesIndexes = (clockIndexes.map(\.create) + [variantIndex]).joined(separator: ";\n")

    /// The indexes on the two clocks, by name. A clean removing a large share of the rows goes without
    /// them and makes them again after (`CacheIndex.dropClockIndexes`).
    static let clockIndexes = [
        (name: "entries_accessed_at", create: "CREATE INDEX IF NOT EXISTS entries_accessed_at ON entries(accessed_at)"),
        (name: "entries_fetched_at", create: "CREATE INDEX IF NOT EXISTS entries_fetched_at ON entries(fetched_at)"),
    ]

    /// An original's variants by its relative path; partial, so originals cost it nothing.
    static let variantIndex = "CREATE INDEX IF NOT EXISTS entries_variant_of ON entries(variant_of) WHERE variant_of IS NOT NULL"

    /// `entryColumns` as a query of `entries` selects them: with the entry's last use
    /// (`IndexRecentUses.lastUse`) for `accessed_at`.
    static let selectedEntryColumns = entryColumns(accessedAt: IndexRecentUses.lastUse)

    /// The columns of a lookup by path (a run's read-ahead, `DiskCache.lookup`): `entryColumns` as
    /// stored, the row's own `accessed_at` without the uses recorded since the last fold. Nothing a
    /// lookup serves reads the last use, and a warm rerun's lookups spent 7 % of its time finding
    /// them (bench/RESULTS.md, "Last uses in a table of their own").
    static let lookupColumns = entryColumns

    /// How many columns `entryColumns` names: the index of a column selected after them.
    static let entryColumnCount: Int32 = 18
}
