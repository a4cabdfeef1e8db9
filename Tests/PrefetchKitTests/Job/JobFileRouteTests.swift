import Foundation
import Testing
@testable import PrefetchKit

/// The keys of how a set's requests travel: `stall`, `proxy`, `no_proxy`, `ca_file`, `ca_path` and
/// `connect_to`, their defaults, inheritance and every bad value's message and place.
@Suite struct JobFileRouteTests {
    @Test func defaultsAreOneBytePerSecondOverTenSecondsAndNoProxy() throws {
        let folder = try TemporaryDirectory()
        let job = try folder.load("version: 1\nsets:\n  - name: a\n    urls: [\"https://x.example/1.png\"]\n")
        let options = job.sets[0].options
        #expect(options.stall == StallLimit(bytesPerSecond: 1, time: .seconds(10)))
        #expect(options.proxy == nil && options.noProxy.isEmpty && options.connectTo.isEmpty)
        #expect(options.caFile == nil && options.caPath == nil)
    }

    @Test func setsInheritAndOverrideEachKey() throws {
        let folder = try TemporaryDirectory()
        try folder.write("certs/ca.pem", "not read until a transfer\n")
        try FileManager.default.createDirectory(atPath: folder.file("certs/hashed").path, withIntermediateDirectories: true)
        let job = try folder.load("""
            version: 1
            defaults:
              stall: { low_speed_limit: 1KiB, low_speed_time: 20s }
              proxy: { url: "http://proxy.internal:3128", username: warm, password_env: PROXY_PASSWORD }
              no_proxy: [localhost, .internal.example, 10.0.0.0/8]
              ca_file: certs/ca.pem
              connect_to:
                - { host: cdn.example.com, to: "edge-3.example.net:443" }
                - { host: cdn.example.com, port: 80, to: "[2001:db8::7]" }
            sets:
              - name: inherits
                urls: ["https://cdn.example.com/1.png"]
              - name: overrides
                stall: { low_speed_time: 3s }
                proxy: ${SOCKS_PROXY:-none}
                no_proxy: "a.example, b.example"
                ca_path: certs/hashed
                connect_to: []
                urls: ["https://cdn.example.com/2.png"]
              - name: socks
                proxy: ${SOCKS_PROXY}
                urls: ["https://cdn.example.com/3.png"]
            """, environment: ["PROXY_PASSWORD": "pw", "SOCKS_PROXY": "socks5h://127.0.0.1:1080"])

        let inherited = job.sets[0].options
        #expect(inherited.stall == StallLimit(bytesPerSecond: 1024, time: .seconds(20)))
        #expect(inherited.proxy == ProxySettings(url: "http://proxy.internal:3128",
                                                 credentials: CredentialSettings(username: "warm", passwordSource: .environment("PROXY_PASSWORD"), password: "pw")))
        #expect(inherited.noProxy == ["localhost", ".internal.example", "10.0.0.0/8"])
        #expect(inherited.caFile == "\(folder.path)/certs/ca.pem")
        #expect(inherited.connectTo == [
            ConnectTarget(host: "cdn.example.com", toHost: "edge-3.example.net", toPort: 443),
            ConnectTarget(host: "cdn.example.com", port: 80, toHost: "2001:db8::7"),
        ])
        #expect(inherited.connectTo.map(\.curlEntry) == ["cdn.example.com::edge-3.example.net:443", "cdn.example.com:80:[2001:db8::7]:"])

        let overrides = job.sets[1].options
        #expect(overrides.stall == StallLimit(bytesPerSecond: 1024, time: .seconds(3)))
        #expect(overrides.proxy == ProxySettings(url: "socks5h://127.0.0.1:1080"))
        #expect(overrides.noProxy == ["a.example", "b.example"])
        #expect(overrides.caFile == "\(folder.path)/certs/ca.pem" && overrides.caPath == "\(folder.path)/certs/hashed")
        #expect(overrides.connectTo.isEmpty)

        // `none` from an unset variable's default connects directly, over the defaults' proxy
        let direct = try folder.load("""
            version: 1
            defaults: { proxy: "http://proxy.internal:3128" }
            sets:
              - { name: a, proxy: "${HTTPS_PROXY:-none}", urls: ["https://x.example/1.png"] }
            """)
        #expect(direct.sets[0].options.proxy == nil)
    }

    @Test func everyBadValueIsOneLineWithItsPlace() throws {
        let folder = try TemporaryDirectory()
        try folder.write("ca.pem", "x")
        let diagnostics = try folder.diagnostics("""
            version: 1
            defaults:
              stall: { low_speed_limit: fast, low_speed_time: 500ms }
              proxy: "ftp://proxy.example:21"
            sets:
              - name: a
                stall: {}
                proxy: "http://user:pw@proxy.example:3128"
                urls: ["https://x.example/1.png"]
              - name: b
                proxy: "http://proxy.example"
                no_proxy: ["bad host"]
                ca_file: missing.pem
                ca_path: ca.pem
                urls: ["https://x.example/1.png"]
              - name: c
                proxy: { url: "socks5://127.0.0.1:1080", username: u }
                connect_to:
                  - { host: cdn.example.com }
                  - { host: "cdn.example.com:443", to: "edge:99999" }
                  - { host: cdn.example.com, to: "::1:443", port: 0 }
                urls: ["https://x.example/1.png"]
              - name: d
                proxy: { url: "http://127.0.0.1:3128", username: u, password_env: NOT_SET_ANYWHERE }
                stall: { low_speed_limit: -1 }
                urls: ["https://x.example/1.png"]
            """)
        expectDiagnostic(diagnostics, line: 3, column: 29, keyPath: "defaults.stall.low_speed_limit", contains: "`fast` is not a size")
        expectDiagnostic(diagnostics, line: 3, column: 51, keyPath: "defaults.stall.low_speed_time", contains: "at least 1s")
        expectDiagnostic(diagnostics, line: 4, column: 10, keyPath: "defaults.proxy", contains: "use http://, https://, socks5:// or socks5h://")
        expectDiagnostic(diagnostics, line: 7, column: 12, keyPath: "sets[0].stall", contains: "needs `low_speed_limit`")
        expectDiagnostic(diagnostics, line: 8, column: 12, keyPath: "sets[0].proxy", contains: "must not hold credentials")
        expectDiagnostic(diagnostics, line: 11, column: 12, keyPath: "sets[1].proxy", contains: "the port is needed")
        expectDiagnostic(diagnostics, line: 12, column: 16, keyPath: "sets[1].no_proxy[0]", contains: "`bad host` is not a host name")
        expectDiagnostic(diagnostics, line: 13, column: 14, keyPath: "sets[1].ca_file", contains: "missing.pem` does not exist")
        expectDiagnostic(diagnostics, line: 14, column: 14, keyPath: "sets[1].ca_path", contains: "is not a readable folder")
        expectDiagnostic(diagnostics, line: 17, column: 12, keyPath: "sets[2].proxy", contains: "needs `username` and one of `password_env` (an environment variable) and `password_file`")
        expectDiagnostic(diagnostics, line: 19, column: 9, keyPath: "sets[2].connect_to[0]", contains: "needs `host`")
        expectDiagnostic(diagnostics, line: 20, column: 17, keyPath: "sets[2].connect_to[1].host", contains: "give the port as `port`")
        expectDiagnostic(diagnostics, line: 20, column: 44, keyPath: "sets[2].connect_to[1].to", contains: "`99999` in `edge:99999` is not a port")
        expectDiagnostic(diagnostics, line: 21, column: 38, keyPath: "sets[2].connect_to[2].to", contains: "write an IPv6 address in brackets")
        expectDiagnostic(diagnostics, line: 21, column: 55, keyPath: "sets[2].connect_to[2].port", contains: "out of range")
        expectDiagnostic(diagnostics, line: 24, column: 71, keyPath: "sets[3].proxy.password_env", contains: "`NOT_SET_ANYWHERE` is not set")
        expectDiagnostic(diagnostics, line: 25, column: 31, keyPath: "sets[3].stall.low_speed_limit", contains: "negative")
        #expect(diagnostics.count == 17, "\(diagnostics.map(\.description).joined(separator: "\n"))")
        #expect(diagnostics.allSatisfy { !$0.description.contains("\n") })
        #expect(!diagnostics.contains { $0.description.contains(":pw@") }, "a password in a proxy URL is never shown")
    }

    @Test func unknownKeysInsideTheNewMappingsSuggestTheRightOne() throws {
        let folder = try TemporaryDirectory()
        let diagnostics = try folder.diagnostics("""
            version: 1
            defaults:
              stall: { low_speed_limt: 1 }
              proxy: { ur: "http://127.0.0.1:3128" }
              conect_to: []
            sets:
              - { name: a, urls: ["https://x.example/1.png"] }
            """)
        expectDiagnostic(diagnostics, line: 3, column: 12, keyPath: "defaults.stall.low_speed_limt", contains: "did you mean `low_speed_limit`?")
        expectDiagnostic(diagnostics, line: 4, column: 12, keyPath: "defaults.proxy.ur", contains: "did you mean `url`?")
        expectDiagnostic(diagnostics, line: 5, column: 3, keyPath: "defaults.conect_to", contains: "did you mean `connect_to`?")
    }

    /// A range in `no_proxy` is an address and a prefix length it has room for.
    @Test func aRangeWhosePrefixDoesNotFitIsRefused() throws {
        let folder = try TemporaryDirectory()
        let job = try folder.load("""
            version: 1
            sets:
              - { name: a, no_proxy: [10.0.0.0/8, "fd00::/8", 192.168.1.7/32], urls: ["https://x.example/1.png"] }
            """)
        #expect(job.sets[0].options.noProxy == ["10.0.0.0/8", "fd00::/8", "192.168.1.7/32"])
        let diagnostics = try folder.diagnostics("""
            version: 1
            sets:
              - { name: a, no_proxy: [10.0.0.0/99], urls: ["https://x.example/1.png"] }
              - { name: b, no_proxy: "fd00::/129", urls: ["https://x.example/1.png"] }
              - { name: c, no_proxy: [example.com/8], urls: ["https://x.example/1.png"] }
            """)
        expectDiagnostic(diagnostics, line: 3, column: 27, keyPath: "sets[0].no_proxy[0]", contains: "`10.0.0.0/99` is not a host name, .domain, address or CIDR range")
        expectDiagnostic(diagnostics, line: 4, column: 26, keyPath: "sets[1].no_proxy", contains: "`fd00::/129` is not")
        expectDiagnostic(diagnostics, line: 5, column: 27, keyPath: "sets[2].no_proxy[0]", contains: "`example.com/8` is not")
        #expect(diagnostics.count == 3, "\(diagnostics.map(\.description))")
    }
}
