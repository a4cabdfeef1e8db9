/// Which way a request goes: through a proxy or not, to which address (`connect_to`), trusting which
/// certificate authorities. libcurl's own proxy environment variables (`http_proxy`, `HTTPS_PROXY`,
/// `ALL_PROXY`, `NO_PROXY`, ...) are never read: a request goes through a proxy only when its route
/// names one.
package struct FetchRoute: Sendable, Equatable {
    package var proxy: Proxy?
    /// Host names, domains and addresses reached without the proxy (libcurl's CURLOPT_NOPROXY).
    package var noProxy: [String] = []
    /// Requests for a host (and port) connect to another host and port instead.
    package var connectTo: [ConnectTarget] = []
    /// A PEM file of certificate authorities trusted beside the system's, for the server and an
    /// https proxy.
    package var caFile: String?
    /// A folder of hashed certificate files (`openssl rehash`), trusted instead of the system's folder.
    package var caPath: String?

    package init() {}

    /// The host whose address the network rules check when a proxy makes the connection: the one
    /// `connect_to` sends `host` on `port` (the URL's, or its scheme's default) to, else `host` itself.
    func connectedHost(for host: String, port: Int) -> String {
        connectTo.first { $0.matches(host: host, port: port) }?.toHost ?? host
    }
}

/// An http, https or socks5 proxy. `url` is `scheme://host:port` with no credentials in it.
package struct Proxy: Sendable, Equatable {
    package var url: String
    package var username: String?
    package var password: String?

    package init(url: String, username: String? = nil, password: String? = nil) {
        self.url = url
        self.username = username
        self.password = password
    }
}

extension Proxy: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    package var description: String { username.map { "\(url) as \($0):***" } ?? url }
    package var debugDescription: String { description }
    package var customMirror: Mirror { Mirror(self, children: ["url": url, "username": username as Any, "password": "***"]) }
}

/// One `connect_to` entry: requests for `host` (on `port`, or any port when nil) connect to `toHost`
/// on `toPort` (the URL's port when nil). The URL, the Host header and TLS's server name stay the
/// URL's.
package struct ConnectTarget: Sendable, Equatable {
    package var host: String
    package var port: Int?
    package var toHost: String
    package var toPort: Int?

    package init(host: String, port: Int? = nil, toHost: String, toPort: Int? = nil) {
        self.host = host
        self.port = port
        self.toHost = toHost
        self.toPort = toPort
    }

    /// libcurl's `HOST:PORT:CONNECT-TO-HOST:CONNECT-TO-PORT`, an empty part meaning any (or the same).
    /// HOST in the one spelling `matches` compares: libcurl compares it, case aside, with the URL's
    /// host as it resolves it (an international name's A-label, no trailing dot), so `Bücher.test.`
    /// as given would match no URL.
    var curlEntry: String {
        let host = HostName.normalized(host) ?? host
        return "\(Self.bracketed(host)):\(port.map(String.init) ?? ""):\(Self.bracketed(toHost)):\(toPort.map(String.init) ?? "")"
    }

    func matches(host other: String, port otherPort: Int) -> Bool {
        let spelling = { (name: String) in HostName.normalized(name) ?? name.lowercased() }
        return spelling(other) == spelling(host) && (port == nil || port == otherPort)
    }

    private static func bracketed(_ host: String) -> String {
        host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
    }
}
