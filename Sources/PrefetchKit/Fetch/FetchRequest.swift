import Foundation

/// One download: where from, where to, and how.
///
/// The body streams into `destination`, a temporary file path the caller chose (its folder must exist).
/// After the result arrives the file exists only when the outcome is success of kind `.ok`; on every
/// other outcome (failure, `.notModified`, cancellation) the engine has removed it.
/// With `destinationDescriptor` the body goes into a file the caller holds open instead, and the
/// caller drops that file itself on any outcome but `.ok`.
package struct FetchRequest: Sendable {
    /// The URL to fetch; only `http` and `https` are allowed, for it and every redirect.
    package var url: String
    /// The file the body is written to, created or truncated at each attempt; with
    /// `destinationDescriptor`, only the name messages give that file.
    package var destination: String
    /// An open, writable file the caller owns, to write the body into instead of opening
    /// `destination` (an unnamed file saves a second open through `/proc` per body). Each attempt
    /// writes it from offset 0, truncating what an earlier attempt left; the engine never closes or
    /// removes it, and writes nothing more once the result is delivered.
    package var destinationDescriptor: Int32?
    /// Validators from a cached copy, for a conditional GET that may answer 304.
    package var validators: Validators?
    /// The digest the body must have as stored, after any content decoding (a `url_file` line's); a
    /// body that does not fails as `digest_mismatch`.
    package var expectedDigest: ExpectedDigest?
    /// Where a body cut part way in an earlier run stands in `destinationDescriptor`'s file: the first
    /// attempt asks for the rest (`ResumePoint`). Within a run, every retry of a cut body resumes it
    /// without this.
    package var resume: ResumePoint?
    /// Everything else: what every URL of a set shares, behind one reference, copied on write. The
    /// request is copied on its way to a network thread and there (the shared queue, the retries,
    /// the attempt): a struct holding all of it cost about twenty reference counts a copy.
    private var settings: Settings

    /// Extra request headers. `Accept`, `Accept-Encoding` and `User-Agent` default to `defaultHeaders` unless given here
    /// (names compare case-insensitively).
    package var headers: [String: String] {
        get { settings.headers }
        set {
            let settings = unique()
            settings.headers = newValue
            settings.unconditionalHeaderLines = Self.headerLines(newValue, validators: nil)
        }
    }
    /// Basic credentials, sent to the first host only.
    package var credentials: Credentials? {
        get { settings.credentials }
        set { unique().credentials = newValue }
    }
    /// The whole transfer, redirects included, must finish within this time.
    package var timeout: Duration {
        get { settings.timeout }
        set { unique().timeout = newValue }
    }
    /// The largest body accepted; a larger one is cut off while receiving and fails as `too_large`.
    package var maxBytes: Int64 {
        get { settings.maxBytes }
        set { unique().maxBytes = newValue }
    }
    /// How transient failures are retried.
    package var retry: RetryPolicy {
        get { settings.retry }
        set { unique().retry = newValue }
    }
    /// Keep cookies in the engine's in-memory cookie jar, shared by every request that sets this.
    package var cookies: Bool {
        get { settings.cookies }
        set { unique().cookies = newValue }
    }
    /// Skip TLS certificate and host name verification.
    package var insecureTLS: Bool {
        get { settings.insecureTLS }
        set { unique().insecureTLS = newValue }
    }
    /// Which hosts and addresses may be requested, redirects included.
    package var network: NetworkPolicy {
        get { settings.network }
        set { unique().network = newValue }
    }
    /// A body slower than this is aborted as a timeout.
    package var stall: StallLimit {
        get { settings.stall }
        set { unique().stall = newValue }
    }
    /// The proxy, `connect_to` and trusted certificate authorities.
    package var route: FetchRoute {
        get { settings.route }
        set { unique().route = newValue }
    }
    /// Query parameters whose values no message or event shows (`redact_params`).
    package var hiddenParams: [String] {
        get { settings.hiddenParams }
        set { unique().hiddenParams = newValue }
    }
    /// Checksum the body as it is written (`FetchResponse.checksum`), so nobody reads it back for that.
    package var computesChecksum: Bool {
        get { settings.computesChecksum }
        set { unique().computesChecksum = newValue }
    }
    /// Read the response's freshness headers into `ResponseHeaders` (for `refresh: http`).
    package var readsFreshness: Bool {
        get { settings.readsFreshness }
        set { unique().readsFreshness = newValue }
    }
    /// Keep this many of the body's first bytes in memory too (`FetchResponse.head`); 0 keeps none.
    package var keptHeadBytes: Int {
        get { settings.keptHeadBytes }
        set { unique().keptHeadBytes = newValue }
    }
    /// Start only while fewer transfers than this run, as well as fewer than the engine's
    /// `concurrency`: requests with different limits can share one engine.
    package var concurrency: Int {
        get { settings.concurrency }
        set { unique().concurrency = newValue }
    }
    /// Start only while fewer transfers than this run to the same host, as well as fewer than the
    /// engine's `perHost`.
    package var perHost: Int {
        get { settings.perHost }
        set { unique().perHost = newValue }
    }
    /// The set's `rate_limit`, held by the bucket of `rateLimitScope` that every request with the same
    /// scope shares; the host's own limit comes from `EngineConfiguration.hostRateLimits`.
    package var rateLimit: RateLimit? {
        get { settings.rateLimit }
        set { unique().rateLimit = newValue }
    }
    package var rateLimitScope: Int {
        get { settings.rateLimitScope }
        set { unique().rateLimitScope = newValue }
    }
    /// Which of the engine's callers the request belongs to (a job of the run): `cancel(group:)` and
    /// the rate-limit waits go by it.
    package var group: Int {
        get { settings.group }
        set { unique().group = newValue }
    }

    /// The URL as messages and events show it (`URLRedaction.shown`).
    package var shownURL: String { URLRedaction.shown(url, hiding: hiddenParams) }

    /// The settings to change, this request's own: copied first when another request shares them.
    private mutating func unique() -> Settings {
        if !isKnownUniquelyReferenced(&settings) { settings = settings.copy() }
        return settings
    }

    /// `Accept-Encoding: identity` asks for the body as it is; one sent in another coding anyway is
    /// decoded (`ContentDecoder`).
    package static let defaultHeaders: [String: String] = [
        "Accept": "image/*,*/*;q=0.8",
        "Accept-Encoding": "identity",
        "User-Agent": "prefetchd/\(PrefetchVersion.string)",
    ]

    package init(
        url: String,
        destination: String,
        headers: [String: String] = [:],
        credentials: Credentials? = nil,
        validators: Validators? = nil,
        timeout: Duration = .seconds(15),
        maxBytes: Int64 = 20 * 1024 * 1024,
        retry: RetryPolicy = RetryPolicy(),
        cookies: Bool = false,
        insecureTLS: Bool = false
    ) {
        self.url = url
        self.destination = destination
        self.validators = validators
        settings = Settings(headers: headers, headerLines: Self.headerLines(headers, validators: nil), credentials: credentials,
                            timeout: timeout, maxBytes: maxBytes, retry: retry, cookies: cookies, insecureTLS: insecureTLS)
    }

    /// The headers as sent: the defaults, overridden by `headers`, plus the conditional ones.
    var headerLines: [String] {
        validators == nil ? settings.unconditionalHeaderLines : Self.headerLines(headers, validators: validators)
    }

    private static func headerLines(_ headers: [String: String], validators: Validators?) -> [String] {
        var merged = headers
        for (name, value) in Self.defaultHeaders
        where !merged.keys.contains(where: { $0.caseInsensitiveCompare(name) == .orderedSame }) {
            merged[name] = value
        }
        if let etag = validators?.etag { merged["If-None-Match"] = etag }
        if let lastModified = validators?.lastModified { merged["If-Modified-Since"] = lastModified }
        return merged.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
    }

    /// The headers of an attempt that asks for the rest of a cut body: `Range` from the bytes it holds
    /// and `If-Range` with the validator of the response that began it, so that a changed body comes
    /// whole (a 200) instead of as a piece of another. Without the conditional ones: the body being
    /// resumed is a new one already.
    func headerLines(resuming resume: ResumePoint) -> [String] {
        settings.unconditionalHeaderLines + ["Range: bytes=\(resume.offset)-", "If-Range: \(resume.validator.headerValue)"]
    }

    /// The host that per-host limits count against.
    var hostKey: String {
        HostKeys.shared.hostKey(of: url)
    }
}

