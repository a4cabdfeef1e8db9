import Testing
@testable import PrefetchKit

@Suite struct JobRateLimitTests {
    @Test func aSetInheritsTheDefaultsRateLimitOrReplacesItAndHostsGetTheirs() throws {
        let folder = try TemporaryDirectory()
        let job = try folder.load("""
            version: 1
            defaults:
              rate_limit: { requests_per_second: 50, burst: 10, bytes_per_second: 20MiB }
            hosts:
              img.example.com: { rate_limit: { requests_per_second: 0.5 } }
              "*.cdn.example.com":
                rate_limit: { bytes_per_second: 512KiB }
            sets:
              - { name: a, urls: ["https://img.example.com/1.png"] }
              - { name: b, rate_limit: { bytes_per_second: 1MB }, urls: ["https://img.example.com/2.png"] }
            """)
        #expect(job.sets[0].options.rateLimit == RateLimit(requestsPerSecond: 50, burst: 10, bytesPerSecond: 20 << 20))
        #expect(job.sets[1].options.rateLimit == RateLimit(bytesPerSecond: 1_000_000))
        #expect(job.hosts == [HostSettings(pattern: "img.example.com", rateLimit: RateLimit(requestsPerSecond: 0.5)),
                              HostSettings(pattern: "*.cdn.example.com", rateLimit: RateLimit(bytesPerSecond: 512 << 10))])
        #expect(job.hostRateRules.limit(forHost: "edge.cdn.example.com") == RateLimit(bytesPerSecond: 512 << 10))
        #expect(JobOptions().rateLimit == nil)
    }

    /// `rate_limit: none` switches off the limit a set would inherit from `defaults`, and is the
    /// only scalar a set's `rate_limit` takes.
    @Test func noneSwitchesOffAnInheritedRateLimit() throws {
        let folder = try TemporaryDirectory()
        let job = try folder.load("""
            version: 1
            defaults:
              rate_limit: { requests_per_second: 50 }
            sets:
              - { name: limited, urls: ["https://img.example.com/1.png"] }
              - { name: free, rate_limit: none, urls: ["https://img.example.com/2.png"] }
            """)
        #expect(job.sets[0].options.rateLimit == RateLimit(requestsPerSecond: 50))
        #expect(job.sets[1].options.rateLimit == nil)
        let diagnostics = try folder.diagnostics("""
            version: 1
            sets:
              - { name: a, rate_limit: off, urls: ["https://img.example.com/1.png"] }
            """)
        expectDiagnostic(diagnostics, line: 3, column: 28, keyPath: "sets[0].rate_limit", contains: "expected a mapping or `none`, found `off`")
        #expect(diagnostics.count == 1, "\(diagnostics.map(\.description))")
    }

    /// `none` is read after `${VAR}` expansion, as any value is: a limit switched off from outside.
    @Test func noneMayComeFromTheEnvironment() throws {
        let folder = try TemporaryDirectory()
        let text = """
            version: 1
            defaults:
              rate_limit: { requests_per_second: 50 }
            sets:
              - { name: a, rate_limit: "${LIMIT:-none}", urls: ["https://img.example.com/1.png"] }
            """
        #expect(try folder.load(text).sets[0].options.rateLimit == nil)
        let diagnostics = try folder.diagnostics(text, environment: ["LIMIT": "off"])
        expectDiagnostic(diagnostics, line: 5, column: 28, keyPath: "sets[0].rate_limit", contains: "expected a mapping or `none`, found `off`")
        #expect(diagnostics.count == 1, "\(diagnostics.map(\.description))")
    }

    @Test func badRateLimitsAreReportedWhereTheyAre() throws {
        let folder = try TemporaryDirectory()
        let diagnostics = try folder.diagnostics("""
            version: 1
            defaults:
              rate_limit: { requests_per_second: fast }
            hosts:
              "http://img.example.com": { rate_limit: { requests_per_second: 1 } }
              img.example.com: { rate_limit: { burst: 3 } }
              a.example.com: { rate_limit: { requests_per_second: 0 } }
              b.example.com: { limit: 1 }
              c.example.com: { rate_limit: { bytes_per_second: 1 MiB, burst: 2 } }
            sets:
              - { name: a, rate_limit: { requests_per_second: 5, bursts: 2 }, urls: ["https://img.example.com/1.png"] }
              - { name: b, rate_limit: { bytes_per_second: -1 }, urls: ["https://img.example.com/1.png"] }
              - { name: c, rate_limit: 5, urls: ["https://img.example.com/1.png"] }
            """)
        expectDiagnostic(diagnostics, line: 3, column: 38, keyPath: "defaults.rate_limit.requests_per_second", contains: "`fast` is not a number")
        expectDiagnostic(diagnostics, line: 5, column: 3, keyPath: "hosts.http://img.example.com", contains: "is not a host pattern")
        expectDiagnostic(diagnostics, line: 6, column: 34, keyPath: "hosts.img.example.com.rate_limit", contains: "needs `requests_per_second`, `bytes_per_second` or both")
        expectDiagnostic(diagnostics, line: 7, column: 55, keyPath: "hosts.a.example.com.rate_limit.requests_per_second", contains: "out of range")
        expectDiagnostic(diagnostics, line: 8, column: 18, keyPath: "hosts.b.example.com", contains: "needs `rate_limit`")
        expectDiagnostic(diagnostics, line: 8, column: 20, keyPath: "hosts.b.example.com.limit", contains: "unknown key `limit`")
        expectDiagnostic(diagnostics, line: 9, column: 59, keyPath: "hosts.c.example.com.rate_limit.burst", contains: "needs `requests_per_second`")
        expectDiagnostic(diagnostics, line: 11, column: 54, keyPath: "sets[0].rate_limit.bursts", contains: "did you mean `burst`?")
        expectDiagnostic(diagnostics, line: 12, column: 48, keyPath: "sets[1].rate_limit.bytes_per_second", contains: "negative")
        expectDiagnostic(diagnostics, line: 13, column: 28, keyPath: "sets[2].rate_limit", contains: "expected a mapping")
        #expect(diagnostics.count == 10, "\(diagnostics.map(\.description))")
    }

    /// One host named twice in one file, in two spellings of it, is refused as an exact repeat is; a
    /// pattern with a port is told that a host's limit holds on every port.
    @Test func aHostNamedTwiceInOtherSpellingsIsRefused() throws {
        let folder = try TemporaryDirectory()
        let diagnostics = try folder.diagnostics("""
            version: 1
            hosts:
              "A.EXAMPLE.test": { rate_limit: { requests_per_second: 1 } }
              "a.example.test.": { rate_limit: { requests_per_second: 4 } }
              "*.example.test": { rate_limit: { requests_per_second: 4 } }
              "127.0.0.1:8080": { rate_limit: { requests_per_second: 4 } }
            sets:
              - { name: a, urls: ["https://a.example.test/1.png"] }
            """)
        expectDiagnostic(diagnostics, line: 4, column: 3, keyPath: "hosts.a.example.test.",
                         contains: "`a.example.test.` names the same hosts as `A.EXAMPLE.test`")
        expectDiagnostic(diagnostics, line: 6, column: 3, keyPath: "hosts.127.0.0.1:8080",
                         contains: "(without a port: a host's limit holds on every port)")
        #expect(diagnostics.count == 2, "\(diagnostics.map(\.description))")
    }

    /// A rate in exponent form is told to be written in digits, and an empty `rate_limit` what it takes.
    @Test func anExponentAndAnEmptyRateLimitSayWhatToWrite() throws {
        let folder = try TemporaryDirectory()
        let diagnostics = try folder.diagnostics("""
            version: 1
            defaults:
              rate_limit: { requests_per_second: 1e2 }
            sets:
              - name: a
                rate_limit:
                urls: ["https://img.example.com/1.png"]
            """)
        expectDiagnostic(diagnostics, line: 3, column: 38, keyPath: "defaults.rate_limit.requests_per_second",
                         contains: "write `1e2` in plain digits")
        expectDiagnostic(diagnostics, line: 6, column: 16, keyPath: "sets[0].rate_limit", contains: "expected a mapping or `none`, found null")
        #expect(diagnostics.count == 2, "\(diagnostics.map(\.description))")
    }
}
