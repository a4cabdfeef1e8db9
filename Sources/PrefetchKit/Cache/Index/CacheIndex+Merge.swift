import Foundation

/// A `freshness` row as `merge` carries it from one index to another.
package struct FreshnessRow: Sendable, Equatable {
    package var modifiedAt: Date
    package var freshUntil: Date?
}

/// What `merge` reads from a source index and writes into the destination's: rows as they are, times
/// and all, through the same batch and write lock as every store.
extension CacheIndex {
    /// Every freshness row, by relative path.
    package func freshnessRows() throws(CacheError) -> [String: FreshnessRow] {
        let rows = try withConnection { connection throws(CacheError) in
            try connection.query("SELECT relative_path, modified_at, fresh_until FROM freshness", []) {
                ($0.text(0) ?? "", FreshnessRow(modifiedAt: $0.date(1) ?? .distantPast, freshUntil: $0.date(2)))
            }
        }
        return Dictionary(rows) { first, _ in first }
    }

    /// The `modified_at` and checksum of the row at `relativePath`, the open batch's writes included.
    package func stamp(relativePath: String) throws(CacheError) -> EntryStamp? {
        try withConnection { connection throws(CacheError) in try Self.stamp(relativePath: relativePath, on: connection) }
    }

    private static func stamp(relativePath: String, on connection: IndexConnection) throws(CacheError) -> EntryStamp? {
        try connection.query(
            "SELECT modified_at, checksum FROM entries WHERE \(IndexRowID.matches("?1"))", [.text(relativePath)]
        ) { EntryStamp(modifiedAt: $0.date(0) ?? .distantPast, checksum: $0.text(1)) }.first
    }

    /// Under the write lock (the batch transaction every store places its body in): when `accept`
    /// takes the row now at `entry.relativePath` (nil: none), runs `place`, the rename that puts the
    /// body under its final name, and writes `entry` as it is (its times too) and its freshness row;
    /// true when it did. A run that stored the key meanwhile is seen here.
    package func merge(
        _ entry: CacheEntry, freshness: FreshnessRow?, accept: (EntryStamp?) -> Bool, place: () throws(CacheError) -> Void
    ) throws(CacheError) -> Bool {
        try withConnection { connection throws(CacheError) in
            try connection.beginIfNeeded()
            guard accept(try Self.stamp(relativePath: entry.relativePath, on: connection)) else { return false }
            try place()
            connection.notePlaced(entry.path, key: entry.key ?? "")
            try Self.upsert(entry, on: connection)
            if let freshness {
                try connection.write(
                    "INSERT OR REPLACE INTO freshness(relative_path, modified_at, fresh_until) VALUES(?, ?, ?)",
                    [.text(entry.relativePath), .date(freshness.modifiedAt), .date(freshness.freshUntil)])
            }
            return true
        }
    }

    /// Takes each ledger row whose key this ledger has not got, or has with an older error; returns how many.
    package func mergeFailures(_ records: [FailureRecord]) throws(CacheError) -> Int {
        var taken = 0
        for record in records {
            guard record.supersedes(try failure(forKey: record.key)?.lastErrorAt) else { continue }
            try recordFailure(record)
            taken += 1
        }
        return taken
    }

    /// Adds each run not recorded already (the same job, start, duration and totals); returns how many.
    package func mergeRuns(_ runs: [RunRecord]) throws(CacheError) -> Int {
        var known = Set(try recentRuns(limit: Int.max).map(\.identity))
        var added = 0
        // Oldest first, so that `last_run` names the newest.
        for run in runs.sorted(by: { $0.started < $1.started }) where known.insert(run.identity).inserted {
            try recordRun(run)
            added += 1
        }
        return added
    }
}

/// What decides which of two rows for one relative path is newer.
package struct EntryStamp: Sendable, Equatable {
    package var modifiedAt: Date
    package var checksum: String?
}
