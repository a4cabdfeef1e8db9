import Foundation

/// Entry rows: the store path's upsert, lookups by relative path, and the helpers stats and clean need.
extension CacheIndex {
    /// Inserts or replaces the row for `entry.relativePath`, keeping its first-fetch time.
    func upsert(_ entry: CacheEntry) throws(CacheError) {
        try withConnection { connection throws(CacheError) in try Self.upsert(entry, on: connection) }
    }

    /// Takes the index's write lock (opening the batch transaction), runs `place` — the rename that puts
    /// a body under its final name — and records the entry `place` returns in the same transaction.
    /// A clean removes files only while it holds that lock, so it never sees a body without the row
    /// that describes it: a body is renamed in and its row written with no clean batch in between.
    func upsert(placing place: () throws(CacheError) -> CacheEntry) throws(CacheError) -> CacheEntry {
        try withConnection { connection throws(CacheError) in
            try connection.beginIfNeeded()
            let entry = try place()
            connection.notePlaced(entry.path, key: entry.key ?? "")
            try Self.upsert(entry, on: connection)
            return entry
        }
    }

    /// Inserts the row or, when one has its path, updates it (whose trigger moves it between totals).
    static func upsert(_ entry: CacheEntry, on connection: IndexConnection) throws(CacheError) {
        guard try !connection.insertEntry(entry) else { return }
        // Parameters numbered as in `IndexSchema.entryColumns`; the first fetch (?12) is kept.
        try connection.writing { () throws(CacheError) in
            try connection.statement(
                """
                UPDATE entries SET url = ?1, cache_key = ?2, set_name = coalesce(set_name, ?3), byte_size = ?5,
                    format = ?6, width = ?7, height = ?8, etag = ?9, last_modified = ?10, checksum = ?11,
                    modified_at = ?13, accessed_at = ?14, validated_at = ?15, frames = ?16,
                    variant_of = ?17, variant = ?18
                WHERE \(IndexRowID.matches("?4"))
                """
            ).run { update throws(CacheError) in try entry.bind(to: update, from: 1) }
        }
    }

    /// Inserts a row only when none exists for its relative path (rescans).
    func insertIfMissing(_ entry: CacheEntry) throws(CacheError) {
        try withConnection { connection throws(CacheError) in _ = try connection.insertEntry(entry) }
    }

    /// The row for `relativePath`, the open batch's writes included; with `committedOnly`, as last
    /// committed, read without waiting for the writer (see `withReader`).
    func entry(relativePath: String, committedOnly: Bool = false) throws(CacheError) -> CacheEntry? {
        let root = root
        let read = { (connection: IndexConnection) throws(CacheError) -> CacheEntry? in
            try connection.query(Self.entryByPath, [.text(relativePath)]) { CacheEntry(row: $0, root: root) }.first
        }
        return committedOnly ? try withReader(read) : try withConnection(read)
    }

    /// Made once: every URL of a run is looked up by it. A lookup by path reads the row's own last use
    /// (`lookupColumns`).
    private static let entryByPath = "SELECT \(IndexSchema.lookupColumns) FROM entries WHERE \(IndexRowID.matches("?1"))"

    /// The summaries of the rows for `relativePaths`, in their order (nil where there is none; a path
    /// listed twice is answered twice), read by one statement: a statement's start and end cost more
    /// than the row it finds, so `verify` and a run ask for their keys a batch at a time. Each row is
    /// found by its path's row ids, as one at a time. `committedOnly` as for
    /// `entry(relativePath:committedOnly:)`.
    func summaries(relativePaths: [String], committedOnly: Bool = false) throws(CacheError) -> [IndexedSummary?] {
        try rows(Self.summariesByPaths, count: 4, relativePaths: relativePaths, committedOnly: committedOnly) {
            IndexedSummary(id: $0.int64(0), size: $0.int64(1), modifiedAt: $0.date(2) ?? .distantPast, hasURL: $0.int64(3) != 0)
        }
    }

    /// What `verify` holds each original of `relativePaths` to (nil where there is no row), read by one
    /// statement as `summaries(relativePaths:)` reads its rows.
    func bodies(relativePaths: [String]) throws(CacheError) -> [StoredBody?] {
        try rows(Self.bodiesByPaths, count: 2, relativePaths: relativePaths, committedOnly: false) {
            StoredBody(size: $0.int64(0), modifiedAt: $0.date(1) ?? .distantPast)
        }
    }

    /// What `verify` holds every original to, by path, read in one pass over the table in row order:
    /// for a job that asks for a large share of the rows, a pass costs less than a descent of the
    /// table's B-tree for each key (bench/RESULTS.md, "verify: keys told apart by digest, and one
    /// pass over the index"). `rows`, the rows expected, sizes the table once.
    func originalBodies(rows: Int) throws(CacheError) -> StringTable<StoredBody> {
        try withConnection { connection throws(CacheError) in
            var originals = StringTable(placeholder: StoredBody(size: 0, modifiedAt: .distantPast), capacity: rows,
                                        bytesEach: Self.pathBytesReserved)
            try connection.forEachRow("SELECT relative_path, byte_size, modified_at FROM entries WHERE variant_of IS NULL", []) { row in
                guard let path = row.textBytes(0) else { return }
                _ = originals.insert(utf8: path, StoredBody(size: row.int64(1), modifiedAt: row.date(2) ?? .distantPast))
            }
            return originals
        }
    }

    /// The bytes `originalBodies(rows:)` reserves for each path: a native path takes 71 (two for the
    /// folder, its slash, 64 for the name and a 4-character extension), an SDWebImage one 36-41.
    private static let pathBytesReserved = 96

