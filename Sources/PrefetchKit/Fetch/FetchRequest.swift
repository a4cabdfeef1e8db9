import Foundation

/// One download: where from, where to, and how.
///
/// The body streams into `destination`, a temporary file path the caller chose (its folder must exist).
/// After the result arrives the file exists only when the outcome is success of kind `.ok`; on every
/// other outcome (failure, `.notModified`, cancellation) the engine has removed it.
/// With `destinationDescriptor` the body goes into a file the caller holds open instead, and the
/// caller drops that file itself on any outcome but `.ok`.
public struct FetchRequest: Sendable {
    /// The URL to fetch; only `http` and `https` are allowed, for it and every redirect.
    public var url: String
    /// The file the body is written to, created or truncated at each attempt; with
    /// `destinationDescriptor`, only the name messages give that file.
    public var destination: String
    /// An open, writable file the caller owns, to write the body into instead of opening
    /// `destination` (an unnamed file saves a second open through `/proc` per body). Each attempt
    /// writes it from offset 0, truncating what an earlier attempt left; the engine never closes or
    /// removes it, and writes nothing more once the result is delivered.
    public var destinationDescriptor: Int32?
    /// Extra request headers. `Accept` and `User-Agent` default to `defaultHeaders` unless given here
    /// (names compare case-insensitively).
    public var headers: [String: String] {
        didSet { unconditionalHeaderLines = Self.headerLines(headers, validators: nil) }
    }
    /// `headerLines` without validators, worked out when `headers` is set rather than per attempt.
    private var unconditionalHeaderLines: [String]
    /// Basic credentials, sent to the first host only.
    public var credentials: Credentials?
    /// Validators from a cached copy, for a conditional GET that may answer 304.
    public var validators: Validators?
    /// The whole transfer, redirects included, must finish within this time.
    public var timeout: Duration
    /// The largest body accepted; a larger one is cut off while receiving and fails as `too_large`.
    public var maxBytes: Int64
    /// How transient failures are retried.
    public var retry: RetryPolicy
    /// Keep cookies in the engine's in-memory cookie jar, shared by every request that sets this.
    public var cookies: Bool
    /// Skip TLS certificate and host name verification.
    public var insecureTLS: Bool
    /// Which hosts and addresses may be requested, redirects included.
    public var network = NetworkPolicy()
    /// Checksum the body as it is written (`FetchResponse.checksum`), so nobody reads it back for that.
    public var computesChecksum = false
    /// Keep this many of the body's first bytes in memory too (`FetchResponse.head`); 0 keeps none.
    public var keptHeadBytes = 0
    /// Start only while fewer transfers than this run, as well as fewer than the engine's
    /// `concurrency`: requests with different limits can share one engine.
    public var concurrency = Int.max
    /// Start only while fewer transfers than this run to the same host, as well as fewer than the
    /// engine's `perHost`.
    public var perHost = Int.max

    public static let defaultHeaders: [String: String] = [
        "Accept": "image/*,*/*;q=0.8",
        "User-Agent": "prefetchd/\(PrefetchVersion.string)",
    ]

    public init(
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

    /// The host that per-host limits count against.
    var hostKey: String {
        URLComponents(string: url)?.host?.lowercased() ?? ""
    }
}

extension FetchRequest: CustomStringConvertible {
    public var description: String { "GET \(redacted(url)) -> \(destination)" }
}

/// A username and password for HTTP Basic authentication. The password never appears in any description.
public struct Credentials: Sendable, Equatable {
    public var username: String
    public var password: String

    public init(username: String, password: String) {
        self.username = username
        self.password = password
    }
}

extension Credentials: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { "\(username):***" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["username": username, "password": "***"]) }
}

/// The validators of a cached copy, as the server sent them.
public struct Validators: Sendable, Equatable {
    /// Sent as `If-None-Match`.
    public var etag: String?
    /// Sent as `If-Modified-Since`.
    public var lastModified: String?

    public init(etag: String? = nil, lastModified: String? = nil) {
        self.etag = etag
        self.lastModified = lastModified
    }
}
