import Foundation

/// What of a URL is shown: the password of its `user:password@` part, and the values of the query
/// parameters a set names in `redact_params`, as `***`. What is keyed is another thing: a cache key is
/// made from `keyed(_:)`, which hides the password only, so two URLs that differ in a token stay two
/// entries.
package enum URLRedaction {
    /// The signature, token and key parameters of the common CDNs and object stores (CloudFront,
    /// S3 and GCS signed URLs, Akamai and Fastly tokens, API keys), `redact_params`'s default.
    package static let commonSecrets = [
        "sig", "signature", "token", "access_token", "auth", "key", "api_key", "apikey", "hmac", "hdnts",
        "x-amz-signature", "x-amz-credential", "x-amz-security-token", "x-goog-signature", "x-goog-credential",
        "policy", "key-pair-id",
    ]

    /// The URL as it is shown: password and the values of `params` hidden.
    package static func shown(_ url: String, hiding params: [String]) -> String {
        hideParams(params, in: redacted(url))
    }

    /// As `shown(_:hiding:)`, for a URL `keyed(_:)` already made.
    package static func shown(keyed url: String, hiding params: [String]) -> String {
        hideParams(params, in: url)
    }

    /// The URL a cache key is made from: the password hidden, every parameter kept.
    package static func keyed(_ url: String) -> String {
        redacted(url)
    }

    /// The values of `params` in `url`'s query, for scrubbing messages that come from libcurl.
    static func values(of params: [String], in url: String) -> [String] {
        queryPairs(of: url).compactMap { pair in
            guard let equals = pair.firstIndex(of: "="), isHidden(pair[..<equals], params) else { return nil }
            let value = pair[pair.index(after: equals)...]
            return value.isEmpty ? nil : String(value)
        }
    }

    private static func hideParams(_ params: [String], in url: String) -> String {
        // A byte scan: this runs for every URL of a plan, and most have no query.
        guard !params.isEmpty, let question = url.firstIndex(ofASCII: UInt8(ascii: "?")) else { return url }
        let query = url[url.index(after: question)...]
        let end = query.firstIndex(of: "#") ?? query.endIndex
        let pairs = query[..<end].split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            guard let equals = pair.firstIndex(of: "="), isHidden(pair[..<equals], params),
                  pair.index(after: equals) < pair.endIndex else { return String(pair) }
            return pair[...equals] + "***"
        }
        return url[...question] + pairs.joined(separator: "&") + query[end...]
    }

    private static func queryPairs(of url: String) -> [Substring] {
        guard let question = url.firstIndex(of: "?") else { return [] }
        let query = url[url.index(after: question)...]
        return query[..<(query.firstIndex(of: "#") ?? query.endIndex)].split(separator: "&")
    }

    /// `params` are in lower case (as `redact_params` is read); a name matches in any case.
    private static func isHidden(_ name: Substring, _ params: [String]) -> Bool {
        params.contains((String(name).removingPercentEncoding ?? String(name)).lowercased())
    }
}

/// The URL with the password of any `user:password@` part replaced by `***`, for every message and log line.
///
/// `https://shop:secret@cdn.example.com/a.jpg` becomes `https://shop:***@cdn.example.com/a.jpg`.
/// A URL without a password comes back unchanged.
package func redacted(_ url: String) -> String {
    guard let password = passwordRange(in: url) else { return url }
    return url.replacingCharacters(in: password, with: "***")
}

/// A URL refused as malformed, for the message that refuses it: a `/`, `?` or `#` in its password may
/// end its authority early, so everything from the first `:` after `//` to the last `@` is hidden
/// (also a port and path before an `@` in the path: more than needed, never less), and control
/// characters are shown as `\u{..}` escapes (`oneLine`).
func redactedRefused(_ url: String) -> String {
    var shown = url
    if url.utf8.contains(UInt8(ascii: "@")) {
        let start = (url.range(of: "://") ?? url.range(of: "//"))?.upperBound ?? url.startIndex
        if let at = url[start...].lastIndex(of: "@"), let colon = url[start..<at].firstIndex(of: ":") {
            shown = url.replacingCharacters(in: url.index(after: colon)..<at, with: "***")
        }
    }
    return oneLine(shown)
}

/// Where the password of the URL's `user:password@` part is, if it has one. For text that is not
/// quite a URL (a job file's mistake, such as `http//user:secret@host/`), the authority is taken to
/// start after the first `//`, or at the start: a message never shows more than the user name.
private func passwordRange(in url: String) -> Range<String.Index>? {
    // Nearly every URL has no `@` at all: one byte scan settles it (this runs for every log line).
    guard url.containsASCII(UInt8(ascii: "@")) else { return nil }
    let authorityStart = (url.range(of: "://") ?? url.range(of: "//"))?.upperBound ?? url.startIndex
    let authorityEnd = url[authorityStart...].firstIndex(where: { "/?#".contains($0) }) ?? url.endIndex
    guard let at = url[authorityStart..<authorityEnd].lastIndex(of: "@"),
          let colon = url[authorityStart..<at].firstIndex(of: ":")
    else { return nil }
    return url.index(after: colon)..<at
}

/// The secrets a request carries (its credentials' password, any password in its URL and the values
/// of its hidden parameters), for scrubbing messages that come from libcurl.
func secrets(of request: FetchRequest) -> [String] {
    var found = URLRedaction.values(of: request.hiddenParams, in: request.url)
    if let password = request.credentials?.password {
        found.append(password)
    }
    if let password = request.route.proxy?.password {
        found.append(password)
    }
    if let range = passwordRange(in: request.url) {
        found.append(String(request.url[range]))
    }
    return found.filter { !$0.isEmpty }
}

/// `message` with every secret replaced by `***`.
func scrubbed(_ message: String, hiding secrets: [String]) -> String {
    secrets.reduce(message) { $0.replacingOccurrences(of: $1, with: "***") }
}