    private static let summariesByPaths = byPaths("entries.id, byte_size, modified_at, url IS NOT NULL")
    private static let bodiesByPaths = byPaths("byte_size, modified_at")

    /// `columns` of the rows of a JSON list of paths: the list walked first (`CROSS JOIN` keeps that
    /// order), each path looked up in the index; `wanted.key`, the path's place in the list, selected
    /// after `columns`.
    private static func byPaths(_ columns: String) -> String {
        """
        SELECT \(columns), wanted.key FROM json_each(?1) AS wanted
        CROSS JOIN entries ON \(IndexRowID.matches("wanted.value"))
        """
    }

    /// The rows for `relativePaths` by `query` (`byPaths`, `count` columns before the place), made into
    /// values by `make`, in the paths' order. Asked in row order, so that the rows are read from the
    /// table's pages in order rather than at random.
    private func rows<Row: Sendable>(
        _ query: String, count: Int32, relativePaths: [String], committedOnly: Bool, make: @escaping (IndexStatement) -> Row
    ) throws(CacheError) -> [Row?] {
        let bases = relativePaths.map(IndexRowID.base(of:))
        let order = relativePaths.indices.sorted { bases[$0] < bases[$1] }
        let read = { (connection: IndexConnection) throws(CacheError) -> [(Int, Row)] in
            try connection.query(query, [.textList(order.map { relativePaths[$0] })]) { row in
                (Int(row.int64(count)), make(row))
            }
        }
        let found = committedOnly ? try withReader(read) : try withConnection(read)
        var rows = [Row?](repeating: nil, count: relativePaths.count)
        for (position, row) in found { rows[order[position]] = row }
        return rows
    }

    func deleteEntry(relativePath: String) throws(CacheError) {
        try withConnection { connection throws(CacheError) in
            try connection.writing { () throws(CacheError) in
                try connection.deleteEntries(where: IndexRowID.matches("?1"), [.text(relativePath)])
            }
        }
    }

    /// Records a use of the entry at `relativePath`, written with the next commit (into `recent_uses`,
    /// `IndexRecentUses`). Once `touchRows` uses
    /// wait, a write of them is queued beside the caller, so a warm rerun's scheduling thread goes on
    /// deciding while its uses are written; it writes them itself only when twice as many wait.
    func touch(relativePath: String, at time: Date) throws(CacheError) {
        guard !isSnapshot else { return }
        try writeUses(try uses.record(relativePath, at: time.timeIntervalSince1970))
    }

    /// As `touch(relativePath:at:)`, for the row `rowID` as a lookup read it (`summaries(relativePaths:)`):
    /// its use is written without finding the row again.
    func touch(rowID: Int64, at time: Date) throws(CacheError) {
        guard !isSnapshot else { return }
        try writeUses(try uses.record(rowID: rowID, at: time.timeIntervalSince1970))
    }

    /// Writes the waiting uses as `next` says, here or beside.
    private func writeUses(_ next: IndexPendingUses.Next) throws(CacheError) {
        switch next {
        case .wait:
            return
        case .writeHere:
            try flush()
        case .writeBeside:
            useWriter.async { [self] in
                do throws(CacheError) {
                    try withConnection { connection throws(CacheError) in try connection.commit() }
                    uses.writeEnded(failure: nil)
                } catch {
                    uses.writeEnded(failure: error)
                }
            }
        }
    }

    /// Gives a row a rescan made (no URL, key or set: its index was rebuilt from the files) the URL,
    /// key and set a run found it by; a row that has a URL is left as it is.
    func adopt(relativePath: String, url: String, key: String, setName: String) throws(CacheError) {
        try withConnection { connection throws(CacheError) in
            try connection.write(
                "UPDATE entries SET url = ?1, cache_key = ?2, set_name = ?3 WHERE \(IndexRowID.matches("?4")) AND url IS NULL",
                [.text(url), .text(key), .text(setName), .text(relativePath)])
        }
    }

    /// Records a 304 (or another confirmation) for the entry: new validators, modified and validated now.
    func markRevalidated(relativePath: String, etag: String?, lastModified: String?, at time: Date) throws(CacheError) {
        try withConnection { connection throws(CacheError) in
            try connection.write(
                """
                UPDATE entries SET etag = coalesce(?1, etag), last_modified = coalesce(?2, last_modified),
                    modified_at = ?3, validated_at = ?3, accessed_at = max(accessed_at, ?3) WHERE \(IndexRowID.matches("?4"))
                """, [.text(etag), .text(lastModified), .date(time), .text(relativePath)])
        }
    }

    /// How many entries the index holds.
    package func entryCount() throws(CacheError) -> Int {
        try withConnection { connection throws(CacheError) in
            try connection.query("SELECT count(*) FROM entries", []) { Int($0.int64(0)) }.first ?? 0
        }
    }

    /// The sum of the entries' sizes in bytes.
    package func totalBytes() throws(CacheError) -> Int64 {
        try withConnection { connection throws(CacheError) in
            try connection.query("SELECT coalesce(sum(byte_size), 0) FROM entries", []) { $0.int64(0) }.first ?? 0
        }
    }

    /// Every entry, in no particular order.
    package func allEntries() throws(CacheError) -> [CacheEntry] {
        let root = root
        return try withConnection { connection throws(CacheError) in
            try connection.query("SELECT \(IndexSchema.selectedEntryColumns) FROM entries", []) { CacheEntry(row: $0, root: root) }
        }
    }
}
