/// Identifies one submitted request for the whole of its life, retries included.
package struct FetchID: Hashable, Sendable, CustomStringConvertible {
    package let rawValue: UInt64
    package var description: String { "#\(rawValue)" }
}

/// The end of a request: its outcome after every attempt.
package struct FetchResult: Sendable {
    package let id: FetchID
    /// The requested URL, redacted.
    package let url: String
    /// Success (`.ok` with the body in the destination file, or `.notModified`) or why it failed.
    package let outcome: Result<FetchResponse, FetchError>
    /// How many attempts were made (1 when the first one settled it).
    package let attempts: Int
    /// The timings of the last attempt.
    package let timings: FetchTimings
    /// From the start of the first attempt to this result: every attempt, backoff and the body's last
    /// write included; zero when no attempt began.
    package let elapsed: Duration
    /// For a failure: the body was cut part way and its first `kept.offset` bytes are in the file the
    /// caller owns (`FetchRequest.destinationDescriptor`), for a later run to resume from.
    package var kept: ResumePoint? = nil
}

/// A successful response. A class, and immutable: it goes from the network thread through the
/// attempt's outcome and the result to the completion, and a struct of its size (the headers, the URL,
/// the head) cost a dozen reference counts at each of those copies.
package final class FetchResponse: Sendable {
    package enum Kind: Sendable, Equatable {
        /// 2xx: the body is in the destination file.
        case ok
        /// 304: the cached copy is still good; no file was kept.
        case notModified
    }

    package let kind: Kind
    package let status: Int
    /// Body bytes written to the destination for `.ok`, after any content decoding.
    package let bytes: Int64
    /// The body's checksum (`ContentHasher`), computed as it streamed, when the request asked for it.
    package let checksum: String?
    /// The rest, shared with the response this one was made from by `with(checksum:)`.
    private let parts: Parts

    /// The URL after redirects, redacted.
    package var finalURL: String { parts.finalURL }
    package var headers: ResponseHeaders { parts.headers }
    /// The body's first `FetchRequest.keptHeadBytes` bytes (fewer when it is shorter), kept in memory
    /// as they streamed, so a header check does not read the file back.
    package var head: [UInt8] { parts.head }
    /// What a person should know of a response that still succeeded: a digest header left out as malformed.
    package var warnings: [String] { parts.warnings }

    package convenience init(kind: Kind, status: Int, finalURL: String, headers: ResponseHeaders, bytes: Int64,
                             checksum: String? = nil, head: [UInt8] = [], warnings: [String] = []) {
        self.init(kind: kind, status: status, bytes: bytes, checksum: checksum,
                  parts: Parts(finalURL: finalURL, headers: headers, head: head, warnings: warnings))
    }

    private init(kind: Kind, status: Int, bytes: Int64, checksum: String?, parts: Parts) {
        self.kind = kind
        self.status = status
        self.bytes = bytes
        self.checksum = checksum
        self.parts = parts
    }

    /// The same response with the body's checksum, once its last bytes are hashed.
    func with(checksum: String?) -> FetchResponse {
        FetchResponse(kind: kind, status: status, bytes: bytes, checksum: checksum, parts: parts)
    }

    private final class Parts: Sendable {
        let finalURL: String
        let headers: ResponseHeaders
        let head: [UInt8]
        let warnings: [String]

        init(finalURL: String, headers: ResponseHeaders, head: [UInt8], warnings: [String]) {
            self.finalURL = finalURL
            self.headers = headers
            self.head = head
            self.warnings = warnings
        }
    }
}

/// The response headers the cache and the retry policy care about.
package struct ResponseHeaders: Sendable, Equatable {
    package var etag: String?
    package var lastModified: String?
    package var contentType: String?
    package var retryAfter: String?
    /// The headers of the response's freshness, read only when the request asks
    /// (`FetchRequest.readsFreshness`): `Cache-Control`, `Expires`, `Date`, `Age`.
    package var cacheControl: String? = nil
    package var expires: String? = nil
    package var date: String? = nil
    package var age: String? = nil
}

/// Where the time of one attempt went, from libcurl's own clock (all measured from the attempt's start).
package struct FetchTimings: Sendable, Equatable {
    /// Until the transfer finished or failed.
    package var total: Duration
    /// Until the TCP connection was made.
    package var connect: Duration
    /// Until the first response byte arrived.
    package var startTransfer: Duration

    package static let zero = FetchTimings(total: .zero, connect: .zero, startTransfer: .zero)
}

/// What the engine reports as transfers move along, in order per request, for logs and progress.
package enum FetchEvent: Sendable {
    /// An attempt began (attempt 1 is the first).
    case started(id: FetchID, url: String, attempt: Int)
    /// The final response's status line and headers arrived (redirects are not reported), `elapsed`
    /// after the first attempt began, on the clock the result's `elapsed` is measured with.
    case response(id: FetchID, status: Int, headers: ResponseHeaders, elapsed: Duration)
    /// An attempt failed transiently; the next one starts after `delay`.
    /// `elapsed`: since the first attempt began.
    case retrying(id: FetchID, error: FetchError, attempt: Int, delay: Duration, elapsed: Duration)
    /// The request is settled; the same result goes to its completion.
    case finished(FetchResult)
}
