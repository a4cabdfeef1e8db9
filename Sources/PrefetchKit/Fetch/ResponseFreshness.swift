internal import CCurl
import Foundation

/// What a response says of its own freshness, as RFC 9111 has a shared cache read it, for
/// `refresh: http`: `Cache-Control: no-store` (not to be stored at all), `no-cache` (stale at once:
/// revalidated before every use), `s-maxage` over `max-age` (seconds from now, less the `Age` it
/// already had), else `Expires` (measured against the response's own `Date`, so that a server
/// clock that is off does not matter; an `Expires` that is not a date is in the past).
package struct ResponseFreshness: Sendable, Equatable {
    /// `Cache-Control: no-store`.
    package var noStore = false
    /// Fresh until then; nil when the response says nothing of its freshness.
    package var freshUntil: Date?

    package static func of(_ headers: ResponseHeaders, receivedAt now: Date) -> ResponseFreshness {
        var freshness = ResponseFreshness()
        var maxAge: Double?
        var sharedMaxAge: Double?
        var noCache = false
        for directive in (headers.cacheControl ?? "").split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            let name = parts.first?.lowercased() ?? ""
            let value = parts.count > 1 ? Double(parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))) : nil
            switch name {
            case "no-store": freshness.noStore = true
            case "no-cache": noCache = true
            case "max-age": maxAge = value.map { max($0, 0) } ?? 0
            case "s-maxage": sharedMaxAge = value.map { max($0, 0) } ?? 0
            default: break
            }
        }
        let age = headers.age.flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }.map { max($0, 0) } ?? 0
        if noCache {
            freshness.freshUntil = now
        } else if let lifetime = sharedMaxAge ?? maxAge {
            freshness.freshUntil = now.addingTimeInterval(lifetime - age)
        } else if let expires = headers.expires {
            let expiry = Self.date(expires)
            if let expiry, let sent = headers.date.flatMap(Self.date) {
                freshness.freshUntil = now.addingTimeInterval(expiry.timeIntervalSince(sent) - age)
            } else {
                freshness.freshUntil = expiry ?? now
            }
        }
        return freshness
    }

    /// An HTTP-date, read by libcurl's own parser.
    private static func date(_ value: String) -> Date? {
        let seconds = curl_getdate(value.trimmingCharacters(in: .whitespaces), nil)
        return seconds == -1 ? nil : Date(timeIntervalSince1970: Double(seconds))
    }
}
