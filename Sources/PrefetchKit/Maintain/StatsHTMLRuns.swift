import Foundation

/// The stats page's run history: a column per recorded run, oldest on the left, for its URLs by result,
/// its bytes and its duration, then the runs' table.
enum StatsHTMLRuns {
    /// The results stacked in the URLs chart, bottom up.
    static let results = ["fetched", "cached", "revalidated", "failed"]

    static func history(_ newestFirst: [RunRecord]) -> String {
        guard !newestFirst.isEmpty else { return StatsHTML.none }
        let runs = Array(newestFirst.reversed())
        let urls = runs.map { run in
            let values = results.map { run.totals[$0] ?? 0 }
            let tip = zip(values, results).map { "\(HTMLText.grouped($0)) \($1)" }.joined(separator: ", ")
            return mark(run, values.map(Double.init), shown: HTMLText.grouped(values.reduce(0, +)), tip: tip)
        }
        let bytes = runs.map { run in
            let fetched = Int64(run.totals["bytes"] ?? 0)
            return mark(run, [Double(fetched)], shown: ByteFormat.human(fetched), tip: "\(ByteFormat.human(fetched)) fetched")
        }
        let durations = runs.map { run in
            let shown = StatsSpelling.seconds(run.duration)
            return mark(run, [run.duration], shown: shown, tip: shown)
        }
        return """
            <h3>URLs per run</h3>\(SVGChart.columns("run-urls", urls, series: results))\(StatsHTML.legend(results))
            <div class="pair"><div><h3>Bytes fetched per run</h3>\(SVGChart.columns("run-bytes", bytes, series: ["bytes"]))</div>
            <div><h3>Duration per run</h3>\(SVGChart.columns("run-duration", durations, series: ["duration"]))</div></div>
            \(table(newestFirst))
            """
    }

    /// A run's column: labelled by its start (month and day over the time), its tooltip led by the start
    /// and the job.
    private static func mark(_ run: RunRecord, _ values: [Double], shown: String, tip: String) -> SVGChart.Mark {
        let started = StatsSpelling.iso(run.started) ?? ""
        return SVGChart.Mark(label: String(started.dropFirst(5).prefix(5)), detail: String(started.dropFirst(11).prefix(5)),
                             values: values, shown: shown, tip: "\(started) \(run.job): \(tip)")
    }

    private static func table(_ runs: [RunRecord]) -> String {
        let heads = ["started", "job", "outcome", "duration"] + StatsSpelling.runTotals + ["bytes"]
        let rows = runs.map { run in
            let cells = [StatsSpelling.iso(run.started) ?? "", run.job, run.outcome ?? "-", StatsSpelling.seconds(run.duration)]
            let numbers = StatsSpelling.runTotals.map { HTMLText.grouped(run.totals[$0] ?? 0) }
                + [ByteFormat.human(Int64(run.totals["bytes"] ?? 0))]
            return "<tr>" + cells.map { "<td class=\"name\" title=\"\(HTMLText.escape($0))\">\(HTMLText.escape($0))</td>" }.joined()
                + numbers.map { "<td class=\"n\">\($0)</td>" }.joined() + "</tr>"
        }
        return "<table id=\"runs\"><tr>\(heads.map { "<th>\($0)</th>" }.joined())</tr>\(rows.joined())</table>"
    }
}
