import Foundation

/// One finished `prefetchd run`, as the stats report shows it.
package struct RunRecord: Sendable, Equatable {
    package var job: String
    package var started: Date
    package var duration: TimeInterval
    /// The report's totals: requested, unique, fetched, cached, revalidated, failed, skipped, bytes.
    package var totals: [String: Int]
}

/// The runs table; the meta table's `last_run` names the newest row.
extension CacheIndex {
    package func recordRun(_ run: RunRecord) throws(CacheError) {
        let totals: String
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            totals = String(decoding: try encoder.encode(run.totals), as: UTF8.self)
        } catch {
            // Encoding [String: Int] cannot fail; keep the row rather than lose the run.
            totals = "{}"
        }
        try withConnection { connection throws(CacheError) in
            try connection.write(
                "INSERT INTO runs(job, started_at, duration_s, totals) VALUES(?, ?, ?, ?)",
                [.text(run.job), .date(run.started), .real(run.duration), .text(totals)])
            try connection.write(
                """
                INSERT INTO meta(key, value) VALUES('last_run', CAST(last_insert_rowid() AS TEXT))
                ON CONFLICT(key) DO UPDATE SET value = excluded.value
                """, [])
        }
    }

    /// The newest recorded run.
    package func lastRun() throws(CacheError) -> RunRecord? {
        try withConnection { connection throws(CacheError) in
            try connection.query(
                "SELECT job, started_at, duration_s, totals FROM runs ORDER BY started_at DESC, id DESC LIMIT 1", []
            ) { row in
                let totals = (try? JSONDecoder().decode([String: Int].self, from: Data((row.text(3) ?? "{}").utf8))) ?? [:]
                return RunRecord(
                    job: row.text(0) ?? "", started: row.date(1) ?? .distantPast, duration: row.double(2),
                    totals: totals)
            }.first
        }
    }
}
