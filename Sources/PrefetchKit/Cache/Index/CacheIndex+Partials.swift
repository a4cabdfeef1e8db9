import Foundation

/// A body a run received part way and kept under `<cache>/tmp/` for a later run to resume.
package struct PartialRecord: Sendable, Equatable {
    package var key: String
    /// Relative to the cache folder: `tmp/<sha256(key)>.resume`.
    package var relativePath: String
    /// Redacted, as the entries' URLs are.
    package var url: String
    /// The body's first bytes the file holds for certain.
    package var size: Int64
    package var etag: String?
    package var lastModified: String?
    package var recordedAt: Date
    /// A clean removes it after this; a run does not resume it after this.
    package var expiresAt: Date
}

extension CacheIndex {
    private static let partialColumns = "cache_key, relative_path, url, byte_size, etag, last_modified, recorded_at, expires_at"

    /// Records (or replaces) the partial of `record.key`, in the open batch.
    package func recordPartial(_ record: PartialRecord) throws(CacheError) {
        try withConnection { connection throws(CacheError) in
            try connection.write(
                "INSERT OR REPLACE INTO partials(\(Self.partialColumns)) VALUES(?, ?, ?, ?, ?, ?, ?, ?)",
                [.text(record.key), .text(record.relativePath), .text(record.url), .integer(record.size),
                 .text(record.etag), .text(record.lastModified), .date(record.recordedAt), .date(record.expiresAt)])
        }
    }

    /// The partial kept for `key`, if any.
    package func partial(forKey key: String) throws(CacheError) -> PartialRecord? {
        try withConnection { connection throws(CacheError) in
            try connection.query("SELECT \(Self.partialColumns) FROM partials WHERE cache_key = ?", [.text(key)], Self.partial).first
        }
    }

    /// Forgets the partial of `key` (its file is the caller's to remove).
    package func deletePartial(forKey key: String) throws(CacheError) {
        try withConnection { connection throws(CacheError) in
            try connection.write("DELETE FROM partials WHERE cache_key = ?", [.text(key)])
        }
    }

    /// Every partial kept, oldest first (there are few: one per body cut and not yet resumed).
    package func partials() throws(CacheError) -> [PartialRecord] {
        try withConnection { connection throws(CacheError) in
            try connection.query("SELECT \(Self.partialColumns) FROM partials ORDER BY recorded_at", [], Self.partial)
        }
    }

    private static func partial(_ row: IndexStatement) -> PartialRecord {
        PartialRecord(
            key: row.text(0) ?? "", relativePath: row.text(1) ?? "", url: row.text(2) ?? "", size: row.int64(3),
            etag: row.text(4), lastModified: row.text(5), recordedAt: row.date(6) ?? .distantPast,
            expiresAt: row.date(7) ?? .distantPast)
    }
}

extension CacheIndex {
    /// Whether any partial is kept, so a run over a cache with none asks nothing more per URL.
    package func hasPartials() throws(CacheError) -> Bool {
        try withConnection { connection throws(CacheError) in
            try connection.query("SELECT EXISTS(SELECT 1 FROM partials)", []) { $0.int(0) == 1 }.first ?? false
        }
    }
}
