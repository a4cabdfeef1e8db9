import Foundation
import Testing
@testable import PrefetchKit

@Suite struct JobFileErrorTests {
    @Test func malformedYAMLStopsAtLibyamlsProblem() throws {
        let folder = try TemporaryDirectory()
        let diagnostics = try folder.diagnostics("version: 1\nsets: [a, b\nname: x\n")
        let diagnostic = try #require(diagnostics.first)
        #expect(diagnostics.count == 1)
        #expect(diagnostic.keyPath == "")
        #expect(diagnostic.line == 3 && diagnostic.column == 5)
        #expect(diagnostic.message.contains("did not find expected ',' or ']'"))
        #expect(diagnostic.description == "\(folder.path)/job.yaml:3:5: \(diagnostic.message)")
    }

    /// `${VAR}` unquoted inside `{ }` or `[ ]` is a YAML error (its braces end the value): the message
    /// says to quote it, and the quoted value reads.
    @Test func anUnquotedVariableInAFlowCollectionIsToldToBeQuoted() throws {
        let folder = try TemporaryDirectory()
        let diagnostics = try folder.diagnostics("""
            version: 1
            sets:
              - { name: a, rate_limit: { requests_per_second: ${RATE} }, urls: ["https://x.example/1.png"] }
            """, environment: ["RATE": "5"])
        let diagnostic = try #require(diagnostics.first)
        #expect(diagnostics.count == 1 && diagnostic.line == 3)
        #expect(diagnostic.message.hasSuffix("did not find expected ',' or '}'; inside { } or [ ], quote a value that holds ${VAR}: \"${VAR}\""),
                "\(diagnostic.message)")
        let job = try folder.load("""
            version: 1
            sets:
              - { name: a, rate_limit: { requests_per_second: "${RATE}" }, urls: ["https://x.example/1.png"] }
            """, environment: ["RATE": "5"])
        #expect(job.sets[0].options.rateLimit == RateLimit(requestsPerSecond: 5))
        // A flow error with no variable on its line keeps libyaml's words alone
        #expect(try folder.diagnostics("version: 1\nsets: [a, b\nname: x\n").first?.message.contains("quote") == false)
    }

    @Test func reportsEveryWrongTypeInOneFile() throws {
        let folder = try TemporaryDirectory()
        let diagnostics = try folder.diagnostics("""
            version: 1
            name: [a]
            cache: fast
            defaults:
              concurrency: many
              headers: [Accept]
              formats: jpeg
              cookies: maybe
              credentials: shop
              cache_key: { drop_params: sig }
            network:
              allow_hosts: cdn.example.com
              allow_private: ~
            sets:
              - name: a
                urls: "https://x.example/1.png"
            """)
        expectDiagnostic(diagnostics, line: 2, column: 7, keyPath: "name", contains: "expected a scalar value, found a list")
        expectDiagnostic(diagnostics, line: 3, column: 8, keyPath: "cache", contains: "expected a mapping, found a scalar")
        expectDiagnostic(diagnostics, line: 5, column: 16, keyPath: "defaults.concurrency", contains: "`many` is not a whole number")
        expectDiagnostic(diagnostics, line: 6, column: 12, keyPath: "defaults.headers", contains: "expected a mapping, found a list")
        expectDiagnostic(diagnostics, line: 7, column: 12, keyPath: "defaults.formats", contains: "expected a list, found a scalar")
        expectDiagnostic(diagnostics, line: 8, column: 12, keyPath: "defaults.cookies", contains: "not a boolean")
        expectDiagnostic(diagnostics, line: 9, column: 16, keyPath: "defaults.credentials", contains: "expected a mapping")
        expectDiagnostic(diagnostics, line: 10, column: 29, keyPath: "defaults.cache_key.drop_params", contains: "expected a list")
        expectDiagnostic(diagnostics, line: 12, column: 16, keyPath: "network.allow_hosts", contains: "expected a list")
        expectDiagnostic(diagnostics, line: 13, column: 18, keyPath: "network.allow_private", contains: "found null")
        expectDiagnostic(diagnostics, line: 16, column: 11, keyPath: "sets[0].urls", contains: "expected a list, found a scalar")
        #expect(diagnostics.count == 11)
    }

    @Test func bytesThatAreNotUTF8AreReportedWhereTheyAre() throws {
        let folder = try TemporaryDirectory()
        let cases: [(bytes: [UInt8], line: Int, column: Int, message: String)] = [
            (Array("version: 1\nsets:\n  - name: ".utf8) + [0xFF, 0xFE] + Array("\n    urls: [a]\n".utf8), 3, 11,
             "invalid leading UTF-8 octet (byte 0xFF)"),
            (Array("version: 1\nname: \"h\u{E9}".utf8) + [0xFF] + Array("\"\n".utf8), 2, 10, "invalid leading UTF-8 octet (byte 0xFF)"),
            (Array("version: 1\nsets:\n  - name: ab\n    urls: [".utf8) + [0] + Array("]\n".utf8), 4, 12,
             "control characters are not allowed (byte 0x00)"),
        ]
        for (number, item) in cases.enumerated() {
            let path = try folder.write("bad-\(number).yaml", Data(item.bytes)).path
            let outcome = try Binary.run(["check", path])
            #expect(outcome.status == 2 && outcome.stderr.contains("bad-\(number).yaml:\(item.line):\(item.column): \(item.message)"),
                    "\(outcome.stderr)")
        }
    }

    @Test func aHeaderNamedTwiceInAnyCaseIsRefused() throws {
        let folder = try TemporaryDirectory()
        let diagnostics = try folder.diagnostics("""
            version: 1
            defaults:
              headers: { Accept: "image/png" }
            sets:
              - { name: a, headers: { accept: "a", ACCEPT: "b" }, urls: ["https://x.example/1.png"] }
            """)
        expectDiagnostic(diagnostics, line: 5, column: 40, keyPath: "sets[0].headers.ACCEPT",
                         contains: "`ACCEPT` is the header `accept` again")
        #expect(diagnostics.count == 1)
    }

    @Test func unknownKeysSuggestTheClosestOne() throws {
        let folder = try TemporaryDirectory()
        let diagnostics = try folder.diagnostics("""
            version: 1
            defaults:
              concurency: 4
              colour: red
            sets:
              - name: a
                url_paterns: "https://x.example/[1-2].png"
            """)
        expectDiagnostic(diagnostics, line: 3, column: 3, keyPath: "defaults.concurency", contains: "unknown key `concurency`; did you mean `concurrency`?")
        expectDiagnostic(diagnostics, line: 4, column: 3, keyPath: "defaults.colour", contains: "allowed keys are `concurrency`")
        expectDiagnostic(diagnostics, line: 7, column: 5, keyPath: "sets[0].url_paterns", contains: "did you mean `url_pattern`?")
        expectDiagnostic(diagnostics, line: 6, column: 5, keyPath: "sets[0]", contains: "no URL source")
    }

    @Test func versionMustBePresentAndSupported() throws {
        let folder = try TemporaryDirectory()
        let missing = try folder.diagnostics("sets:\n  - { name: a, urls: [] }\n")
        expectDiagnostic(missing, line: 1, column: 1, keyPath: "version", contains: "missing; this prefetchd reads `version: 1`")
        let unsupported = try folder.diagnostics("version: 2\nsets:\n  - { name: a, urls: [] }\n")
        expectDiagnostic(unsupported, line: 1, column: 10, keyPath: "version", contains: "unsupported version `2`")
    }

    @Test func badSizesDurationsAndFractions() throws {
        let folder = try TemporaryDirectory()
        let diagnostics = try folder.diagnostics("""
            version: 1
            cache:
              max_size: -1GiB
              max_age: 3 weeks
              trim_to: 1.5
            defaults:
              timeout: 0
              max_bytes: 12XB
            sets:
              - { name: a, timeout: 15, urls: [] }
            """)
        expectDiagnostic(diagnostics, line: 3, column: 13, keyPath: "cache.max_size", contains: "is negative")
        expectDiagnostic(diagnostics, line: 4, column: 12, keyPath: "cache.max_age", contains: "unknown unit `weeks`")
        expectDiagnostic(diagnostics, line: 5, column: 12, keyPath: "cache.trim_to", contains: "outside (0, 1]")
        expectDiagnostic(diagnostics, line: 7, column: 12, keyPath: "defaults.timeout", contains: "must be above zero")
        expectDiagnostic(diagnostics, line: 8, column: 14, keyPath: "defaults.max_bytes", contains: "unknown unit `XB`")
        expectDiagnostic(diagnostics, line: 10, column: 25, keyPath: "sets[0].timeout", contains: "needs a unit")
    }

    @Test func unknownEnumValuesListTheAllowedOnes() throws {
        let folder = try TemporaryDirectory()
        let diagnostics = try folder.diagnostics("""
            version: 1
            cache: { layout: flat, expire_by: birth }
            defaults: { order: random, refresh: sometimes, validate: strict, formats: [jpeg, bmp] }
            sets:
              - { name: a, priority: urgent, urls: [] }
            """)
        expectDiagnostic(diagnostics, line: 2, column: 18, keyPath: "cache.layout", contains: "unknown value `flat`; use one of native, sdwebimage")
        expectDiagnostic(diagnostics, line: 2, column: 35, keyPath: "cache.expire_by", contains: "use one of access, modification, creation")
        expectDiagnostic(diagnostics, line: 3, column: 20, keyPath: "defaults.order", contains: "use one of fifo, lifo")
        expectDiagnostic(diagnostics, line: 3, column: 37, keyPath: "defaults.refresh", contains: "use one of never, stale, always")
        expectDiagnostic(diagnostics, line: 3, column: 58, keyPath: "defaults.validate", contains: "use one of none, sniff, header, decode")
        expectDiagnostic(diagnostics, line: 3, column: 82, keyPath: "defaults.formats[1]", contains: "use one of jpeg, png, gif, webp, avif, jxl")
        expectDiagnostic(diagnostics, line: 5, column: 26, keyPath: "sets[0].priority", contains: "use one of high, normal, low")
    }

    @Test func urlSourcesMustBeExactlyOneAndReadable() throws {
        let folder = try TemporaryDirectory()
        let diagnostics = try folder.diagnostics("""
            version: 1
            sets:
              - name: none
              - name: two
                urls: ["https://x.example/1.png"]
                url_pattern: "https://x.example/[1-2].png"
              - name: missing
                url_file: nowhere.txt
            """)
        expectDiagnostic(diagnostics, line: 3, column: 5, keyPath: "sets[0]", contains: "no URL source; give exactly one of")
        expectDiagnostic(diagnostics, line: 6, column: 5, keyPath: "sets[1].url_pattern", contains: "found `urls` and `url_pattern`")
        expectDiagnostic(diagnostics, line: 8, column: 15, keyPath: "sets[2].url_file", contains: "No such file or directory")
    }

    @Test func malformedGlobs() throws {
        let folder = try TemporaryDirectory()
        let diagnostics = try folder.diagnostics("""
            version: 1
            sets:
              - { name: a, url_pattern: "https://x.example/[1-9.png" }
              - { name: b, url_pattern: "https://x.example/{a,b.png" }
              - { name: c, url_pattern: "https://x.example/[9-1].png" }
              - { name: d, url_pattern: "https://x.example/[a-9].png" }
              - { name: e, url_pattern: "https://x.example/[1-10000][1-10000][1-2].png" }
              - { name: f, url_pattern: "https://x.example/a]" }
              - { name: g, url_pattern: "https://x.example:6553[0-9]/a.png" }
              - { name: h, url_pattern: "https://x.example:{80,99999,81}/a.png" }
            """)
        expectDiagnostic(diagnostics, line: 9, column: 29, keyPath: "sets[6].url_pattern", contains: "Port number was not a decimal number")
        expectDiagnostic(diagnostics, line: 10, column: 29, keyPath: "sets[7].url_pattern", contains: "Port number was not a decimal number")
        expectDiagnostic(diagnostics, line: 3, column: 29, keyPath: "sets[0].url_pattern", contains: "`[` at character 19 is never closed")
        expectDiagnostic(diagnostics, line: 4, column: 29, keyPath: "sets[1].url_pattern", contains: "`{` at character 19 is never closed")
        expectDiagnostic(diagnostics, line: 5, column: 29, keyPath: "sets[2].url_pattern", contains: "runs backwards")
        expectDiagnostic(diagnostics, line: 6, column: 29, keyPath: "sets[3].url_pattern", contains: "mixes kinds")
        expectDiagnostic(diagnostics, line: 7, column: 29, keyPath: "sets[4].url_pattern", contains: "more than 100000000 URLs")
        expectDiagnostic(diagnostics, line: 8, column: 29, keyPath: "sets[5].url_pattern", contains: "closes no glob")
    }

    @Test func duplicateKeysAndSetNames() throws {
        let folder = try TemporaryDirectory()
        let diagnostics = try folder.diagnostics("""
            version: 1
            defaults:
              timeout: 5s
              timeout: 6s
            sets:
              - { name: a, urls: [] }
              - { name: a, urls: [] }
            """)
        expectDiagnostic(diagnostics, line: 4, column: 3, keyPath: "defaults.timeout", contains: "duplicate key `timeout`; first given at line 3")
        expectDiagnostic(diagnostics, line: 7, column: 13, keyPath: "sets[1].name", contains: "duplicate set name `a`; first used at line 6")
    }

    @Test func refusesAliasBombsAndOversizedDocuments() throws {
        let folder = try TemporaryDirectory()
        let aliases = (0..<101).map { _ in "    - *x" }.joined(separator: "\n")
        let bomb = try folder.diagnostics("version: 1\nx: &x [a, b]\nsets:\n  - name: a\n    urls:\n\(aliases)\n")
        #expect(bomb.count == 1)
        expectDiagnostic(bomb, line: 106, column: 7, keyPath: "", contains: "more than 100 aliases")

        var small = YAMLLimits.standard
        small.maxNodes = 50
        let wide = "version: 1\nsets: [" + (0..<60).map(String.init).joined(separator: ", ") + "]\n"
        expectDiagnostic(try folder.diagnostics(wide, limits: small), line: 2, column: 178, keyPath: "", contains: "more than 50 nodes")

        let huge = "version: 1\n" + String(repeating: "# padding to go past the sixteen MiB limit\n", count: 400_000)
        expectDiagnostic(try folder.diagnostics(huge), line: 1, column: 1, keyPath: "", contains: "over the limit of 16777216 bytes")
    }

    @Test func urlsMustBeAbsoluteHTTP() throws {
        let folder = try TemporaryDirectory()
        try folder.write("list.txt", "https://x.example/ok.png\n# comment\n\nftp://x.example/a.png\n   /relative.png\nhttps:///nohost.png\n"
                         + "https://x.example:99999/port.png\nhttps://bob:At@Secret@x.example/at.png\nhttps://bücher.example/idn.png\n")
        let diagnostics = try folder.diagnostics("""
            version: 1
            sets:
              - { name: a, urls: ["https://x.example/1.png", "x.example/2.png", "https://x.example/a b.png"] }
              - { name: b, url_file: list.txt }
              - { name: c, url_pattern: "ftp://x.example/[1-2].png" }
              - { name: d, url_pattern: "https://{a,}.example/[1-2].png" }
            """)
        expectDiagnostic(diagnostics, line: 3, column: 50, keyPath: "sets[0].urls[1]", contains: "not an absolute http or https URL")
        expectDiagnostic(diagnostics, line: 3, column: 69, keyPath: "sets[0].urls[2]", contains: "space or control character at character 20")
        let fileProblems = diagnostics.filter { $0.keyPath == "sets[1].url_file" }
        #expect(fileProblems.map(\.description) == [
            "\(folder.path)/list.txt:4:1: sets[1].url_file: `ftp://x.example/a.png` is not an absolute http or https URL",
            "\(folder.path)/list.txt:5:4: sets[1].url_file: `/relative.png` is not an absolute http or https URL",
            "\(folder.path)/list.txt:6:1: sets[1].url_file: `https:///nohost.png` has no host",
            "\(folder.path)/list.txt:7:1: sets[1].url_file: `https://x.example:99999/port.png` is not a URL libcurl can fetch: "
                + "Port number was not a decimal number between 0 and 65535",
            "\(folder.path)/list.txt:8:1: sets[1].url_file: `https://bob:***@x.example/at.png` is not a URL libcurl can fetch: "
                + "Bad hostname",
        ])
        expectDiagnostic(diagnostics, line: 5, column: 29, keyPath: "sets[2].url_pattern", contains: "must start with a literal http:// or https://")
        expectDiagnostic(diagnostics, line: 6, column: 29, keyPath: "sets[3].url_pattern", contains: "list item `` is not a host name part")
    }

    @Test func aRejectedURLIsShownOnOneLineWithoutEscapes() throws {
        let folder = try TemporaryDirectory()
        let diagnostics = try folder.diagnostics("""
            version: 1
            sets:
              - { name: a, urls: ["https://x.example/a\\nb.png", "https://x.example/\\u001b[31mred.png"] }
            """)
        #expect(diagnostics.map(\.message) == [
            "`https://x.example/a\\u{a}b.png` contains a space or control character at character 20",
            "`https://x.example/\\u{1b}[31mred.png` contains a space or control character at character 19",
        ])
    }

    /// A refused URL is quoted with its set's `redact_params` values hidden (the common secrets by
    /// default), in a list and in a URL file alike, as every log line shows it.
    @Test func aRejectedURLHidesTheValuesItsSetRedacts() throws {
        let folder = try TemporaryDirectory()
        try Data("https://x.example:99999/b.png?secret=HUSH1&w=2\n".utf8).write(to: folder.file("list.txt"))
        let diagnostics = try folder.diagnostics("""
            version: 1
            sets:
              - { name: a, urls: ["https://x.example/a.png?token=HUSH2&w=1 y"] }
              - { name: b, redact_params: [secret], url_file: list.txt }
            """)
        #expect(diagnostics.map(\.message) == [
            "`https://x.example/a.png?token=***&w=1 y` contains a space or control character at character 40",
            "`https://x.example:99999/b.png?secret=***&w=2` is not a URL libcurl can fetch: "
                + "Port number was not a decimal number between 0 and 65535",
        ])
        #expect(!diagnostics.map(\.message).joined().contains("HUSH"))
    }

    @Test(.timeLimit(.minutes(1)))
    func aURLFileMustBeARegularFile() throws {
        // Given a URL file that is a pipe (as /dev/stdin would be), and one that is a folder
        let folder = try TemporaryDirectory()
        #expect(mkfifo(folder.path + "/pipe.txt", 0o600) == 0)
        try FileManager.default.createDirectory(atPath: folder.path + "/folder.txt", withIntermediateDirectories: false)

        // When the job loads (without waiting for a writer to the pipe)
        let diagnostics = try folder.diagnostics("""
            version: 1
            sets:
              - { name: a, url_file: pipe.txt }
              - { name: b, url_file: folder.txt }
            """)

        // Then each is a job-file error saying why
        expectDiagnostic(diagnostics, line: 3, column: 26, keyPath: "sets[0].url_file", contains: "pipe.txt` is not a regular file")
        expectDiagnostic(diagnostics, line: 4, column: 26, keyPath: "sets[1].url_file", contains: "folder.txt` is not a regular file")
    }

    @Test func aRejectedURLNeverShowsItsPassword() throws {
        let folder = try TemporaryDirectory()
        try folder.write("list.txt", "ftp://bob:Secret1@x.example/a.png\nhttps://bob:Secret2@x.example/a b.png\n"
                         + "https://bob:Se/cret5@x.example/a.png\nhttps://bob:Se#cret6@x.example/a.png\nhttps://bob:Se?cret7@x.example/a.png\n")
        let diagnostics = try folder.diagnostics("""
            version: 1
            sets:
              - { name: a, urls: ["ftp://bob:Secret3@x.example/1.png", "http//bob:Secret4@x.example/2.png"] }
              - { name: b, url_file: list.txt }
            """)
        #expect(diagnostics.count == 7, "\(diagnostics)")
        for diagnostic in diagnostics {
            // A blank ends a URL file line's URL: what follows it is read as a digest, and shown without the URL.
            let aboutTheURL = !diagnostic.message.hasPrefix("`b.png` is not a digest")
            #expect(diagnostic.description.contains("bob:***@") == aboutTheURL, "\(diagnostic)")
            #expect(!diagnostic.description.contains("Secret") && !diagnostic.description.contains("cret"), "\(diagnostic)")
        }
    }

    @Test func headersMustBeValidNamesOneLineAndNotAboutABody() throws {
        let folder = try TemporaryDirectory()
        let diagnostics = try folder.diagnostics("""
            version: 1
            defaults:
              headers: { "Bad Name": x, X-Two: "a\\nb", Content-Length: "5", transfer-encoding: chunked, X-Ok: fine }
            sets:
              - { name: a, urls: ["https://x.example/1.png"] }
            """)
        #expect(diagnostics.count == 4, "\(diagnostics)")
        expectDiagnostic(diagnostics, line: 3, column: 14, keyPath: "defaults.headers.Bad Name", contains: "not a valid header name")
        #expect(diagnostics.contains { $0.keyPath == "defaults.headers.X-Two" && $0.message.contains("one line") })
        #expect(diagnostics.contains { $0.keyPath == "defaults.headers.Content-Length" && $0.message.contains("sends no body") })
        #expect(diagnostics.contains { $0.keyPath == "defaults.headers.transfer-encoding" && $0.message.contains("sends no body") })
    }

    @Test func rangesOfCountsAndEmptySets() throws {
        let folder = try TemporaryDirectory()
        let diagnostics = try folder.diagnostics("""
            version: 1
            defaults: { concurrency: 0, retries: -1 }
            sets: []
            """)
        expectDiagnostic(diagnostics, line: 2, column: 26, keyPath: "defaults.concurrency", contains: "0 is out of range; use 1...1024")
        expectDiagnostic(diagnostics, line: 2, column: 38, keyPath: "defaults.retries", contains: "-1 is out of range; use 0...100")
        expectDiagnostic(diagnostics, line: 3, column: 7, keyPath: "sets", contains: "needs at least one set")

        // Digits too many for any whole number the key could take are out of range, not something else
        let huge = try folder.diagnostics("""
            version: 1
            defaults: { concurrency: 99999999999999999999999, retries: -99999999999999999999999 }
            sets: [{ name: a, urls: ["https://x.example/1.png"] }]
            """)
        expectDiagnostic(huge, line: 2, column: 26, keyPath: "defaults.concurrency", contains: "99999999999999999999999 is out of range; use 1...1024")
        expectDiagnostic(huge, line: 2, column: 60, keyPath: "defaults.retries", contains: "-99999999999999999999999 is out of range; use 0...100")

        let perHost = try folder.diagnostics("""
            version: 1
            defaults: { concurrency: 4, per_host: 8 }
            sets:
              - { name: a, concurrency: 2, per_host: 1, urls: [] }
              - { name: b, concurrency: 10, urls: [] }
              - { name: c, concurrency: 3, urls: [] }
            """)
        expectDiagnostic(perHost, line: 2, column: 39, keyPath: "defaults.per_host", contains: "per_host 8 is more than concurrency 4")
        expectDiagnostic(perHost, line: 6, column: 29, keyPath: "sets[2].concurrency", contains: "per_host 8 is more than concurrency 3")
        #expect(perHost.count == 2)

        // A set's own per_host that is refused is said once, not again as the inherited one's excess
        let refused = try folder.diagnostics("""
            version: 1
            defaults: { concurrency: 2, per_host: 5 }
            sets: [{ name: a, per_host: 0, urls: ["https://x.example/1.png"] }]
            """)
        #expect(refused.map(\.keyPath) == ["defaults.per_host", "sets[0].per_host"], "\(refused)")
        expectDiagnostic(refused, line: 3, column: 29, keyPath: "sets[0].per_host", contains: "0 is out of range; use 1...1024")
    }

    @Test func missingEnvironmentVariables() throws {
        let folder = try TemporaryDirectory()
        let diagnostics = try folder.diagnostics("""
            version: 1
            cache: { path: "${CACHE_DIR}/x" }
            defaults:
              credentials: { username: u, password_env: SHOP_PASSWORD }
            sets:
              - { name: a, urls: ["https://${HOST}/1.png"] }
            """, environment: ["HOST": "x.example"])
        expectDiagnostic(diagnostics, line: 2, column: 16, keyPath: "cache.path", contains: "environment variable `CACHE_DIR` is not set")
        expectDiagnostic(diagnostics, line: 4, column: 45, keyPath: "defaults.credentials.password_env", contains: "`SHOP_PASSWORD` is not set")
        #expect(diagnostics.count == 2)
    }
}
