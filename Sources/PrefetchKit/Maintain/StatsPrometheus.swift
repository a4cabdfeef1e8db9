import Foundation

/// `--format prometheus`: the node_exporter textfile collector format (text exposition 0.0.4), a HELP
/// and a TYPE line for every family. Every sample has the `cache` label; sizes are in bytes and times
/// in seconds (timestamps since 1970). Nothing here only grows, so every family is a gauge, but for
/// the two age histograms: snapshots of the entries' ages with cumulative `le` buckets in seconds,
/// `_sum` and `_count`, which `histogram_quantile` reads as they are (without `rate`).
enum StatsPrometheus {
    typealias Sample = (labels: [(String, String)], value: Double)

    /// The outcomes a run can end with, one `prefetchd_last_run_outcome` sample each.
    static let outcomes = ["completed", "incomplete", "interrupted", "terminated"]

    static func render(_ stats: CacheStats) -> String {
        var out = Exposition(cache: stats.cache)
        out.gauge("prefetchd_cache_info", "The cache's layout and the version of prefetchd that wrote this, with the value 1.",
                  [([("layout", stats.layout.rawValue), ("version", PrefetchVersion.string)], 1)])
        out.gauge("prefetchd_cache_entries", "Entries in the cache index.", [([], Double(stats.entries))])
        out.gauge("prefetchd_cache_bytes", "Bytes of file data in the cache.", [([], Double(stats.bytes))])
        out.gauge("prefetchd_cache_max_size_bytes", "Size cap in bytes of file data (0 = none).", [([], Double(stats.maxSize))])
        out.gauge("prefetchd_cache_variant_entries", "Of the entries, the variants.", [([], Double(stats.variants.entries))])
        out.gauge("prefetchd_cache_variant_bytes", "Of the bytes, the variants'.", [([], Double(stats.variants.bytes))])
        out.gauge("prefetchd_cache_format_entries", "Entries by image format.", groups(stats.byFormat, "format", \.entries))
        out.gauge("prefetchd_cache_format_bytes", "Bytes by image format.", groups(stats.byFormat, "format", \.bytes))
        out.gauge("prefetchd_cache_format_frames", "Image frames by format (a still counts 1).", groups(stats.byFormat, "format", \.frames))
        out.gauge("prefetchd_cache_set_entries", "Entries by the job set that first asked for them.", groups(stats.bySet, "set", \.entries))
        out.gauge("prefetchd_cache_set_bytes", "Bytes by job set.", groups(stats.bySet, "set", \.bytes))
        out.gauge("prefetchd_cache_host_entries", "Entries by origin host.", groups(stats.byHost, "host", \.entries))
        out.gauge("prefetchd_cache_host_bytes", "Bytes by origin host.", groups(stats.byHost, "host", \.bytes))
        out.histogram("prefetchd_cache_access_age_seconds", "Entries by time since last access (hour resolution).", stats.accessAges)
        out.histogram("prefetchd_cache_fetch_age_seconds", "Entries by time since first fetch (hour resolution).", stats.fetchAges)
        if let oldest = stats.oldest {
            out.gauge("prefetchd_cache_oldest_fetch_timestamp_seconds", "First-fetch time of the oldest entry.",
                      [([], oldest.timeIntervalSince1970)])
        }
        out.gauge("prefetchd_failure_ledger_entries", "Failure ledger rows by reason.", groups(stats.failures, "reason", \.entries))
        out.gauge("prefetchd_failure_ledger_host_entries", "Failure ledger rows by URL host.",
                  groups(stats.failuresByHost, "host", \.entries))
        if let run = stats.lastRun { lastRun(run, into: &out) }
        if let clean = stats.lastClean { lastClean(clean, into: &out) }
        return out.text
    }

    private static func lastRun(_ run: RunRecord, into out: inout Exposition) {
        let job = ("job", run.job)
        out.gauge("prefetchd_last_run_timestamp_seconds", "Start time of the last run.", [([job], run.started.timeIntervalSince1970)])
        out.gauge("prefetchd_last_run_duration_seconds", "Duration of the last run.", [([job], Milliseconds.rounded(run.duration))])
        out.gauge("prefetchd_last_run_items", "URLs of the last run by result.",
                  StatsSpelling.runTotals.map { ([job, ("result", $0)], Double(run.totals[$0] ?? 0)) })
        out.gauge("prefetchd_last_run_fetched_bytes", "Bytes the last run fetched.", [([job], Double(run.totals["bytes"] ?? 0))])
        if let outcome = run.outcome {
            out.gauge("prefetchd_last_run_outcome", "How the last run ended: 1 for its outcome, 0 for the others.",
                      outcomes.map { ([job, ("outcome", $0)], $0 == outcome ? 1 : 0) })
        }
    }

    private static func lastClean(_ clean: CleanRecord, into out: inout Exposition) {
        out.gauge("prefetchd_last_clean_timestamp_seconds", "End time of the last clean.", [([], clean.finished.timeIntervalSince1970)])
        out.gauge("prefetchd_last_clean_duration_seconds", "Duration of the last clean.", [([], Milliseconds.rounded(clean.duration))])
        out.gauge("prefetchd_last_clean_removed_entries", "Entries and temp files the last clean removed.",
                  [([], Double(clean.removedEntries))])
        out.gauge("prefetchd_last_clean_freed_bytes", "Bytes of file data the last clean freed.", [([], Double(clean.freedBytes))])
    }

    private static func groups<Value: BinaryInteger>(
        _ groups: [CacheGroupTotal], _ label: String, _ value: KeyPath<CacheGroupTotal, Value>
    ) -> [Sample] {
        groups.map { ([(label, $0.name)], Double($0[keyPath: value])) }
    }

    /// The exposition text, written one family at a time.
    private struct Exposition {
        let cache: String
        var text = ""

        mutating func gauge(_ name: String, _ help: String, _ samples: [Sample]) {
            family(name, help, type: "gauge")
            for sample in samples { line(name, sample.labels, sample.value) }
        }

        /// Cumulative buckets: each `le` counts the entries younger than it, `+Inf` all of them.
        mutating func histogram(_ name: String, _ help: String, _ buckets: [CacheStats.AgeBucket]) {
            family(name, help, type: "histogram")
            var below = 0
            for bucket in buckets {
                below += bucket.entries
                line(name + "_bucket", [("le", bucket.upperBound.map { number($0) } ?? "+Inf")], Double(below))
            }
            line(name + "_sum", [], buckets.reduce(0) { $0 + $1.ageSeconds })
            line(name + "_count", [], Double(below))
        }

        private mutating func family(_ name: String, _ help: String, type: String) {
            text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
        }

        private mutating func line(_ name: String, _ labels: [(String, String)], _ value: Double) {
            let pairs = ([("cache", cache)] + labels).map { "\($0.0)=\"\(StatsPrometheus.escape($0.1))\"" }
            text += "\(name){\(pairs.joined(separator: ","))} \(number(value))\n"
        }

        private func number(_ value: Double) -> String {
            value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
        }
    }

    /// Label values escape backslash, double quote and line feed.
    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }
}
