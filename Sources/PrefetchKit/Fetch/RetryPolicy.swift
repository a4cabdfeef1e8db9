import Foundation
internal import CCurl

/// Which failures are worth another attempt, and how long to wait before it.
///
/// Transient: timeouts, refused or reset connections, DNS failures, truncated bodies and HTTP 408, 429,
/// 500, 502, 503, 504. Everything else is permanent. Waits grow from `baseDelay`, doubling per attempt,
/// plus up to `jitter` of themselves at random, never past `maxDelay`; a `Retry-After` header
/// (delta-seconds or HTTP-date) replaces the backoff, capped at `maxRetryAfter`.
package struct RetryPolicy: Sendable, Equatable {
    /// Attempts after the first one.
    package var retries: Int
    package var baseDelay: Duration
    package var maxDelay: Duration
    package var maxRetryAfter: Duration
    /// The largest random share added to a backoff delay, from 0 (none) to 1 (up to double).
    package var jitter: Double

    package enum Decision: Sendable, Equatable {
        case retry(after: Duration)
        case giveUp
    }

    package static let transientStatuses: Set<Int> = [408, 429, 500, 502, 503, 504]

    package init(
        retries: Int = 2,
        baseDelay: Duration = .seconds(1),
        maxDelay: Duration = .seconds(600),
        maxRetryAfter: Duration = .seconds(600),
        jitter: Double = 0.25
    ) {
        self.retries = retries
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.maxRetryAfter = maxRetryAfter
        self.jitter = jitter
    }

    package static func isTransient(_ error: FetchError) -> Bool {
        switch error {
        case .http(let status): transientStatuses.contains(status)
        case .timeout, .connectFailed, .dns, .reset, .truncatedBody: true
        case .tooLarge, .tooManyRedirects, .blockedProtocol, .tls, .blockedNetwork, .invalidRequest, .badResponse,
             .digestMismatch, .unsupportedEncoding, .badEncoding, .destination, .curl, .cancelled, .engineStopped: false
        }
    }

    /// Whether the failure is the URL's own for good, so the failure ledger keeps later runs off it for
    /// a while: a status that is not transient (but a proxy's 407, the job's credentials), a body too
    /// large, a redirect loop, a refused protocol, network or TLS, a bad request, a content coding not
    /// decoded or not decodable. Not a local trouble such as a full disk (`destination`), an unknown
    /// libcurl error, or a stop; nor a body that does not match its digest, which says the bytes were
    /// wrong this time, not that the URL is (a proxy, a CDN edge, a stale `url_file`): the next run
    /// tries those keys again.
    package static func isPermanent(_ error: FetchError) -> Bool {
        switch error {
        // A proxy's 407 says its credentials are wrong: the job's, not the URL's.
        case .http(let status): !transientStatuses.contains(status) && status != 407
        case .tooLarge, .tooManyRedirects, .blockedProtocol, .tls, .blockedNetwork, .invalidRequest, .badResponse,
             .unsupportedEncoding, .badEncoding: true
        case .timeout, .connectFailed, .dns, .reset, .truncatedBody, .digestMismatch, .destination, .curl, .cancelled,
             .engineStopped: false
        }
    }

    /// Whether to try again after attempt number `attempt` (1 for the first) failed with `error`.
    /// `randomUnit` is a number in 0..<1 that picks the jitter.
    package func decision(
        after error: FetchError, attempt: Int, retryAfter: String?, now: Date, randomUnit: Double
    ) -> Decision {
        guard attempt <= retries, Self.isTransient(error) else { return .giveUp }
        if let retryAfter, let wait = Self.delay(retryAfter: retryAfter, now: now) {
            return .retry(after: min(wait, maxRetryAfter))
        }
        return .retry(after: backoff(afterAttempt: attempt, randomUnit: randomUnit))
    }

    /// `baseDelay` doubled for each attempt after the first, plus jitter, at most `maxDelay`.
    package func backoff(afterAttempt attempt: Int, randomUnit: Double) -> Duration {
        let doublings = Double(min(max(attempt - 1, 0), 62))
        let nominal = min(baseDelay / .seconds(1) * pow(2, doublings), maxDelay / .seconds(1))
        let spread = nominal * jitter * min(max(randomUnit, 0), 1)
        return min(.seconds(nominal + spread), maxDelay)
    }

    /// The wait a `Retry-After` value asks for: delta-seconds, or an HTTP-date minus `now` (zero when
    /// past). Nil when the value is neither. Delta-seconds past `Int.max` ask for `Int.max` seconds, so
    /// the cap applies to them as to any long wait.
    package static func delay(retryAfter value: String, now: Date) -> Duration? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if !trimmed.isEmpty, trimmed.allSatisfy(\.isASCII), trimmed.allSatisfy(\.isNumber) {
            return .seconds(Int(trimmed) ?? .max)
        }
        let date = curl_getdate(trimmed, nil)
        guard date != -1 else { return nil }
        return .seconds(max(Double(date) - now.timeIntervalSince1970, 0))
    }
}
