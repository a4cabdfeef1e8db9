import Foundation
import Testing
@testable import PrefetchKit

/// A job's `stall`, `proxy`, `no_proxy` and `connect_to` reach its requests, judged by the servers'
/// and the proxy's own records.
@Suite(.timeLimit(.minutes(3)))
struct RunRouteTests {
    /// The filed case: with `timeout: 40s` and no `stall:` written, a body that stops is given up on
    /// 10 s after its last byte, as the README says (libcurl's own check took 17 s).
    @Test func theDefaultStallLimitGivesUpTenSecondsAfterTheLastByte() throws {
        let harness = try RunHarness()
        let job = try harness.job(defaults: ["timeout": "40s", "validate": "none"], sets: [harness.set("s", ["/stall/default/65536"])])

        let result = try harness.run([job])

        #expect(result.report.failures.map(\.reason) == ["timeout"])
        let waited = try FetchStallTests.record(harness.server, "default")
        #expect(waited >= 9.75 && waited <= 12, "aborted \(waited) s after the last byte")
    }

    /// `proxy:` from the environment in `defaults`, a set that `no_proxy` takes past it, and one that
    /// `connect_to` sends to another server without any proxy (`proxy: none`).
    @Test func aJobsProxyNoProxyAndConnectToReachItsRequests() throws {
        let harness = try RunHarness()
        let proxy = try ProxyServer(.http, in: harness.folder)
        defer { proxy.stop() }
        let edge = try FixtureServer()
        defer { edge.stop() }
        let origin = harness.server.port
        let job = try harness.job(defaults: ["proxy": "\"${WARM_PROXY}\""], sets: [
            harness.set("via", ["/count/via-1", "/count/via-2"]),
            harness.set("direct", ["/count/direct"], ["no_proxy: [localhost, 127.0.0.1]"]),
            """
              - name: edge
                proxy: none
                connect_to: [{ host: cdn.example.test, to: "127.0.0.1:\(edge.port)" }]
                urls: ["http://cdn.example.test:\(origin)/count/edge"]
            """,
        ])

        let result = try harness.run([job]) { $0.environment = ["WARM_PROXY": proxy.url()] }

        #expect(result.report.failures.isEmpty, "\(result.report.failures)")
        #expect(result.report.totals.fetched == 4)
        #expect(Set(proxy.requests) == ["GET http://127.0.0.1:\(origin)/count/via-1", "GET http://127.0.0.1:\(origin)/count/via-2"])
        #expect(try harness.server.get("/hits/direct").body == Data("1".utf8))
        #expect(try edge.get("/hits/edge").body == Data("1".utf8))
        #expect(try harness.server.get("/hits/edge").body == Data("0".utf8))
    }

    /// libcurl's proxy environment variables are not read: a job without `proxy:` connects directly,
    /// whatever `http_proxy`, `HTTPS_PROXY` or `ALL_PROXY` say.
    @Test func libcurlsProxyVariablesAreIgnored() throws {
        let harness = try RunHarness()
        let proxy = try ProxyServer(.http, in: harness.folder)
        defer { proxy.stop() }
        let job = try harness.job(sets: [harness.set("s", ["/count/no-env-proxy"])])
        let variables = ["http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"]

        let outcome = try Binary.run(["run", job, "--progress", "never", "--quiet"],
                                     environment: Dictionary(uniqueKeysWithValues: variables.map { ($0, proxy.url()) }))

        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(proxy.requests.isEmpty, "\(proxy.requests)")
        #expect(try harness.server.get("/hits/no-env-proxy").body == Data("1".utf8))
    }

    /// A proxy that asks for credentials gets the password from `password_file` (as a Kubernetes
    /// Secret mounts it, with a trailing newline); with another password in the file it refuses, and
    /// the URL fails with the proxy's 407.
    @Test func aProxyPasswordFromAFileReachesTheProxy() throws {
        let harness = try RunHarness()
        let proxy = try ProxyServer(.http, in: harness.folder, auth: "warm:s3cret-pass")
        defer { proxy.stop() }
        let mapping = "{ url: \"\(proxy.url())\", username: warm, password_file: secrets/proxy-password }"
        // retry_failed: the second run tries again the URL the first one ledgered.
        let job = try harness.job(defaults: ["proxy": mapping, "retry_failed": "true"], sets: [harness.set("via", ["/count/secret-file"])])

        try harness.folder.write("secrets/proxy-password", "wrong-pass\n")
        let refused = try harness.run([job])
        try harness.folder.write("secrets/proxy-password", "s3cret-pass\n")
        let carried = try harness.run([job])

        #expect(refused.report.failures.map(\.httpStatus) == [407], "\(refused.report.failures)")
        #expect(carried.report.failures.isEmpty, "\(carried.report.failures)")
        #expect(carried.report.totals.fetched == 1)
        #expect(try harness.server.get("/hits/secret-file").body == Data("1".utf8))
        let carriedLines = proxy.requests.filter { $0.hasPrefix("GET ") }
        #expect(carriedLines == ["GET \(harness.url("/count/secret-file"))"], "\(proxy.requests)")
        #expect(proxy.requests.contains { $0.hasPrefix("DENIED") }, "\(proxy.requests)")
    }
}
