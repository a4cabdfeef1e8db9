import Foundation

/// `--format prometheus`: the node_exporter textfile collector format, a HELP and TYPE line per metric.
enum StatsPrometheus {
    static func render(_ stats: CacheStats) -> String {
        var out = ""
        func metric(_ name: String, _ help: String, _ samples: [(labels: [(String, String)], value: Double)]) {
            out += "# HELP \(name) \(help)\n# TYPE \(name) gauge\n"
            for sample in samples {
                let labels = ([("cache", stats.cache)] + sample.labels).map { "\($0.0)=\"\(escape($0.1))\"" }
                out += "\(name){\(labels.joined(separator: ","))} \(number(sample.value))\n"
            }
        }
        func groups(_ groups: [CacheGroupTotal], _ label: String, bytes: Bool) -> [(labels: [(String, String)], value: Double)] {
            groups.map { ([(label, $0.name)], bytes ? Double($0.bytes) : Double($0.entries)) }
        }
        metric("prefetchd_cache_entries", "Entries in the cache index.", [([], Double(stats.entries))])
        metric("prefetchd_cache_bytes", "Bytes of file data in the cache.", [([], Double(stats.bytes))])
        metric("prefetchd_cache_max_size_bytes", "Size cap in bytes of file data (0 = none).", [([], Double(stats.maxSize))])
        metric("prefetchd_cache_format_entries", "Entries by image format.", groups(stats.byFormat, "format", bytes: false))
        metric("prefetchd_cache_format_bytes", "Bytes by image format.", groups(stats.byFormat, "format", bytes: true))
        metric("prefetchd_cache_format_frames", "Image frames by format (a still counts 1).",
               stats.byFormat.map { ([("format", $0.name)], Double($0.frames)) })
        metric("prefetchd_cache_set_entries", "Entries by the job set that first asked for them.", groups(stats.bySet, "set", bytes: false))
        metric("prefetchd_cache_set_bytes", "Bytes by job set.", groups(stats.bySet, "set", bytes: true))
        metric("prefetchd_cache_host_entries", "Entries by origin host.", groups(stats.byHost, "host", bytes: false))
        metric("prefetchd_cache_host_bytes", "Bytes by origin host.", groups(stats.byHost, "host", bytes: true))
        metric("prefetchd_cache_access_age_entries", "Entries by time since last access.",
               stats.accessAges.map { ([("age", $0.label)], Double($0.entries)) })
        metric("prefetchd_cache_fetch_age_entries", "Entries by time since first fetch.",
               stats.fetchAges.map { ([("age", $0.label)], Double($0.entries)) })
        if let oldest = stats.oldest {
            metric("prefetchd_cache_oldest_fetch_timestamp_seconds", "First-fetch time of the oldest entry.",
                   [([], oldest.timeIntervalSince1970)])
        }
        metric("prefetchd_failures", "Failure ledger rows by reason.", groups(stats.failures, "reason", bytes: false))
        if let run = stats.lastRun {
            metric("prefetchd_last_run_timestamp_seconds", "Start time of the last run.", [([("job", run.job)], run.started.timeIntervalSince1970)])
            metric("prefetchd_last_run_duration_seconds", "Duration of the last run.", [([("job", run.job)], run.duration)])
            metric("prefetchd_last_run_items", "Items of the last run by result.",
                   StatsSpelling.runTotals.map { ([("job", run.job), ("result", $0)], Double(run.totals[$0] ?? 0)) })
        }
        return out
    }

    /// Label values escape backslash, double quote and line feed.
    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }

    private static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
