import Foundation
import Testing
@testable import PrefetchKit

@Suite(.timeLimit(.minutes(3))) struct NetworkPolicyTests {
    @Test(arguments: ["127.0.0.1", "127.8.9.10", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1",
                      "169.254.169.254", "100.64.0.1", "0.0.0.0", "::1", "::", "fe80::1", "fd00::5", "::ffff:127.0.0.1"])
    func privateAddressesAreRecognised(address: String) {
        #expect(NetworkPolicy.isPrivate(address))
    }

    @Test(arguments: ["8.8.8.8", "172.32.0.1", "192.169.0.1", "100.128.0.1", "2606:4700::1111", "::ffff:1.1.1.1"])
    func publicAddressesAreNot(address: String) {
        #expect(!NetworkPolicy.isPrivate(address))
    }

    @Test func hostPatternsMatchExactlyOrBelowAWildcard() {
        let policy = NetworkPolicy(allowHosts: ["cdn.example.com", "*.img.example.net"], denyHosts: ["bad.img.example.net"])
        #expect(policy.refusal(host: "CDN.example.com", address: "8.8.8.8") == nil)
        #expect(policy.refusal(host: "a.img.example.net", address: "8.8.8.8") == nil)
        #expect(policy.refusal(host: "img.example.net", address: "8.8.8.8") != nil)
        #expect(policy.refusal(host: "example.com", address: "8.8.8.8") != nil)
        #expect(policy.refusal(host: "bad.img.example.net", address: "8.8.8.8")?.contains("deny_hosts") == true)
        #expect(NetworkPolicy(allowPrivate: false).refusal(host: "x", address: "10.0.0.1")?.contains("allow_private") == true)
    }

    @Test func aPrivateAddressIsRefusedOnTheConnectionItself() async throws {
        let harness = try FetchHarness()
        defer { harness.close() }
        var request = harness.request("/count/private")
        request.network = NetworkPolicy(allowPrivate: false)

        let result = await harness.engine.fetch(request)

        #expect(result.error?.reason == "blocked_network")
        #expect(result.error?.description.contains("127.0.0.1") == true)
        #expect(!harness.exists(request.destination))
        #expect(try await harness.text("/hits/private") == "0", "the request must not reach the server")
    }

    /// Every spelling of a denied name is denied: a trailing dot, capitals, an international name
    /// as Unicode or as its A-label, full stops of other scripts; patterns are read the same way.
    @Test(arguments: [
        "blocked.test.", "BLOCKED.TEST", "Blocked.Test.", "a.blocked.test.", "A.BLOCKED.TEST.",
        "bücher.test", "BÜCHER.test.", "xn--bcher-kva.test", "XN--BCHER-KVA.TEST.", "bücher．test", "bücher。test",
    ])
    func everySpellingOfADeniedHostIsDenied(_ host: String) {
        let policy = NetworkPolicy(denyHosts: ["blocked.test", "*.blocked.test", "Bücher.Test."])
        #expect(policy.refusal(host: host, address: "8.8.8.8")?.contains("deny_hosts") == true, "\(host)")
    }

    @Test func allowHostsReadEverySpellingAlike() {
        let policy = NetworkPolicy(allowHosts: ["cdn.example.com.", "*.bücher.test"])
        for host in ["CDN.example.com.", "cdn.example.com", "img.xn--bcher-kva.test.", "IMG.BÜCHER.TEST"] {
            #expect(policy.refusal(host: host, address: "8.8.8.8") == nil, "\(host)")
        }
        for host in ["cdn.example.com.evil.test", "xn--bcher-kva.test", "notbücher.test"] {
            #expect(policy.refusal(host: host, address: "8.8.8.8")?.contains("allow_hosts") == true, "\(host)")
        }
        // A name libidn2 cannot map is judged by no rule, so it is refused.
        #expect(policy.refusal(host: "a\u{FFFD}b.test", address: "8.8.8.8")?.contains("not a host name") == true)
        // Nor is a name with a NUL read only up to it (found by fuzz-http-headers): libidn2 would have
        // mapped this one as cdn.example.com.
        #expect(HostName.normalized("cdn.example.com\u{0}.bücher.evil") == nil)
        #expect(policy.refusal(host: "cdn.example.com\u{0}.bücher.evil", address: "8.8.8.8")?.contains("not a host name") == true)
    }

    /// The pattern as written or in another spelling of the same name (a trailing dot, capitals).
    @Test(arguments: ["localhost", "LocalHost."])
    func aRedirectToADeniedHostIsRefused(_ pattern: String) async throws {
        let harness = try FetchHarness()
        defer { harness.close() }
        // The first request goes to 127.0.0.1, the redirect to localhost, which is denied.
        var request = harness.request("/redirect-to/localhost/x")
        request.network = NetworkPolicy(denyHosts: [pattern])

        let result = await harness.engine.fetch(request)

        #expect(result.error?.reason == "blocked_network")
        #expect(result.error?.description.contains("deny_hosts") == true)
        #expect(!harness.exists(request.destination))
    }

    @Test func anAllowedHostIsFetched() async throws {
        let harness = try FetchHarness()
        defer { harness.close() }
        var request = harness.request("/ok/allowed")
        request.network = NetworkPolicy(allowHosts: ["127.0.0.1"])

        let result = await harness.engine.fetch(request)

        #expect(result.response?.status == 200)
    }
}

@Suite(.timeLimit(.minutes(3))) struct StreamedChecksumTests {
    @Test func theEngineChecksumsTheBodyAsItIsWritten() async throws {
        let harness = try FetchHarness()
        defer { harness.close() }
        var request = harness.request("/ok/checksummed")
        request.computesChecksum = true

        let response = try #require(await harness.engine.fetch(request).response)

        let checksum = try #require(response.checksum)
        #expect(checksum == (try ContentHasher.checksum(ofFileAt: request.destination)))
        #expect(checksum.hasPrefix("xxh3:"))
    }

    @Test func withoutTheAskThereIsNoChecksum() async throws {
        let harness = try FetchHarness()
        defer { harness.close() }
        let response = try #require(await harness.engine.fetch(harness.request("/ok/plain")).response)
        #expect(response.checksum == nil)
    }
}
