/// A run's own fields in the JSON log's closing `summary` event: the report's job, start, totals and
/// warnings (its outcome is the event's `outcome`).
package struct RunSummary: Sendable, Encodable {
    let job: String
    let started: String
    let totals: RunTotals
    let warnings: [String: Int]

    package init(_ report: RunReport) {
        job = report.job
        started = report.started
        totals = report.totals
        warnings = report.warnings
    }
}
