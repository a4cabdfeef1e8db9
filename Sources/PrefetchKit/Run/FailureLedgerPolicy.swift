import Foundation

/// When a failed key may be tried again: SDWebImageManager's failedURLs made persistent.
/// A permanent failure (404, not an image, too large, ...) waits a day, doubling with each further
/// failure up to 30 days; a transient one that used up its retries is due again at the next run.
enum FailureLedgerPolicy {
    static let firstWait: TimeInterval = 86_400
    static let longestWait: TimeInterval = 30 * 86_400

    static func record(url: String, key: String, failure: RunFailure, permanent: Bool,
                       previous: FailureRecord?, now: Date) -> FailureRecord {
        let attempts = (previous?.attempts ?? 0) + failure.attempts
        let nextRetry: Date
        if permanent {
            var wait = firstWait
            if let previous, let due = previous.nextRetryAt {
                wait = min(longestWait, max(firstWait, 2 * due.timeIntervalSince(previous.lastErrorAt)))
            }
            nextRetry = now.addingTimeInterval(wait)
        } else {
            nextRetry = now
        }
        return FailureRecord(url: url, key: key, reason: failure.reason, httpStatus: failure.httpStatus,
                             attempts: attempts, nextRetryAt: nextRetry, lastErrorAt: now)
    }
}
