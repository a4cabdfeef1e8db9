import Foundation

/// The limits runs recorded: one meta row per job, `limits:<job name>`, holding the job's
/// `CacheLimits` as JSON with the time of its last run; a job's run replaces its own row. An index
/// written before limits were recorded has none, and needs no upgrade for them.
extension CacheIndex {
    private struct Recorded: Codable {
        var limits: CacheLimits
        var recordedAt: TimeInterval

        enum CodingKeys: String, CodingKey { case limits, recordedAt = "recorded_at" }
    }

    private static let limitsPrefix = "limits:"

    /// Records `limits` as `job`'s, replacing what that job recorded before.
    package func recordLimits(_ limits: CacheLimits, job: String, at time: Date = Date()) throws(CacheError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        // Encoding numbers and strings cannot fail.
        let data = (try? encoder.encode(Recorded(limits: limits, recordedAt: time.timeIntervalSince1970))) ?? Data()
        try setMeta(Self.limitsPrefix + job, String(decoding: data, as: UTF8.self))
    }

    /// The limits every job recorded, combined in the order they were recorded
    /// (`CacheLimits.combined`); nil when no run recorded any. A row that cannot be read is left out.
    package func recordedLimits() throws(CacheError) -> CacheLimits? {
        let values = try withConnection { connection throws(CacheError) in
            // ';' follows ':' in every collation SQLite uses here: a range over the primary key.
            try connection.query("SELECT value FROM meta WHERE key >= ? AND key < ?",
                                 [.text(Self.limitsPrefix), .text("limits;")]) { $0.text(0) }
        }
        let rows = values.compactMap { $0.flatMap { try? JSONDecoder().decode(Recorded.self, from: Data($0.utf8)) } }
        let ordered = rows.sorted { $0.recordedAt < $1.recordedAt }.map(\.limits)
        guard let first = ordered.first else { return nil }
        return ordered.dropFirst().reduce(first) { $0.combined(with: $1) }
    }
}
