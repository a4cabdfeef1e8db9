internal import CCurl

extension FetchError {
    /// The error for a failed transfer's libcurl code, keeping libcurl's message.
    init(curlCode code: CURLcode, message: String) {
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            self = .timeout(message)
        // CURLE_PROXY: a SOCKS proxy refused the credentials or the connection it was asked for.
        case CURLE_COULDNT_CONNECT, CURLE_PROXY:
            self = .connectFailed(message)
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            self = .dns(message)
        // A chunk size that is not hex is the server's malformed body, not a broken connection.
        case CURLE_RECV_ERROR where message.contains("chunked-encoding"):
            self = .badResponse(message)
        case CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING, CURLE_HTTP2, CURLE_HTTP2_STREAM:
            self = .reset(message)
        case CURLE_PARTIAL_FILE:
            self = .truncatedBody(message)
        case CURLE_TOO_MANY_REDIRECTS:
            self = .tooManyRedirects(message)
        // libcurl gives this code to a scheme it will not follow ("Protocol "ftp" not supported ...") and
        // to a response that is not HTTP it can read (a garbled status line, HTTP/0.9): the server's.
        case CURLE_UNSUPPORTED_PROTOCOL where !message.hasPrefix("Protocol"):
            self = .badResponse(message)
        case CURLE_UNSUPPORTED_PROTOCOL:
            self = .blockedProtocol(message)
        // A header line libcurl cannot read (a NUL byte, no colon).
        case CURLE_WEIRD_SERVER_REPLY:
            self = .badResponse(message)
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
             CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH,
             CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CRL_BADFILE:
            self = .tls(message)
        case CURLE_URL_MALFORMAT:
            self = .invalidRequest(message)
        default:
            self = .curl(code: Int(code.rawValue), message: message)
        }
    }
}
