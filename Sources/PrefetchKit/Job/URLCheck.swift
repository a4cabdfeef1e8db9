internal import CCurl
internal import Glibc

/// The check every job URL passes: absolute `http` or `https`, a host, no spaces or control bytes, and
/// then libcurl's own URL parser, the one a transfer uses, so that what a job file accepts a run can
/// fetch (a port over 65535 or an unencoded `@` in a password would otherwise fail only in the run, as
/// `invalid_request`, and be banned by the failure ledger).
///
/// Runs once per URL file line, so the long scans are done by libc's `strcspn`.
package enum URLCheck {
    /// Every byte a URL may not contain: controls, space and DEL.
    private static let forbidden = String(decoding: Array(1...0x20) + [0x7F], as: UTF8.self)

    /// Why `url` is not usable, or nil when it is. The message shows the URL with its password hidden.
    package static func problem(_ url: String) -> String? {
        let length = url.utf8.count
        return url.withCString { text -> String? in
            let https = strncasecmp(text, "https://", 8) == 0
            guard https || strncasecmp(text, "http://", 7) == 0 else {
                return "`\(redactedRefused(url))` is not an absolute http or https URL"
            }
            let clean = strcspn(text, forbidden)
            guard clean == length else {
                return "`\(redactedRefused(url))` contains a space or control character at character \(clean + 1)"
            }
            let authority = text + (https ? 8 : 7)
            let authorityLength = strcspn(authority, "/?#")
            var hostStart = authorityLength
            while hostStart > 0, authority[hostStart - 1] != CChar(UInt8(ascii: "@")) {
                hostStart -= 1
            }
            guard hostStart < authorityLength, authority[hostStart] != CChar(UInt8(ascii: ":")) else {
                return "`\(redactedRefused(url))` has no host"
            }
            let parsed = curl_url()
            defer { curl_url_cleanup(parsed) }
            let code = curl_url_set(parsed, CURLUPART_URL, text, 0)
            guard code == CURLUE_OK else {
                return "`\(redactedRefused(url))` is not a URL libcurl can fetch: \(String(cString: curl_url_strerror(code)))"
            }
            return nil
        }
    }
}
