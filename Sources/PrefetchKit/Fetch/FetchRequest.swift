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
    /// Extra request headers. `Accept`, `Accept-Encoding` and `User-Agent` default to `defaultHeaders` unless given here
    /// (names compare case-insensitively).
    package var headers: [String: String] {
        didSet { unconditionalHeaderLines = Self.headerLines(headers, validators: nil) }
    }
    /// `headerLines` without validators, worked out when `headers` is set rather than per attempt.
    private var unconditionalHeaderLines: [String]
    /// Basic credentials, sent to the first host only.
    package var credentials: Credentials?
    /// Validators from a cached copy, for a conditional GET that may answer 304.
    package var validators: Validators?
    /// The whole transfer, redirects included, must finish within this time.
    package var timeout: Duration
    /// The largest body accepted; a larger one is cut off while receiving and fails as `too_large`.
    package var maxBytes: Int64
    /// How transient failures are retried.
    package var retry: RetryPolicy
    /// Keep cookies in the engine's in-memory cookie jar, shared by every request that sets this.
    package var cookies: Bool
    /// Skip TLS certificate and host name verification.
    package var insecureTLS: Bool
    /// Which hosts and addresses may be requested, redirects included.
    package var network = NetworkPolicy()
    /// A body slower than this is aborted as a timeout.
    package var stall = StallLimit.default
    /// The proxy, `connect_to` and trusted certificate authorities.
    package var route = FetchRoute()
    /// Query parameters whose values no message or event shows (`redact_params`).
    package var hiddenParams: [String] = []

    /// The URL as messages and events show it (`URLRedaction.shown`).
    package var shownURL: String { URLRedaction.shown(url, hiding: hiddenParams) }
    /// Checksum the body as it is written (`FetchResponse.checksum`), so nobody reads it back for that.
    package var computesChecksum = false
    /// The digest the body must have as stored, after any content decoding (a `url_file` line's); a
    /// body that does not fails as `digest_mismatch`.
    package var expectedDigest: ExpectedDigest?
    /// Where a body cut part way in an earlier run stands in `destinationDescriptor`'s file: the first
    /// attempt asks for the rest (`ResumePoint`). Within a run, every retry of a cut body resumes it
    /// without this.
    package var resume: ResumePoint?
    /// Read the response's freshness headers into `ResponseHeaders` (for `refresh: http`).
    package var readsFreshness = false
    /// Keep this many of the body's first bytes in memory too (`FetchResponse.head`); 0 keeps none.
    package var keptHeadBytes = 0
    /// Start only while fewer transfers than this run, as well as fewer than the engine's
    /// `concurrency`: requests with different limits can share one engine.
    package var concurrency = Int.max
    /// Start only while fewer transfers than this run to the same host, as well as fewer than the
    /// engine's `perHost`.
    package var perHost = Int.max
    /// The set's `rate_limit`, held by the bucket of `rateLimitScope` that every request with the same
    /// scope shares; the host's own limit comes from `EngineConfiguration.hostRateLimits`.
    package var rateLimit: RateLimit?
    package var rateLimitScope = 0
    /// Which of the engine's callers the request belongs to (a job of the run): `cancel(group:)` and
    /// the rate-limit waits go by it.
    package var group = 0

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
        self.headers = headers
        unconditionalHeaderLines = Self.headerLines(headers, validators: nil)
        self.credentials = credentials
        self.validators = validators
        self.timeout = timeout
        self.maxBytes = maxBytes
        self.retry = retry
        self.cookies = cookies
        self.insecureTLS = insecureTLS
    }

    /// The headers as sent: the defaults, overridden by `headers`, plus the conditional ones.
    var headerLines: [String] {
        validators == nil ? unconditionalHeaderLines : Self.headerLines(headers, validators: validators)
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
        unconditionalHeaderLines + ["Range: bytes=\(resume.offset)-", "If-Range: \(resume.validator.headerValue)"]
    }

    /// The host that per-host limits count against.
    var hostKey: String {
        HostKeys.shared.hostKey(of: url)
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
