import Foundation
import Testing
@testable import PrefetchKit

/// Requests through small local proxies, judged by the proxies' own logs and the server's hit counts.
@Suite(.timeLimit(.minutes(3)))
struct FetchProxyTests {
    /// The proxies, by the scheme a job names them with: what each logs for a request it carries.
    enum Kind: String, CaseIterable, CustomTestStringConvertible {
        case http, https, socks5, socks5h

        var testDescription: String { rawValue }

        func start(in folder: TemporaryDirectory, certificates: TestCertificates, upstream: String? = nil) throws -> ProxyServer {
            switch self {
            case .http: try ProxyServer(.http, in: folder, upstream: upstream)
            case .https: try ProxyServer(.http, in: folder, tls: (certificates.certificate, certificates.key), upstream: upstream)
            case .socks5, .socks5h: try ProxyServer(.socks5, in: folder, upstream: upstream)
            }
        }

        func logLine(port: Int, path: String) -> String {
            switch self {
            case .http, .https: "GET http://127.0.0.1:\(port)\(path)"
            case .socks5, .socks5h: "SOCKS5 127.0.0.1:\(port)"
            }
        }
    }

    /// Every request goes through the proxy, each on a connection of its own (the server closes them),
    /// so a tunnelling proxy sees each one too; with `no_proxy` naming the host, none does.
    @Test(arguments: Kind.allCases)
    func everyRequestGoesThroughTheProxyAndNoneWhenNoProxyMatches(kind: Kind) async throws {
        let harness = try FetchHarness()
        defer { harness.close() }
        let certificates = try TestCertificates(in: harness.folder)
        let proxy = try kind.start(in: harness.folder, certificates: certificates)
        defer { proxy.stop() }
        let paths = (1...3).map { "/close/\(kind.rawValue)-\($0)" }

        for path in paths {
            var request = harness.request(path)
            request.route.proxy = Proxy(url: proxy.url(scheme: kind.rawValue))
            request.route.caFile = certificates.caFile
            let result = await harness.engine.fetch(request)
            #expect(result.response?.kind == .ok, "\(path): \(String(describing: result.error))")
        }

        #expect(proxy.requests == paths.map { kind.logLine(port: harness.server.port, path: $0) })
        for path in paths {
            #expect(try harness.server.get("/hits/\(path.split(separator: "/").last!)").body == Data("1".utf8))
        }

        // When no_proxy names the host, the proxy sees nothing and the server still answers
        let direct = (1...2).map { "/close/\(kind.rawValue)-direct-\($0)" }
        for path in direct {
            var request = harness.request(path)
            request.route.proxy = Proxy(url: proxy.url(scheme: kind.rawValue))
            request.route.noProxy = ["example.com", "127.0.0.1"]
            let result = await harness.engine.fetch(request)
            #expect(result.response?.kind == .ok, "\(path): \(String(describing: result.error))")
        }
        #expect(proxy.requests.count == paths.count, "\(proxy.requests)")
        for path in direct {
            #expect(try harness.server.get("/hits/\(path.split(separator: "/").last!)").body == Data("1".utf8))
        }
    }

    /// An https URL through an http proxy is tunnelled with CONNECT, and TLS runs end to end with the
    /// server, which a private CA signed.
    @Test func anHTTPSTargetIsTunnelledWithConnect() async throws {
        let harness = try FetchHarness()
        defer { harness.close() }
        let certificates = try TestCertificates(in: harness.folder)
        let server = try FixtureServer(tls: (certificates.certificate, certificates.key))
        defer { server.stop() }
        let proxy = try ProxyServer(.http, in: harness.folder)
        defer { proxy.stop() }

        for name in ["a", "b"] {
            var request = FetchRequest(url: server.url("/close/\(name)"), destination: harness.destination(), timeout: .seconds(10),
                                       retry: RetryPolicy(retries: 0))
            request.route.proxy = Proxy(url: proxy.url())
            request.route.caFile = certificates.caFile
            let result = await harness.engine.fetch(request)
            #expect(result.response?.kind == .ok, "\(String(describing: result.error))")
        }

        #expect(proxy.requests == ["CONNECT 127.0.0.1:\(server.port)", "CONNECT 127.0.0.1:\(server.port)"])
    }

