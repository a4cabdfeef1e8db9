import Foundation

/// The one spelling of a moment in prefetchd's machine output and logs: ISO 8601 in UTC with
/// milliseconds, `2026-12-01T15:40:00.123Z` (the run report's `started` and `next_retry`, the times
/// `stats` gives, every JSON log event's `time`, the stamp that starts a text log line off a terminal).
package enum Timestamp {
    private static let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt)

    package static func iso8601(_ date: Date) -> String {
        date.formatted(style)
    }
}
