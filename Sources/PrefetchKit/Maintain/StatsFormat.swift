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

    /// A duration in seconds to the millisecond, as the run report's `duration_s`: "0.031 s", "12.500 s".
    static func seconds(_ duration: TimeInterval) -> String {
        String(format: "%.3f s", duration)
    }

    /// The run totals shown in tables and charts, in report order.
    static let runTotals = ["fetched", "cached", "revalidated", "failed", "ledgered", "skipped"]
}
