import Foundation

/// `--format text`: readable tables.
enum StatsText {
    static func render(_ stats: CacheStats) -> String {
        var lines: [String] = []
        let cap = stats.maxSize > 0
            ? "\(ByteFormat.human(stats.maxSize)) (\(percent(stats.bytes, of: stats.maxSize)) used)" : "none"
        lines += [
            "cache      \(stats.cache) (\(stats.layout.rawValue) layout)",
            "entries    \(stats.entries)",
            "bytes      \(stats.bytes) (\(ByteFormat.human(stats.bytes)); file data)",
            "variants   \(stats.variants.entries) of the entries, \(ByteFormat.human(stats.variants.bytes))",
            "max size   \(cap)",
            "limits     \(stats.limits.summary)",
            "oldest     \(StatsSpelling.iso(stats.oldest) ?? "-")   newest \(StatsSpelling.iso(stats.newest) ?? "-")",
        ]
        lines += table("by format", stats.byFormat, total: stats.bytes, frames: true)
        lines += table("by set", stats.bySet, total: stats.bytes)
        lines += table("by host", stats.byHost, total: stats.bytes)
        lines += ages("age by last access", stats.accessAges)
        lines += ages("age by fetch time", stats.fetchAges)
        lines += ["", "largest entries"]
        lines += stats.largest.isEmpty ? ["  (none)"]
            : stats.largest.map { "  \(pad(ByteFormat.human($0.size), 10)) \($0.url ?? $0.relativePath)" }
        lines += ["", "failure ledger by reason"]
        lines += counts(stats.failures)
        lines += ["", "failure ledger by host"]
        lines += counts(stats.failuresByHost)
        lines += ["", "last clean", "  " + (stats.lastClean.map(clean) ?? "(none)")]
        lines += ["", "last runs", "  " + pad("started", 26) + pad("duration", 10)
                  + StatsSpelling.runTotals.map { pad($0, 12) }.joined() + pad("shard", 8) + "job"]
        lines += stats.runs.map { run in
            "  " + pad(StatsSpelling.iso(run.started) ?? "", 26) + pad(StatsSpelling.seconds(run.duration), 10)
                + StatsSpelling.runTotals.map { pad(String(run.totals[$0] ?? 0), 12) }.joined()
                + pad(run.shard?.label ?? "-", 8) + oneLine(run.job)
        }
        if stats.runs.isEmpty { lines.append("  (none)") }
        return lines.joined(separator: "\n") + "\n"
    }

    /// With `frames`, a last column gives the groups' image frames.
    private static func table(_ title: String, _ groups: [CacheGroupTotal], total: Int64, frames: Bool = false) -> [String] {
        ["", title] + (groups.isEmpty ? ["  (none)"] : groups.map {
            "  \(pad(oneLine($0.name), 32)) \(pad(String($0.entries), 10)) \(pad(ByteFormat.human($0.bytes), 12)) "
                + (frames ? "\(pad(percent($0.bytes, of: total), 8)) \($0.frames) frames" : percent($0.bytes, of: total))
        })
    }

    private static func counts(_ groups: [CacheGroupTotal]) -> [String] {
        groups.isEmpty ? ["  (none)"] : groups.map { "  \(pad(String($0.entries), 8)) \(oneLine($0.name))" }
    }

    private static func clean(_ clean: CleanRecord) -> String {
        "\(StatsSpelling.iso(clean.finished) ?? "")  removed \(counted(clean.removedEntries, "entry", plural: "entries")) "
            + "(\(ByteFormat.human(clean.freedBytes))) in \(StatsSpelling.seconds(clean.duration)); "
            + "cache \(ByteFormat.human(clean.bytesBefore)) -> \(ByteFormat.human(clean.bytesAfter))"
    }

    private static func ages(_ title: String, _ buckets: [CacheStats.AgeBucket]) -> [String] {
        let most = max(buckets.map(\.entries).max() ?? 0, 1)
        return ["", title] + buckets.map {
            "  \(pad($0.label, 12)) \(pad(String($0.entries), 10)) \(pad(ByteFormat.human($0.bytes), 12)) "
                + String(repeating: "#", count: $0.entries * 30 / most)
        }
    }

    static func percent(_ part: Int64, of whole: Int64) -> String {
        whole > 0 ? String(format: "%.1f%%", Double(part) * 100 / Double(whole)) : "-"
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }
}
