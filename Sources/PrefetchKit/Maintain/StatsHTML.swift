import Foundation

/// `--format html`: one self-contained page (inline CSS and SVG, no external assets) with the age
/// histograms, bytes by set and the run history as charts.
enum StatsHTML {
    static func render(_ stats: CacheStats) -> String {
        let cap = stats.maxSize > 0 ? " of \(ByteFormat.human(stats.maxSize)) (\(StatsText.percent(stats.bytes, of: stats.maxSize)))" : ""
        let runs = stats.runs.reversed().map { run in
            (label: StatsSpelling.iso(run.started).map { String($0.prefix(16)) } ?? "", value: Double(run.totals["fetched"] ?? 0))
        }
        return """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><title>prefetchd cache: \(escape(stats.cache))</title>
            <style>body{font:14px system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse}
            td,th{padding:2px 10px;text-align:left}td.n{text-align:right}svg{display:block;margin:0.5em 0 1.5em}
            .bar{fill:#4a7bd0}</style></head><body>
            <h1>prefetchd cache</h1>
            <p>\(escape(stats.cache)) (\(stats.layout.rawValue) layout): <b>\(stats.entries)</b> entries,
            <b>\(ByteFormat.human(stats.bytes))</b> of file data\(cap).</p>
            <h2>Age by last access</h2>
            \(chart("age-by-access", stats.accessAges.map { ($0.label, Double($0.entries)) }, unit: "entries"))
            <h2>Age by fetch time</h2>
            \(chart("age-by-fetch", stats.fetchAges.map { ($0.label, Double($0.entries)) }, unit: "entries"))
            <h2>Bytes by set</h2>
            \(chart("bytes-by-set", stats.bySet.prefix(20).map { ($0.name, Double($0.bytes)) }, unit: "bytes"))
            <h2>Run history (fetched per run)</h2>
            \(chart("run-history", runs, unit: "fetched"))
            <h2>By format</h2>\(table(stats.byFormat, frames: true))
            <h2>By host</h2>\(table(Array(stats.byHost.prefix(20))))
            <h2>Largest entries</h2><table>\(stats.largest.map {
                "<tr><td class=\"n\">\(ByteFormat.human($0.size))</td><td>\(escape($0.url ?? $0.relativePath))</td></tr>"
            }.joined())</table>
            <h2>Failure ledger</h2><table>\(stats.failures.map {
                "<tr><td class=\"n\">\($0.entries)</td><td>\(escape($0.name))</td></tr>"
            }.joined())</table>
            <p>Generated \(StatsSpelling.iso(stats.generated) ?? "").</p>
            </body></html>

            """
    }

    /// A horizontal bar chart as inline SVG, one labelled bar per value.
    static func chart(_ id: String, _ bars: [(label: String, value: Double)], unit: String) -> String {
        let rowHeight = 22
        let height = max(bars.count, 1) * rowHeight + 4
        let most = max(bars.map(\.value).max() ?? 0, 1)
        let rows = bars.enumerated().map { offset, bar in
            let y = offset * rowHeight + 2
            let width = Int(bar.value / most * 400)
            let shown = unit == "bytes" ? ByteFormat.human(Int64(bar.value)) : String(Int64(bar.value))
            return """
                <text x="0" y="\(y + 15)">\(escape(String(bar.label.prefix(24))))</text>\
                <rect class="bar" x="180" y="\(y)" width="\(width)" height="\(rowHeight - 6)"><title>\(shown) \(unit)</title></rect>\
                <text x="\(186 + width)" y="\(y + 15)">\(shown)</text>
                """
        }
        return """
            <svg id="\(id)" xmlns="http://www.w3.org/2000/svg" width="700" height="\(height)" role="img" aria-label="\(id)">
            \(rows.joined(separator: "\n"))
            </svg>
            """
    }

    /// With `frames`, a last column gives the groups' image frames.
    private static func table(_ groups: [CacheGroupTotal], frames: Bool = false) -> String {
        "<table><tr><th>name</th><th>entries</th><th>bytes</th>\(frames ? "<th>frames</th>" : "")</tr>" + groups.map {
            "<tr><td>\(escape($0.name))</td><td class=\"n\">\($0.entries)</td><td class=\"n\">\(ByteFormat.human($0.bytes))</td>"
                + (frames ? "<td class=\"n\">\($0.frames)</td>" : "") + "</tr>"
        }.joined() + "</table>"
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
