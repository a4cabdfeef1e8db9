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
    guard url.utf8.contains(UInt8(ascii: "@")) else { return nil }
    let authorityStart = (url.range(of: "://") ?? url.range(of: "//"))?.upperBound ?? url.startIndex
    let authorityEnd = url[authorityStart...].firstIndex(where: { "/?#".contains($0) }) ?? url.endIndex
    guard let at = url[authorityStart..<authorityEnd].lastIndex(of: "@"),
          let colon = url[authorityStart..<at].firstIndex(of: ":")
    else { return nil }
    return url.index(after: colon)..<at
}

/// The secrets a request carries (its credentials' password and any password in its URL), for scrubbing
/// messages that come from libcurl.
func secrets(of request: FetchRequest) -> [String] {
    var found: [String] = []
    if let password = request.credentials?.password {
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
