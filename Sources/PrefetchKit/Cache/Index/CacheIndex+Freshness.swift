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

    /// What the origin said of the freshness of the entry at `relativePath` whose `modified_at` is
    /// `modifiedAt`: `.recorded(until)` for a row made with this body
    /// (until nil: nothing said), `.unknown` when there is none or it is of an earlier body.
    /// With `committedOnly`, read through the reader connection, as `DiskCache.lookup` reads the entry.
    package func freshness(relativePath: String, modifiedAt: Date, committedOnly: Bool = false) throws(CacheError) -> OriginFreshness {
        let read = { (connection: IndexConnection) throws(CacheError) -> [Double?] in
            try connection.query("SELECT modified_at, fresh_until FROM freshness WHERE relative_path = ?",
                                 [.text(relativePath)]) { [$0.date(0)?.timeIntervalSince1970, $0.date(1)?.timeIntervalSince1970] }.first ?? []
        }
        let row = committedOnly ? try withReader(read) : try withConnection(read)
        guard row.count == 2, let modified = row[0], abs(modified - modifiedAt.timeIntervalSince1970) < 0.001 else {
            return .unknown
        }
        return .recorded(until: row[1].map(Date.init(timeIntervalSince1970:)))
    }
}

/// What the index holds of an entry's freshness as its origin gave it (`refresh: http`).
package enum OriginFreshness: Sendable, Equatable {
    /// No row for this body: it was stored by a set that does not record freshness, or before.
    case unknown
    /// Fresh until the date; nil when the response gave no freshness of its own.
    case recorded(until: Date?)
}
