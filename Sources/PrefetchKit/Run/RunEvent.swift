import Foundation

/// One URL state change, written as a JSON line by `--log-format json`: SDWebImageDownloader's
/// start / receive-response / stop / finish notifications as a stream other tools can follow. The
/// line also carries `time` and `format_version` (`Log.jsonLine`).
package struct RunEvent: Sendable, Codable, Equatable {
    package enum Kind: String, Sendable, Codable {
        case queued, started, response, finished, failed, ledgered, cached, revalidated, skipped, retrying

        /// A failure of the run: a URL that failed now, or one the failure ledger kept from being tried.
        var isFailure: Bool { self == .failed || self == .ledgered }
    }

    package var event: Kind
    /// When it happened: the line's `time`.
    package var time = Date()
    /// Redacted.
    package var url: String
    package var set: String
    package var status: Int?
    package var bytes: Int64?
    /// Whole milliseconds from the transfer's start to this event.
    package var elapsedMs: Int64?
    package var reason: String?
    package var attempt: Int?
    /// For `retrying`: whole milliseconds until the next attempt starts.
    package var delayMs: Int64?
    /// For `failed`: the failure in words, as the report's `failures` give it (which limit a `timeout`
    /// was, what a `bad_response` lacked).
    package var message: String?

    package init(_ event: Kind, url: String, set: String, status: Int? = nil, bytes: Int64? = nil,
                elapsedMs: Double? = nil, reason: String? = nil, attempt: Int? = nil, delayMs: Double? = nil,
                message: String? = nil, time: Date = Date()) {
        self.event = event
        self.time = time
        self.url = url
        self.set = set
        self.status = status
        self.bytes = bytes
        self.elapsedMs = elapsedMs.map { Int64($0.rounded()) }
        self.reason = reason
        self.attempt = attempt
        self.delayMs = delayMs.map { Int64($0.rounded()) }
        self.message = message
    }

    enum CodingKeys: String, CodingKey {
        case event, url, set, status, bytes, reason, attempt, message
        case elapsedMs = "elapsed_ms"
        case delayMs = "delay_ms"
    }

    /// The `failed` event of `failure`: its reason, status, attempts (none for a failure no transfer
    /// made) and words.
    package static func failed(_ failure: RunFailure, elapsedMs: Double? = nil) -> RunEvent {
        RunEvent(.failed, url: failure.url, set: failure.set, status: failure.httpStatus, elapsedMs: elapsedMs,
                 reason: failure.reason, attempt: failure.attempts > 0 ? failure.attempts : nil, message: failure.message)
    }

    /// A URL the failure ledger kept from being tried (`RunFailure.ledgered`): the failure it holds, in words.
    package static func ledgered(_ failure: RunFailure) -> RunEvent {
        RunEvent(.ledgered, url: failure.url, set: failure.set, status: failure.httpStatus, reason: failure.reason, message: failure.message)
    }

    /// The event as one line of JSON, newline included.
    package func jsonLine() -> String {
        Log.jsonLine(self, at: time)
    }
}
