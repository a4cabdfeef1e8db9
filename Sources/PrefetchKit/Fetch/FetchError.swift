internal import Glibc

/// Why a transfer failed. `reason` is a stable name for reports and the failure ledger; the description
/// is one plain sentence that keeps libcurl's own message and never shows a password.
package enum FetchError: Error, Sendable, Equatable {
    /// The server answered with a status that is neither 2xx nor 304.
    case http(status: Int)
    /// The transfer, the connection or the data flow took too long (total, connect or low-speed limit).
    case timeout(String)
    /// No connection could be made (refused, unreachable, or refused by a SOCKS proxy).
    case connectFailed(String)
    /// The host name did not resolve.
    case dns(String)
    /// The connection broke while sending or receiving (reset, closed before any answer).
    case reset(String)
    /// The body ended before its declared length.
    case truncatedBody(String)
    /// The body (declared or received) is larger than the request's `maxBytes`.
    case tooLarge(limit: Int64)
    /// More than five redirects.
    case tooManyRedirects(String)
    /// The URL or a redirect uses a scheme other than http or https.
    case blockedProtocol(String)
    /// TLS failed: handshake or certificate verification.
    case tls(String)
    /// The job's `network:` rules refused a host or address (first request or a redirect).
    case blockedNetwork(String)
    /// The request cannot be sent as given (malformed URL, a header with a line break).
    case invalidRequest(String)
    /// The server's answer is not one an HTTP client takes: headers over libcurl's limits (300 KB in
    /// all, 100 KB a line).
    case badResponse(String)
    /// The body is not the one its server's digest header or its `url_file` line gives.
    case digestMismatch(String)
    /// The body came in a content coding prefetchd does not decode.
    case unsupportedEncoding(String)
    /// The body's content coding cannot be undone: a corrupt or unfinished stream.
    case badEncoding(String)
    /// The destination file could not be created or written; `code` is the system's error number.
    case destination(path: String, code: Int32)
    /// Any other libcurl failure.
    case curl(code: Int, message: String)
    /// `cancel` or `cancelAll` stopped the transfer.
    case cancelled
    /// The engine shut down before the transfer finished.
    case engineStopped

    /// A stable name: `http_404`, `http_410`, `http_status`, `timeout`, `connect_failed`, `dns`, `reset`,
    /// `truncated_body`, `too_large`, `too_many_redirects`, `blocked_protocol`, `tls`, `blocked_network`, `invalid_request`,
    /// `bad_response`, `digest_mismatch`, `unsupported_encoding`, `bad_encoding`, `destination`, `curl_error`, `cancelled`, `engine_stopped`.
    package var reason: String {
        switch self {
        case .http(let status) where status == 404 || status == 410: "http_\(status)"
        case .http: "http_status"
        case .timeout: "timeout"
        case .connectFailed: "connect_failed"
        case .dns: "dns"
        case .reset: "reset"
        case .truncatedBody: "truncated_body"
        case .tooLarge: "too_large"
        case .tooManyRedirects: "too_many_redirects"
        case .blockedProtocol: "blocked_protocol"
        case .tls: "tls"
        case .blockedNetwork: "blocked_network"
        case .invalidRequest: "invalid_request"
        case .badResponse: "bad_response"
        case .digestMismatch: "digest_mismatch"
        case .unsupportedEncoding: "unsupported_encoding"
        case .badEncoding: "bad_encoding"
        case .destination: "destination"
        case .curl: "curl_error"
        case .cancelled: "cancelled"
        case .engineStopped: "engine_stopped"
        }
    }

    /// The HTTP status behind the failure, when the server answered.
    package var httpStatus: Int? {
        if case .http(let status) = self { status } else { nil }
    }
}

extension FetchError: CustomStringConvertible {
    package var description: String {
        switch self {
        case .http(let status): "The server answered with HTTP status \(status)."
        case .timeout(let message): "The transfer timed out: \(message)."
        case .connectFailed(let message): "The connection could not be made: \(message)."
        case .dns(let message): "The host name did not resolve: \(message)."
        case .reset(let message): "The connection broke during the transfer: \(message)."
        case .truncatedBody(let message): "The body ended before its declared length: \(message)."
        case .tooLarge(let limit): "The body is larger than the limit of \(limit) bytes."
        case .tooManyRedirects(let message): "The server redirected too many times: \(message)."
        case .blockedProtocol(let message): "Only http and https are allowed: \(message)."
        case .tls(let message): "TLS failed: \(message)."
        case .blockedNetwork(let message): "The request was refused by the job's network rules: \(message)."
        case .invalidRequest(let message): "The request is invalid: \(message)."
        case .badResponse(let message): "The server's response cannot be read: \(message)."
        case .digestMismatch(let message): "The body does not match its digest: \(message)."
        case .unsupportedEncoding(let message): "The body cannot be decoded: \(message)."
        case .badEncoding(let message): "The body cannot be decoded: \(message)."
        case .destination(let path, let code): "The body cannot be written to \(path): \(String(cString: strerror(code)))."
        case .curl(let code, let message): "libcurl failed with code \(code): \(message)."
        case .cancelled: "The transfer was cancelled."
        case .engineStopped: "The fetch engine stopped before the transfer finished."
        }
    }
}
