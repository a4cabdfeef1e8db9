import Foundation

/// One finished `prefetchd run`, as the stats report shows it.
package struct RunRecord: Sendable, Equatable {
    package var job: String
    package var started: Date
    package var duration: TimeInterval
    /// The report's totals: requested, unique, fetched, cached, revalidated, failed, skipped, bytes.
    package var totals: [String: Int]
    /// The report's `outcome` (`completed`, `incomplete`, `interrupted`, `terminated`); kept only for the
    /// last run that recorded one, nil for the others and for runs an earlier version recorded.
    package var outcome: String?

    package init(job: String, started: Date, duration: TimeInterval, totals: [String: Int], outcome: String? = nil) {
        self.job = job
        self.started = started
        self.duration = duration
        self.totals = totals
        self.outcome = outcome
    }
}

/// The runs table; the meta table's `last_run` names the newest row, and `run_outcome` holds
/// `{"run": <row id>, "outcome": ...}` for the newest run that had one: the row id ties it to its run,
/// so a run an earlier version records (without an outcome) is never given an older run's.
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
            guard let outcome = run.outcome else { return }
            try connection.write(
                """
                INSERT INTO meta(key, value)
                VALUES('run_outcome', json_object('run', CAST((SELECT value FROM meta WHERE key = 'last_run') AS INTEGER),
                                                  'outcome', ?))
                ON CONFLICT(key) DO UPDATE SET value = excluded.value
                """, [.text(outcome)])
        }
    }

    /// The newest recorded run.
    package func lastRun() throws(CacheError) -> RunRecord? {
        try recentRuns(limit: 1).first
    }

    /// The newest `limit` runs, newest first.
    package func recentRuns(limit: Int) throws(CacheError) -> [RunRecord] {
        try withConnection { connection throws(CacheError) in
            try connection.query(
                """
                SELECT job, started_at, duration_s, totals,
                       (SELECT json_extract(value, '$.outcome') FROM meta
                        WHERE key = 'run_outcome' AND json_extract(value, '$.run') = runs.id)
                FROM runs ORDER BY started_at DESC, id DESC LIMIT ?
                """, [.int(limit)]
            ) { row in
                let totals = (try? JSONDecoder().decode([String: Int].self, from: Data((row.text(3) ?? "{}").utf8))) ?? [:]
                return RunRecord(
                    job: row.text(0) ?? "", started: row.date(1) ?? .distantPast, duration: row.double(2), totals: totals,
                    outcome: row.text(4))
            }
        }
    }
}
