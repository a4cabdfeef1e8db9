import Foundation

/// A URL that failed for a reason that makes retrying pointless until `nextRetryAt`.
package struct FailureRecord: Sendable, Equatable {
    package var url: String
    package var key: String
    package var reason: String
    package var httpStatus: Int?
    /// How many times it has failed so far.
    package var attempts: Int
    /// Not tried again before this date; nil = not until `retry_failed`.
    package var nextRetryAt: Date?
    package var lastErrorAt: Date

    package init(
        url: String, key: String, reason: String, httpStatus: Int? = nil, attempts: Int = 1,
        nextRetryAt: Date? = nil, lastErrorAt: Date = Date()
    ) {
        self.url = url
        self.key = key
        self.reason = reason
        self.httpStatus = httpStatus
        self.attempts = attempts
        self.nextRetryAt = nextRetryAt
        self.lastErrorAt = lastErrorAt
    }

    /// Whether a merge takes this row over a ledger's own for its key, last failed at `known` (nil:
    /// none): the later error wins.
    func supersedes(_ known: Date?) -> Bool {
        known.map { $0 < lastErrorAt } ?? true
    }
}

/// The failure ledger, one row per cache key.
extension CacheIndex {
    private static let failureColumns = "url, cache_key, reason, http_status, attempts, next_retry_at, last_error_at"

    /// Inserts or replaces the ledger row for `record.key`.
    package func recordFailure(_ record: FailureRecord) throws(CacheError) {
        try withConnection { connection throws(CacheError) in
            try connection.write(
                "INSERT OR REPLACE INTO failures(\(Self.failureColumns)) VALUES(?, ?, ?, ?, ?, ?, ?)",
                [.text(record.url), .text(record.key), .text(record.reason), .int(record.httpStatus),
                 .int(record.attempts), .date(record.nextRetryAt), .date(record.lastErrorAt)])
        }
    }

    /// The ledger row for `key`, if it failed before.
    package func failure(forKey key: String) throws(CacheError) -> FailureRecord? {
        try withConnection { connection throws(CacheError) in
            try connection.query(
                "SELECT \(Self.failureColumns) FROM failures WHERE cache_key = ?", [.text(key)], Self.failure
            ).first
        }
    }

    /// Forgets a failure (after a success).
    package func removeFailure(forKey key: String) throws(CacheError) {
        try withConnection { connection throws(CacheError) in
            try connection.write("DELETE FROM failures WHERE cache_key = ?", [.text(key)])
        }
    }

    /// Whether the ledger has any row.
    package func hasFailures() throws(CacheError) -> Bool {
        try withConnection { connection throws(CacheError) in
            try connection.query("SELECT EXISTS(SELECT 1 FROM failures)", []) { $0.int(0) == 1 }.first ?? false
        }
    }

    /// Every ledger row, most recent error first.
    package func failures() throws(CacheError) -> [FailureRecord] {
        try withConnection { connection throws(CacheError) in
            try connection.query(
                "SELECT \(Self.failureColumns) FROM failures ORDER BY last_error_at DESC", [], Self.failure)
        }
    }

    /// How many ledger lines `rule` (a condition on the failures table) takes.
    func failureCount(where rule: RemovalRule) throws(CacheError) -> Int {
        try withConnection { connection throws(CacheError) in
            try connection.query("SELECT count(*) FROM failures WHERE \(rule.condition)", rule.values) { Int($0.int64(0)) }.first ?? 0
        }
    }

    /// Deletes the ledger lines `rule` takes in a write transaction of their own; returns how many went.
    func removeFailures(where rule: RemovalRule) throws(CacheError) -> Int {
        try inWriteTransaction { transaction throws(CacheError) in try transaction.deleteFailures(where: rule) }
    }

    private static func failure(_ row: IndexStatement) -> FailureRecord {
        FailureRecord(
            url: row.text(0) ?? "", key: row.text(1) ?? "", reason: row.text(2) ?? "", httpStatus: row.int(3),
            attempts: row.int(4) ?? 0, nextRetryAt: row.date(5), lastErrorAt: row.date(6) ?? .distantPast)
    }
}
