/// One failed item of a run, as the report lists it. URLs are already redacted.
public struct RunFailure: Sendable, Equatable, Codable {
    public var url: String
    public var set: String
    /// A stable reason name: `http_404`, `timeout`, `truncated`, `not_image`, ...
    public var reason: String
    public var httpStatus: Int?
    public var attempts: Int
    /// The library's own words, for a person.
    public var message: String

    public init(url: String, set: String, reason: String, httpStatus: Int?, attempts: Int, message: String) {
        self.url = url
        self.set = set
        self.reason = reason
        self.httpStatus = httpStatus
        self.attempts = attempts
        self.message = message
    }

    enum CodingKeys: String, CodingKey {
        case url, set, reason, attempts, message
        case httpStatus = "http_status"
    }
}
