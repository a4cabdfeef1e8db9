import Foundation

/// The freshness the origin gave an entry (`refresh: http`), in the `freshness` table.
extension CacheIndex {
    /// Records that the entry at `relativePath`, whose `modified_at` is `modifiedAt`, is fresh until
    /// `freshUntil` (nil: the response said nothing of its freshness), in the open batch.
    package func recordFreshness(relativePath: String, modifiedAt: Date, freshUntil: Date?) throws(CacheError) {
        try withConnection { connection throws(CacheError) in
            try connection.write(
                "INSERT OR REPLACE INTO freshness(relative_path, modified_at, fresh_until) VALUES(?, ?, ?)",
                [.text(relativePath), .date(modifiedAt), .date(freshUntil)])
        }
    }

    /// What the origin said of `entry`'s freshness: `.recorded(until)` for a row made with this body
    /// (until nil: nothing said), `.unknown` when there is none or it is of an earlier body.
    package func freshness(of entry: CacheEntry) throws(CacheError) -> OriginFreshness {
        let row = try withConnection { connection throws(CacheError) in
            try connection.query("SELECT modified_at, fresh_until FROM freshness WHERE relative_path = ?",
                                 [.text(entry.relativePath)]) { ($0.date(0), $0.date(1)) }.first
        }
        guard let row, row.0 == entry.modifiedAt else { return .unknown }
        return .recorded(until: row.1)
    }
}

/// What the index holds of an entry's freshness as its origin gave it (`refresh: http`).
package enum OriginFreshness: Sendable, Equatable {
    /// No row for this body: it was stored by a set that does not record freshness, or before.
    case unknown
    /// Fresh until the date; nil when the response gave no freshness of its own.
    case recorded(until: Date?)
}
