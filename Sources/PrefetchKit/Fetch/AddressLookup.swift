internal import Glibc
import Synchronization

/// The addresses a host name resolves to here, for the network rules when a proxy makes the
/// connection (and so the address libcurl reports is the proxy's). Answers are kept for a minute, as
/// libcurl keeps its own, so a run through a proxy asks the resolver about once a minute per host. The
/// lookup blocks its caller: it runs on the network thread, only for requests through a proxy under
/// `allow_private: false`.
enum AddressLookup {
    private struct Answer {
        let addresses: [String]
        let expires: ContinuousClock.Instant
    }

    private static let answers = Mutex<[String: Answer]>([:])
    private static let lifetime = Duration.seconds(60)

    /// Every address of `host` (an address literal is its own), IPv4 and IPv6; empty when it does not
    /// resolve.
    static func addresses(of host: String) -> [String] {
        let name = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        let now = ContinuousClock.now
        if let answer = answers.withLock({ $0[name] }), answer.expires > now {
            return answer.addresses
        }
        let found = resolve(name)
        answers.withLock { $0[name] = Answer(addresses: found, expires: now + lifetime) }
        return found
    }

    private static func resolve(_ name: String) -> [String] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(name, nil, &hints, &list) == 0 else { return [] }
        defer { freeaddrinfo(list) }
        var addresses: [String] = []
        var entry = list
        while let current = entry {
            if let text = numeric(current.pointee), !addresses.contains(text) { addresses.append(text) }
            entry = current.pointee.ai_next
        }
        return addresses
    }

    private static func numeric(_ info: addrinfo) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        guard getnameinfo(info.ai_addr, info.ai_addrlen, &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST) == 0 else {
            return nil
        }
        return String(cString: buffer)
    }
}