    /// A proxy that asks for credentials gets them from the route (a job's `password_env`); without
    /// them the proxy refuses, and the request fails.
    @Test(arguments: [ProxyServer.Kind.http, .socks5])
    func proxyCredentialsAreSent(kind: ProxyServer.Kind) async throws {
        let harness = try FetchHarness()
        defer { harness.close() }
        let proxy = try ProxyServer(kind, in: harness.folder, auth: "warm:s3cret-pass")
        defer { proxy.stop() }

        var without = harness.request("/close/anonymous-\(kind.rawValue)")
        without.route.proxy = Proxy(url: proxy.url())
        let refused = await harness.engine.fetch(without)
        var with = harness.request("/close/known-\(kind.rawValue)")
        with.route.proxy = Proxy(url: proxy.url(), username: "warm", password: "s3cret-pass")
        let carried = await harness.engine.fetch(with)

        // An HTTP proxy's 407 is the status; a SOCKS proxy's refusal a connection that could not be made
        #expect(refused.error?.reason == (kind == .http ? "http_status" : "connect_failed"), "\(String(describing: refused.error))")
        #expect(kind == .socks5 || refused.error?.httpStatus == 407)
        #expect(carried.response?.kind == .ok, "\(String(describing: carried.error))")
        #expect(try harness.server.get("/hits/anonymous-\(kind.rawValue)").body == Data("0".utf8))
        #expect(try harness.server.get("/hits/known-\(kind.rawValue)").body == Data("1".utf8))
        #expect(proxy.requests.contains { $0.hasPrefix("DENIED") }, "\(proxy.requests)")
        #expect(!String(describing: refused.error).contains("s3cret-pass"))
    }

    /// A proxy's refusal of a CONNECT tunnel (a 407 without credentials) is its status, as a plain-http
    /// request's 407 is, and is not retried as a broken connection would be.
    @Test func aRefusedTunnelIsTheProxysStatus() async throws {
        let harness = try FetchHarness()
        defer { harness.close() }
        let certificates = try TestCertificates(in: harness.folder)
        let server = try FixtureServer(tls: (certificates.certificate, certificates.key))
        defer { server.stop() }
        let proxy = try ProxyServer(.http, in: harness.folder, auth: "warm:s3cret-pass")
        defer { proxy.stop() }

        var request = FetchRequest(url: server.url("/close/tunnel"), destination: harness.destination(), timeout: .seconds(10),
                                   retry: RetryPolicy(retries: 2, baseDelay: .milliseconds(10)))
        request.route.proxy = Proxy(url: proxy.url())
        request.route.caFile = certificates.caFile
        let result = await harness.engine.fetch(request)

        #expect(result.error?.reason == "http_status", "\(String(describing: result.error))")
        #expect(result.error?.httpStatus == 407)
        #expect(result.attempts == 1)
        #expect(proxy.requests == ["DENIED CONNECT 127.0.0.1:\(server.port)"])
    }

    /// With `allow_private: false`, a proxy on a private address (here loopback) still carries
    /// requests for public addresses: the rules judge the target's address, not the proxy's. A target
    /// whose own address is private is refused before its request reaches the proxy.
    @Test func theNetworkRulesJudgeTheTargetNotTheProxy() async throws {
        let harness = try FetchHarness()
        defer { harness.close() }
        // The proxy hands every request to the local server, whatever address it was for
        let proxy = try ProxyServer(.http, in: harness.folder, upstream: "127.0.0.1:\(harness.server.port)")
        defer { proxy.stop() }
        var policy = NetworkPolicy()
        policy.allowPrivate = false

        var publicTarget = harness.request("/count/public")
        publicTarget.url = "http://203.0.113.7/count/public"
        publicTarget.route.proxy = Proxy(url: proxy.url())
        publicTarget.network = policy
        let carried = await harness.engine.fetch(publicTarget)

        var privateTarget = harness.request("/count/private")
        privateTarget.route.proxy = Proxy(url: proxy.url())
        privateTarget.network = policy
        let refused = await harness.engine.fetch(privateTarget)

        // An https target is refused before the proxy is asked for a tunnel to it
        var privateTunnel = harness.request("/count/private-tunnel")
        privateTunnel.url = "https://127.0.0.1:\(harness.server.port)/count/private-tunnel"
        privateTunnel.route.proxy = Proxy(url: proxy.url())
        privateTunnel.network = policy
        let refusedTunnel = await harness.engine.fetch(privateTunnel)
        #expect(refusedTunnel.error?.reason == "blocked_network", "\(String(describing: refusedTunnel.error))")

        #expect(carried.response?.kind == .ok, "\(String(describing: carried.error))")
        #expect(refused.error?.reason == "blocked_network")
        #expect(refused.error?.description.contains("address 127.0.0.1") == true, "\(String(describing: refused.error))")
        #expect(proxy.requests == ["GET http://203.0.113.7/count/public"])
        #expect(try harness.server.get("/hits/public").body == Data("1".utf8))
        #expect(try harness.server.get("/hits/private").body == Data("0".utf8))
    }
}
