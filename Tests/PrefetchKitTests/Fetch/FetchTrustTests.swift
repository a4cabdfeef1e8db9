import Foundation
import Testing
@testable import PrefetchKit

/// `ca_file` and `ca_path` against an HTTPS server whose certificate a private CA, made by the test,
/// signed; and `connect_to`, judged by which of two servers saw the request.
@Suite(.timeLimit(.minutes(3)))
struct FetchTrustTests {
    @Test func aPrivateCAIsTrustedOnlyWhenGiven() async throws {
        let harness = try FetchHarness()
        defer { harness.close() }
        let certificates = try TestCertificates(in: harness.folder)
        let server = try FixtureServer(tls: (certificates.certificate, certificates.key))
        defer { server.stop() }
        func request(_ name: String) -> FetchRequest {
            FetchRequest(url: server.url("/ok/\(name)"), destination: harness.destination(), timeout: .seconds(10),
                         retry: RetryPolicy(retries: 0))
        }

        let untrusted = await harness.engine.fetch(request("untrusted"))
        var byFile = request("by-file")
        byFile.route.caFile = certificates.caFile
        let trustedByFile = await harness.engine.fetch(byFile)
        var byFolder = request("by-folder")
        byFolder.route.caPath = certificates.caFolder
        let trustedByFolder = await harness.engine.fetch(byFolder)

        // Without the CA the handshake fails, and the message keeps libcurl's (OpenSSL's) reason
        #expect(untrusted.error?.reason == "tls")
        let message = String(describing: untrusted.error)
        #expect(message.contains("SSL certificate problem") && message.contains("certificate"), "\(message)")
        #expect(trustedByFile.response?.kind == .ok, "\(String(describing: trustedByFile.error))")
        #expect(trustedByFolder.response?.kind == .ok, "\(String(describing: trustedByFolder.error))")
        #expect(try Data(contentsOf: URL(fileURLWithPath: byFile.destination)) == (try harness.server.get("/ok/reference").body))
    }

    /// A request for one host goes to another port; the URL's host stays the Host header's.
    @Test func connectToSendsARequestForOneHostToAnotherPort() async throws {
        let harness = try FetchHarness()
        defer { harness.close() }
        let edge = try FixtureServer()
        defer { edge.stop() }
        let origin = harness.server
        func request(_ name: String) -> FetchRequest {
            var request = harness.request("/count/\(name)")
            request.url = "http://cdn.example.test:\(origin.port)/count/\(name)"
            request.route.connectTo = [ConnectTarget(host: "cdn.example.test", toHost: "127.0.0.1", toPort: edge.port)]
            return request
        }

        let result = await harness.engine.fetch(request("edge"))
        var echo = request("echo")
        echo.url = "http://cdn.example.test:\(origin.port)/echo-headers"
        let echoed = await harness.engine.fetch(echo)

        #expect(result.response?.kind == .ok, "\(String(describing: result.error))")
        #expect(try edge.get("/hits/edge").body == Data("1".utf8))
        #expect(try origin.get("/hits/edge").body == Data("0".utf8))
        #expect(echoed.response?.kind == .ok)
        let headers = try String(contentsOfFile: echo.destination, encoding: .utf8)
        #expect(headers.contains("Host: cdn.example.test:\(origin.port)"), "\(headers)")

        // The network rules judge the address connected to: the edge's, on loopback
        var refused = request("refused")
        refused.network.allowPrivate = false
        let blocked = await harness.engine.fetch(refused)
        #expect(blocked.error?.reason == "blocked_network")
        #expect(blocked.error?.description.contains("address 127.0.0.1 of cdn.example.test") == true, "\(String(describing: blocked.error))")
        #expect(try edge.get("/hits/refused").body == Data("0".utf8))
    }

    /// An entry's host matches the URL's in any spelling of the name: letters' case, a trailing dot,
    /// an international name in any of its forms.
    @Test func connectToMatchesTheHostWhateverItsSpelling() async throws {
        let harness = try FetchHarness()
        defer { harness.close() }
        let edge = try FixtureServer()
        defer { edge.stop() }
        // (The engine takes URLs as a run hands them over: an international host already as its A-label.)
        let spellings = [("Bücher.TEST.", "xn--bcher-kva.test"), ("bücher\u{FF0E}test", "xn--bcher-kva.test"), ("dot.test.", "dot.test")]
        for (index, (entry, urlHost)) in spellings.enumerated() {
            var request = harness.request("/count/spelling-\(index)")
            request.url = "http://\(urlHost):\(harness.server.port)/count/spelling-\(index)"
            request.route.connectTo = [ConnectTarget(host: entry, toHost: "127.0.0.1", toPort: edge.port)]
            let result = await harness.engine.fetch(request)
            #expect(result.response?.kind == .ok, "\(entry) for \(urlHost): \(String(describing: result.error))")
            #expect(try edge.get("/hits/spelling-\(index)").body == Data("1".utf8), "\(entry) for \(urlHost)")
        }
    }

    /// An entry for another port leaves the URL's own connection alone.
    @Test func connectToWithAPortMatchesThatPortOnly() async throws {
        let harness = try FetchHarness()
        defer { harness.close() }
        let edge = try FixtureServer()
        defer { edge.stop() }
        var request = harness.request("/count/other-port")
        request.route.connectTo = [ConnectTarget(host: "127.0.0.1", port: harness.server.port + 1, toHost: "127.0.0.1", toPort: edge.port)]

        let result = await harness.engine.fetch(request)

        #expect(result.response?.kind == .ok)
        #expect(try harness.server.get("/hits/other-port").body == Data("1".utf8))
        #expect(try edge.get("/hits/other-port").body == Data("0".utf8))
    }
}
