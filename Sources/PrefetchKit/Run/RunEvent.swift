import Foundation

/// One URL state change, written as a JSON line by `--log-format json`: SDWebImageDownloader's
/// start / receive-response / stop / finish notifications as a stream other tools can follow.
package struct RunEvent: Sendable, Codable, Equatable {
    package enum Kind: String, Sendable, Codable {
        case queued, started, response, finished, failed, cached, revalidated, skipped, retrying
    }

    package var event: Kind
    /// Seconds since the Unix epoch, millisecond precision.
    package var time: Double
    /// Redacted.
    package var url: String
    package var set: String
    package var status: Int?
    package var bytes: Int64?
    /// Milliseconds from the transfer's start to this event.
    package var elapsedMs: Double?
    package var reason: String?
    package var attempt: Int?
    /// For `retrying`: milliseconds until the next attempt starts.
    package var delayMs: Double?

    package init(_ event: Kind, url: String, set: String, status: Int? = nil, bytes: Int64? = nil,
                elapsedMs: Double? = nil, reason: String? = nil, attempt: Int? = nil, delayMs: Double? = nil,
                time: Date = Date()) {
        self.event = event
        self.time = (time.timeIntervalSince1970 * 1000).rounded() / 1000
        self.url = url
        self.set = set
        self.status = status
        self.bytes = bytes
        self.elapsedMs = elapsedMs.map { ($0 * 10).rounded() / 10 }
        self.reason = reason
        self.attempt = attempt
        self.delayMs = delayMs.map { $0.rounded() }
    }

    enum CodingKeys: String, CodingKey {
        case event, time, url, set, status, bytes, reason, attempt
        case elapsedMs = "elapsed_ms"
        case delayMs = "delay_ms"
    }

    /// The event as one line of JSON, newline included.
    package func jsonLine() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(self) else { return "" }
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}
