/// One failed item of a run, as the report lists it. URLs are already redacted.
package struct RunFailure: Sendable, Equatable, Codable {
    package var url: String
    package var set: String
    /// A stable reason name: `http_404`, `timeout`, `truncated`, `not_image`, ...
    package var reason: String
    package var httpStatus: Int?
    package var attempts: Int
    /// The library's own words, for a person.
    package var message: String
    /// True for a key not tried because the failure ledger holds a failure of it not due again yet
    /// (`reason` is that failure's); absent for a failure of this run.
    package var ledgered: Bool?
    /// For a ledgered key: when the ledger lets it be tried again, ISO 8601 in UTC.
    package var nextRetry: String?

    enum CodingKeys: String, CodingKey {
        case url, set, reason, attempts, message, ledgered
        case httpStatus = "http_status"
        case nextRetry = "next_retry"
    }
}
