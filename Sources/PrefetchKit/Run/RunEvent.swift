import Foundation

/// One URL state change, written as a JSON line by `--log-format json`: SDWebImageDownloader's
/// start / receive-response / stop / finish notifications as a stream other tools can follow.
public struct RunEvent: Sendable, Codable, Equatable {
    public enum Kind: String, Sendable, Codable {
        case queued, started, response, finished, failed, cached, revalidated, skipped, retrying
    }

    public var event: Kind
    /// Seconds since the Unix epoch, millisecond precision.
    public var time: Double
    /// Redacted.
    public var url: String
    public var set: String
    public var status: Int?
    public var bytes: Int64?
    /// Milliseconds from the transfer's start to this event.
    public var elapsedMs: Double?
    public var reason: String?
    public var attempt: Int?
    /// For `retrying`: milliseconds until the next attempt starts.
    public var delayMs: Double?

    public init(_ event: Kind, url: String, set: String, status: Int? = nil, bytes: Int64? = nil,
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
    public func jsonLine() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(self) else { return "" }
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}
