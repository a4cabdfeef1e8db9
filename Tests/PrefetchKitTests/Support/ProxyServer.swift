import Foundation

/// One of Tests/Fixtures/proxies.py's small proxies on 127.0.0.1, until `stop()` or deinit, with the
/// log of every request it was asked to carry.
final class ProxyServer {
    enum Kind: String {
        case http, socks5
    }

    let port: Int
    let kind: Kind
    let scheme: String
    private let process: Process
    private let log: URL

    /// `tls` makes an http proxy an https one; `auth` (`user:password`) makes it ask for credentials;
    /// `upstream` (`host:port`) is where it sends everything, whatever the target.
    init(_ kind: Kind, in folder: TemporaryDirectory, tls: (certificate: String, key: String)? = nil, auth: String? = nil,
         upstream: String? = nil) throws {
        log = folder.file("proxy-\(kind.rawValue)-\(UUID().uuidString).log")
        var arguments = [kind.rawValue, log.path]
        if let auth { arguments += ["--auth", auth] }
        if let upstream { arguments += ["--upstream", upstream] }
        if let tls { arguments += ["--tls", tls.certificate, tls.key] }
        (process, port) = try FixtureServer.start("proxies.py", arguments: arguments)
        self.kind = kind
        scheme = kind == .http && tls != nil ? "https" : kind.rawValue
    }

    deinit {
        stop()
    }

    /// The requests the proxy carried (or refused), one line each: `GET http://...`, `CONNECT host:port`,
    /// `SOCKS5 host:port`, `DENIED ...`.
    var requests: [String] {
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init)
    }

    /// The proxy's URL, `scheme://127.0.0.1:port` (`socks5h` asks the proxy to resolve names).
    func url(scheme: String? = nil) -> String {
        "\(scheme ?? self.scheme)://127.0.0.1:\(port)"
    }

    func stop() {
        FixtureServer.stop(process)
    }
}
