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
    /// The shard the run handled; nil for the whole job.
    package var shard: Shard?

    package init(job: String, started: Date, duration: TimeInterval, totals: [String: Int], outcome: String? = nil,
                 shard: Shard? = nil) {
        self.job = job
        self.started = started
        self.duration = duration
        self.totals = totals
        self.outcome = outcome
        self.shard = shard
    }

    /// What tells two records of one run apart from records of others.
    var identity: String {
        "\(job)\u{0}\(started.timeIntervalSince1970)\u{0}\(duration)\u{0}\(storedTotals)"
    }

    /// The runs table keeps the shard in the `totals` JSON object, as two more whole numbers beside the
    /// counts, so the schema stays as it was and an earlier prefetchd still reads the row.
    private static let shardIndexKey = "shard_index", shardCountKey = "shard_count"

    /// The `totals` column's text.
    var storedTotals: String {
        var stored = totals
        if let shard {
            stored[Self.shardIndexKey] = shard.index
            stored[Self.shardCountKey] = shard.count
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        // Encoding [String: Int] cannot fail; keep the row rather than lose the run.
        return (try? encoder.encode(stored)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// A row selected as `job, started_at, duration_s, totals, outcome`.
    init(row: IndexStatement) {
        var totals = (try? JSONDecoder().decode([String: Int].self, from: Data((row.text(3) ?? "{}").utf8))) ?? [:]
        let index = totals.removeValue(forKey: Self.shardIndexKey), count = totals.removeValue(forKey: Self.shardCountKey)
        self.init(job: row.text(0) ?? "", started: row.date(1) ?? .distantPast, duration: row.double(2), totals: totals,
                  outcome: row.text(4),
                  shard: index.flatMap { index in count.flatMap { Shard(index: index, count: $0) } })
    }
}

/// The runs table; the meta table's `last_run` names the newest row, and `run_outcome` holds
/// `{"run": <row id>, "outcome": ...}` for the run that started last of those that had one: the row
/// id ties it to its run, so a run an earlier version records (without an outcome) is never given an
/// older run's, and a run that started earlier and ended later (two at once) does not take the newer
/// one's place.
extension CacheIndex {
    package func recordRun(_ run: RunRecord) throws(CacheError) {
        try withConnection { connection throws(CacheError) in
            try connection.write(
                "INSERT INTO runs(job, started_at, duration_s, totals) VALUES(?, ?, ?, ?)",
                [.text(run.job), .date(run.started), .real(run.duration), .text(run.storedTotals)])
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
                WHERE coalesce((SELECT started_at FROM runs WHERE id = json_extract(meta.value, '$.run')), -1e300)
                      <= (SELECT started_at FROM runs WHERE id = json_extract(excluded.value, '$.run'))
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
            ) { RunRecord(row: $0) }
        }
    }
}
