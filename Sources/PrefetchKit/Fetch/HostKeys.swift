import Foundation

/// The host of each URL's authority (what follows `scheme://` up to the path), worked out once per
/// authority: parsing a whole URL with `URLComponents`, whose host goes through an IDNA mapping,
/// cost about a microsecond a request, and a run's URLs share a handful of authorities.
final class HostKeys: Sendable {
    static let shared = HostKeys()

    private let known = Locked<[String: String]>([:])
    /// Authorities kept at most; past it the table starts again (a job of that many hosts is rare,
    /// and each is parsed again at worst).
    static let limit = 4096

    /// The URL's host in lower case, as `URLComponents` reads it from the URL's authority; "" when it has none.
    func hostKey(of url: String) -> String {
        guard let authority = Self.authority(of: url) else { return Self.parsed(url) }
        if let host = known.withLock({ $0[authority] }) { return host }
        // From the authority alone, so that every URL of it counts against one host, whatever its path.
        let host = Self.parsed(authority)
        known.withLock { known in
            if known.count >= Self.limit { known.removeAll(keepingCapacity: true) }
            known[authority] = host
        }
        return host
    }

    /// The scheme and authority: everything up to the first `/`, `?` or `#` after `://`; nil for a
    /// URL without `://`.
    static func authority(of url: String) -> String? {
        let bytes = url.utf8
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")),
              bytes[colon...].starts(with: "://".utf8)
        else { return nil }
        let start = bytes.index(colon, offsetBy: 3)
        let end = bytes[start...].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
        return String(url[..<(end ?? bytes.endIndex)])
    }

    private static func parsed(_ url: String) -> String {
        URLComponents(string: url)?.host?.lowercased() ?? ""
    }
}
