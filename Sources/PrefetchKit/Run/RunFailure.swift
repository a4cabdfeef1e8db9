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

    enum CodingKeys: String, CodingKey {
        case url, set, reason, attempts, message
        case httpStatus = "http_status"
    }
}
