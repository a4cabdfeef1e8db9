internal import Glibc

/// The job's `network:` rules, checked by libcurl's pre-request callback on every request of a
/// transfer, redirects included, once the connection is made: the host of the URL about to be
/// requested against `allow_hosts` / `deny_hosts`, and the address actually connected to against
/// `allow_private` (so a package name that resolves to 127.0.0.1 is refused too).
package struct NetworkPolicy: Sendable, Equatable {
    package var allowPrivate = true
    /// Host patterns: `cdn.example.com` exactly, or `*.example.com` for any name below example.com.
    /// Empty: any host.
    package var allowHosts: [String] = []
    package var denyHosts: [String] = []

    /// Whether this policy can refuse anything at all (if not, no callback is installed).
    var restricts: Bool { !allowPrivate || !allowHosts.isEmpty || !denyHosts.isEmpty }

    /// Why a request to `host` over a connection to `address` is refused; nil when allowed. The host
    /// and the patterns are compared in one spelling (`HostName`).
    package func refusal(host: String, address: String) -> String? {
        if (!denyHosts.isEmpty || !allowHosts.isEmpty), HostName.normalized(host) == nil {
            return "host \(oneLine(host)) is not a host name network.allow_hosts and deny_hosts can judge"
        }
        let host = HostName.normalized(host) ?? host
        if denyHosts.contains(where: { Self.matches(host, $0) }) {
            return "host \(host) is in network.deny_hosts"
        }
        if !allowHosts.isEmpty && !allowHosts.contains(where: { Self.matches(host, $0) }) {
            return "host \(host) is not in network.allow_hosts"
        }
        if !allowPrivate && Self.isPrivate(address) {
            return "address \(address) of \(host) is private, loopback or link-local (network.allow_private is false)"
        }
        return nil
    }

    /// Whether the normalized `host` matches `pattern` (normalized here): the name itself, or for
    /// `*.name` any name below it.
    static func matches(_ host: String, _ pattern: String) -> Bool {
        if pattern.hasPrefix("*.") {
            guard let parent = HostName.normalized(String(pattern.dropFirst(2))) else { return false }
            return host.hasSuffix("." + parent)
        }
        return host == HostName.normalized(pattern)
    }

    /// Loopback, private, link-local, carrier-grade NAT, unspecified and unique-local addresses.
    static func isPrivate(_ address: String) -> Bool {
        var v4 = in_addr()
        if inet_pton(AF_INET, address, &v4) == 1 {
            let bytes = withUnsafeBytes(of: v4.s_addr) { Array($0) }
            return isPrivateV4(bytes)
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, address, &v6) == 1 else { return true }
        let bytes = withUnsafeBytes(of: v6) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
            return isPrivateV4(Array(bytes[12..<16]))
        }
        let unspecifiedOrLoopback = bytes[0..<15].allSatisfy { $0 == 0 } && bytes[15] <= 1
        let uniqueLocal = bytes[0] & 0xFE == 0xFC
        let linkLocal = bytes[0] == 0xFE && bytes[1] & 0xC0 == 0x80
        return unspecifiedOrLoopback || uniqueLocal || linkLocal
    }

    private static func isPrivateV4(_ b: [UInt8]) -> Bool {
        b[0] == 0 || b[0] == 10 || b[0] == 127
            || (b[0] == 172 && (16...31).contains(b[1]))
            || (b[0] == 192 && b[1] == 168)
            || (b[0] == 169 && b[1] == 254)
            || (b[0] == 100 && (64...127).contains(b[1]))
    }
}
