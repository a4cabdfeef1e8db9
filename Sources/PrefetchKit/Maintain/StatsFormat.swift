import Foundation

/// The renderings `prefetchd stats --format` offers.
package enum StatsFormat: String, Sendable, CaseIterable {
    case text, json, prometheus, html

    package func render(_ stats: CacheStats) -> String {
        switch self {
        case .text: StatsText.render(stats)
        case .json: StatsJSON.render(stats)
        case .prometheus: StatsPrometheus.render(stats)
        case .html: StatsHTML.render(stats)
        }
    }
}

/// Shared spellings of dates and run totals.
enum StatsSpelling {
    static func iso(_ date: Date?) -> String? {
        date.map(Timestamp.iso8601)
    }

    /// The run totals shown in tables and charts, in report order.
    static let runTotals = ["fetched", "cached", "revalidated", "failed", "skipped"]
}