extension FetchRequest {
    /// A request's settings other than its URL's own: mutable only while one request holds them
    /// (`unique()`), so a request's copies never see each other's changes, and shared read-only after.
    private final class Settings: @unchecked Sendable {
        var headers: [String: String]
        /// `headerLines` without validators, worked out when `headers` is set rather than per attempt.
        var unconditionalHeaderLines: [String]
        var credentials: Credentials?
        var timeout: Duration
        var maxBytes: Int64
        var retry: RetryPolicy
        var cookies: Bool
        var insecureTLS: Bool
        var network = NetworkPolicy()
        var stall = StallLimit.default
        var route = FetchRoute()
        var hiddenParams: [String] = []
        var computesChecksum = false
        var readsFreshness = false
        var keptHeadBytes = 0
        var concurrency = Int.max
        var perHost = Int.max
        var rateLimit: RateLimit?
        var rateLimitScope = 0
        var group = 0

        init(headers: [String: String], headerLines: [String], credentials: Credentials?, timeout: Duration, maxBytes: Int64,
             retry: RetryPolicy, cookies: Bool, insecureTLS: Bool) {
            self.headers = headers
            unconditionalHeaderLines = headerLines
            self.credentials = credentials
            self.timeout = timeout
            self.maxBytes = maxBytes
            self.retry = retry
            self.cookies = cookies
            self.insecureTLS = insecureTLS
        }

        func copy() -> Settings {
            let copy = Settings(headers: headers, headerLines: unconditionalHeaderLines, credentials: credentials, timeout: timeout,
                                maxBytes: maxBytes, retry: retry, cookies: cookies, insecureTLS: insecureTLS)
            copy.network = network
            copy.stall = stall
            copy.route = route
            copy.hiddenParams = hiddenParams
            copy.computesChecksum = computesChecksum
            copy.readsFreshness = readsFreshness
            copy.keptHeadBytes = keptHeadBytes
            copy.concurrency = concurrency
            copy.perHost = perHost
            copy.rateLimit = rateLimit
            copy.rateLimitScope = rateLimitScope
            copy.group = group
            return copy
        }
    }
}

extension FetchRequest: CustomStringConvertible {
    package var description: String { "GET \(shownURL) -> \(destination)" }
}

/// A username and password for HTTP Basic authentication. The password never appears in any description.
package struct Credentials: Sendable, Equatable {
    package var username: String
    package var password: String
}

extension Credentials: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    package var description: String { "\(username):***" }
    package var debugDescription: String { description }
    package var customMirror: Mirror { Mirror(self, children: ["username": username, "password": "***"]) }
}

/// The validators of a cached copy, as the server sent them.
package struct Validators: Sendable, Equatable {
    /// Sent as `If-None-Match`.
    package var etag: String?
    /// Sent as `If-Modified-Since`.
    package var lastModified: String?
}
