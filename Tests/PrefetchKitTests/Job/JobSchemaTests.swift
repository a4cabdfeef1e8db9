import Foundation
import Testing
@testable import PrefetchKit

/// `docs/job.schema.json`, the JSON Schema of job file v1, held to the decoder: it is a valid schema,
/// every job file of the repository passes it, the decoder and the schema agree on job files each
/// refuses or accepts, and it names every key, value and default the decoder knows.
@Suite(.timeLimit(.minutes(3))) struct JobSchemaTests {
    @Test func theSchemaIsAValidDraft202012Schema() throws {
        let verdict = try CheckJSONSchema.check([CheckJSONSchema.jobSchema.path], schema: ["--check-metaschema"])
        #expect(verdict.status == 0, "\(verdict.output)")
    }

    @Test func everyJobFileOfTheRepositoryPassesTheSchema() throws {
        let folder = try TemporaryDirectory()
        let found = try RepositoryJobFiles.find(under: CheckJSONSchema.repository, blocksInto: folder)
        // The search itself: it finds the files known to be there, Markdown blocks included.
        let names = found.map(\.name)
        for known in ["jobs/catalog.yaml", "Tests/Fixtures/caches/schema8-native.yaml", "Tests/Fixtures/caches/schema8-sdwebimage.yaml"] {
            #expect(names.contains(known), "\(known) not found among \(names)")
        }
        #expect(names.contains { $0.hasPrefix("README.md:") }, "the README's job file example not found among \(names)")

        let verdict = try CheckJSONSchema.check(found.map(\.path), schema: ["--schemafile", CheckJSONSchema.jobSchema.path])
        for file in found where !verdict.passed(file.path) {
            Issue.record("\(file.name) fails docs/job.schema.json: \(verdict.errors[file.path] ?? ["does not parse"])")
        }
        #expect(verdict.status == 0, "\(verdict.output)")
    }

    /// A job file the decoder refuses at `keyPath`, for a reason a schema can see.
    struct Refused: CustomTestStringConvertible {
        var keyPath: String
        var yaml: String
        var testDescription: String { keyPath }
    }

    static let set = "sets:\n  - name: a\n    urls: [\"http://127.0.0.1:1/a.png\"]\n"

    static let refused = [
        Refused(keyPath: "name2", yaml: "version: 1\nname2: x\n" + set),
        Refused(keyPath: "defaults.concurency", yaml: "version: 1\ndefaults: {concurency: 4}\n" + set),
        Refused(keyPath: "sets[0].prority", yaml: set.replacingOccurrences(of: "name: a", with: "name: a\n    prority: high").versioned),
        Refused(keyPath: "cache.max_sise", yaml: "version: 1\ncache: {max_sise: 1GiB}\n" + set),
        Refused(keyPath: "network.allow_privat", yaml: "version: 1\nnetwork: {allow_privat: false}\n" + set),
        Refused(keyPath: "sets[0].credentials.pasword_env", yaml: (set + "    credentials: {username: u, password_env: SHOP_PASSWORD, pasword_env: X}\n").versioned),
        Refused(keyPath: "sets[0].cache_key.drop_param", yaml: (set + "    cache_key: {drop_param: [sig]}\n").versioned),
        Refused(keyPath: "defaults.concurrency", yaml: "version: 1\ndefaults: {concurrency: many}\n" + set),
        Refused(keyPath: "defaults.concurrency", yaml: "version: 1\ndefaults: {concurrency: 0}\n" + set),
        Refused(keyPath: "defaults.retries", yaml: "version: 1\ndefaults: {retries: 101}\n" + set),
        Refused(keyPath: "sets", yaml: "version: 1\nsets: {name: a, urls: [\"http://127.0.0.1:1/a.png\"]}\n"),
        Refused(keyPath: "sets", yaml: "version: 1\nsets: []\n"),
        Refused(keyPath: "sets", yaml: "version: 1\n"),
        Refused(keyPath: "version", yaml: "version: 2\n" + set),
        Refused(keyPath: "version", yaml: set),
        Refused(keyPath: "cache", yaml: "version: 1\ncache:\n" + set),
        Refused(keyPath: "defaults.headers", yaml: "version: 1\ndefaults: {headers: [Accept]}\n" + set),
        Refused(keyPath: "defaults.headers.Content-Length", yaml: "version: 1\ndefaults: {headers: {Content-Length: 10}}\n" + set),
        Refused(keyPath: "defaults.headers.X-A", yaml: "version: 1\ndefaults: {headers: {X-A: \"one\\ntwo\"}}\n" + set),
        Refused(keyPath: "defaults.headers.X A", yaml: "version: 1\ndefaults: {headers: {X A: one}}\n" + set),
        Refused(keyPath: "cache.layout", yaml: "version: 1\ncache: {layout: sharded}\n" + set),
        Refused(keyPath: "cache.expire_by", yaml: "version: 1\ncache: {expire_by: fetch}\n" + set),
        Refused(keyPath: "cache.trim_to", yaml: "version: 1\ncache: {trim_to: 1.5}\n" + set),
        Refused(keyPath: "cache.trim_to", yaml: "version: 1\ncache: {trim_to: 0}\n" + set),
        Refused(keyPath: "cache.max_age", yaml: "version: 1\ncache: {max_age: -1s}\n" + set),
        Refused(keyPath: "cache.max_age", yaml: "version: 1\ncache: {max_age: 7}\n" + set),
        Refused(keyPath: "cache.max_size", yaml: "version: 1\ncache: {max_size: 2 gib}\n" + set),
        Refused(keyPath: "cache.durable", yaml: "version: 1\ncache: {durable: yes}\n" + set),
        Refused(keyPath: "defaults.timeout", yaml: "version: 1\ndefaults: {timeout: 15}\n" + set),
        Refused(keyPath: "defaults.timeout", yaml: "version: 1\ndefaults: {timeout: 0s}\n" + set),
        Refused(keyPath: "defaults.max_bytes", yaml: "version: 1\ndefaults: {max_bytes: 0}\n" + set),
        Refused(keyPath: "defaults.max_pixels", yaml: "version: 1\ndefaults: {max_pixels: 0}\n" + set),
        Refused(keyPath: "defaults.validate", yaml: "version: 1\ndefaults: {validate: yes}\n" + set),
        Refused(keyPath: "defaults.formats", yaml: "version: 1\ndefaults: {formats: []}\n" + set),
        Refused(keyPath: "defaults.formats[1]", yaml: "version: 1\ndefaults: {formats: [png, bmp]}\n" + set),
        Refused(keyPath: "defaults.cache_key.strip_query", yaml: "version: 1\ndefaults: {cache_key: {strip_query: false}}\n" + set),
        Refused(keyPath: "defaults.cache_key.strip_query", yaml: "version: 1\ndefaults: {cache_key: {drop_params: [a], strip_query: true}}\n" + set),
        Refused(keyPath: "defaults.cache_key", yaml: "version: 1\ndefaults: {cache_key: {}}\n" + set),
        Refused(keyPath: "defaults.credentials", yaml: "version: 1\ndefaults: {credentials: {username: u}}\n" + set),
        Refused(keyPath: "defaults.credentials.password_env", yaml: "version: 1\ndefaults: {credentials: {username: u, password_env: 2PASS}}\n" + set),
        Refused(keyPath: "defaults.redact_params[0]", yaml: "version: 1\ndefaults: {redact_params: [\"\"]}\n" + set),
        Refused(keyPath: "network.allow_hosts[0]", yaml: "version: 1\nnetwork: {allow_hosts: [\"https://cdn.example.com\"]}\n" + set),
        Refused(keyPath: "sets[0].name", yaml: "version: 1\nsets:\n  - name:\n    urls: [\"http://127.0.0.1:1/a.png\"]\n"),
        Refused(keyPath: "sets[0]", yaml: "version: 1\nsets:\n  - urls: [\"http://127.0.0.1:1/a.png\"]\n"),
        Refused(keyPath: "sets[0]", yaml: "version: 1\nsets:\n  - name: a\n    priority: high\n"),
        Refused(keyPath: "sets[0].url_pattern", yaml: (set + "    url_pattern: \"http://127.0.0.1:1/[1-2].png\"\n").versioned),
        Refused(keyPath: "sets[0].priority", yaml: set.replacingOccurrences(of: "name: a", with: "name: a\n    priority: urgent").versioned),
        Refused(keyPath: "sets[0].urls[0]", yaml: "version: 1\nsets:\n  - name: a\n    urls: [\"ftp://127.0.0.1/a.png\"]\n"),
        Refused(keyPath: "sets[0].urls[0]", yaml: "version: 1\nsets:\n  - name: a\n    urls: [\"http://127.0.0.1/a b.png\"]\n"),
        Refused(keyPath: "sets[0].urls[0]", yaml: "version: 1\nsets:\n  - name: a\n    urls: [\"http://user@:80/a.png\"]\n"),
        Refused(keyPath: "sets[0].url_pattern", yaml: "version: 1\nsets:\n  - name: a\n    url_pattern: \"{http,https}://h/[1-2].png\"\n"),
        Refused(keyPath: "defaults.stall.low_speed", yaml: "version: 1\ndefaults: {stall: {low_speed: 1}}\n" + set),
        Refused(keyPath: "defaults.stall", yaml: "version: 1\ndefaults: {stall: {}}\n" + set),
        Refused(keyPath: "defaults.stall.low_speed_time", yaml: "version: 1\ndefaults: {stall: {low_speed_time: 0s}}\n" + set),
        Refused(keyPath: "defaults.proxy", yaml: "version: 1\ndefaults: {proxy: \"ftp://proxy.internal:21\"}\n" + set),
        Refused(keyPath: "defaults.proxy", yaml: "version: 1\ndefaults: {proxy: \"http://u:p@proxy.internal:3128\"}\n" + set),
        Refused(keyPath: "defaults.proxy", yaml: "version: 1\ndefaults: {proxy: \"http://proxy.internal\"}\n" + set),
        Refused(keyPath: "defaults.proxy", yaml: "version: 1\ndefaults: {proxy: {username: u, password_env: SHOP_PASSWORD}}\n" + set),
        Refused(keyPath: "defaults.proxy", yaml: "version: 1\ndefaults: {proxy: {url: \"http://p:3128\", username: u}}\n" + set),
        Refused(keyPath: "defaults.proxy", yaml: "version: 1\ndefaults: {proxy: {url: \"http://p:3128\", password_file: pw}}\n" + set),
        Refused(keyPath: "defaults.credentials", yaml: "version: 1\ndefaults: {credentials: {username: u, password_env: SHOP_PASSWORD, password_file: pw}}\n" + set),
        Refused(keyPath: "defaults.credentials.password_file", yaml: "version: 1\ndefaults: {credentials: {username: u, password_file: \"\"}}\n" + set),
        Refused(keyPath: "defaults.proxy.user", yaml: "version: 1\ndefaults: {proxy: {url: \"http://p:3128\", user: u}}\n" + set),
        Refused(keyPath: "defaults.no_proxy[0]", yaml: "version: 1\ndefaults: {no_proxy: [\"*.example.com\"]}\n" + set),
        Refused(keyPath: "defaults.no_proxy", yaml: "version: 1\ndefaults: {no_proxy: \"localhost; .internal\"}\n" + set),
        Refused(keyPath: "defaults.ca_file", yaml: "version: 1\ndefaults: {ca_file: \"\"}\n" + set),
        Refused(keyPath: "defaults.connect_to[0]", yaml: "version: 1\ndefaults: {connect_to: [{host: cdn.example.com}]}\n" + set),
        Refused(keyPath: "defaults.connect_to[0].via", yaml: "version: 1\ndefaults: {connect_to: [{host: a.example, to: b.example, via: c}]}\n" + set),
        Refused(keyPath: "defaults.connect_to[0].port", yaml: "version: 1\ndefaults: {connect_to: [{host: a.example, port: 70000, to: b.example}]}\n" + set),
        Refused(keyPath: "defaults.connect_to[0].to", yaml: "version: 1\ndefaults: {connect_to: [{host: a.example, to: \"::1:443\"}]}\n" + set),
        Refused(keyPath: "defaults.connect_to[0].host", yaml: "version: 1\ndefaults: {connect_to: [{host: \"a.example:443\", to: b.example}]}\n" + set),
        Refused(keyPath: "defaults.connect_to", yaml: "version: 1\ndefaults: {connect_to: {host: a.example, to: b.example}}\n" + set),
        Refused(keyPath: "defaults.rate_limit", yaml: "version: 1\ndefaults: {rate_limit: {burst: 5}}\n" + set),
        Refused(keyPath: "defaults.rate_limit.requests_per_second", yaml: "version: 1\ndefaults: {rate_limit: {requests_per_second: \"1e3\"}}\n" + set),
        Refused(keyPath: "defaults.rate_limit.requests_per_second", yaml: "version: 1\ndefaults: {rate_limit: {requests_per_second: 0}}\n" + set),
        Refused(keyPath: "defaults.rate_limit.burst", yaml: "version: 1\ndefaults: {rate_limit: {requests_per_second: 5, burst: 0}}\n" + set),
        Refused(keyPath: "defaults.rate_limit.bytes_per_second", yaml: "version: 1\ndefaults: {rate_limit: {bytes_per_second: 0}}\n" + set),
        Refused(keyPath: "defaults.rate_limit.per_host", yaml: "version: 1\ndefaults: {rate_limit: {requests_per_second: 5, per_host: 2}}\n" + set),
        Refused(keyPath: "hosts.cdn.example.com", yaml: "version: 1\nhosts: {cdn.example.com: {}}\n" + set),
        Refused(keyPath: "hosts.https://cdn.example.com", yaml: "version: 1\nhosts: {\"https://cdn.example.com\": {rate_limit: {requests_per_second: 5}}}\n" + set),
        Refused(keyPath: "hosts", yaml: "version: 1\nhosts: [cdn.example.com]\n" + set),
        Refused(keyPath: "defaults.variants[0].width", yaml: "version: 1\ndefaults: {variants: [{name: t, max_pixel_size: 256, width: 100}]}\n" + set),
        Refused(keyPath: "defaults.variants[0].fit", yaml: "version: 1\ndefaults: {variants: [{name: t, max_pixel_size: 256, fit: cover}]}\n" + set),
        Refused(keyPath: "defaults.variants[0]", yaml: "version: 1\ndefaults: {variants: [{name: t, format: jpeg}]}\n" + set),
        Refused(keyPath: "defaults.variants[0]", yaml: "version: 1\ndefaults: {variants: [{max_pixel_size: 64}]}\n" + set),
        Refused(keyPath: "defaults.variants[0].size", yaml: "version: 1\ndefaults: {variants: [{name: t, size: 64}]}\n" + set),
        Refused(keyPath: "defaults.variants[0].quality", yaml: "version: 1\ndefaults: {variants: [{name: t, max_pixel_size: 64, quality: 0}]}\n" + set),
        Refused(keyPath: "defaults.variants[0].format", yaml: "version: 1\ndefaults: {variants: [{name: t, max_pixel_size: 64, format: avif}]}\n" + set),
        Refused(keyPath: "defaults.variants[0].max_pixel_size", yaml: "version: 1\ndefaults: {variants: [{name: t, max_pixel_size: 20000}]}\n" + set),
        Refused(keyPath: "defaults.variants[0].name", yaml: "version: 1\ndefaults: {variants: [{name: \"a/b\", max_pixel_size: 64}]}\n" + set),
        Refused(keyPath: "defaults.variants", yaml: "version: 1\ndefaults: {variants: {name: t, max_pixel_size: 64}}\n" + set),
        Refused(keyPath: "defaults.keep_original", yaml: "version: 1\ndefaults: {keep_original: sometimes}\n" + set),
    ]

    @Test func jobFilesTheDecoderRefusesFailTheSchema() throws {
        let folder = try TemporaryDirectory()
        var files: [String] = []
        for (number, refused) in Self.refused.enumerated() {
            let file = try folder.write("refused-\(number).yaml", refused.yaml).path
            files.append(file)
            do {
                let job = try JobFile.load(path: file, environment: ["SHOP_PASSWORD": "p"], workingDirectory: folder.path)
                Issue.record("the decoder accepts \(refused.keyPath) case, job \(job.name):\n\(refused.yaml)")
            } catch {
                #expect(error.diagnostics.contains { $0.keyPath == refused.keyPath }, "\(error)")
            }
        }
        let verdict = try CheckJSONSchema.check(files, schema: ["--schemafile", CheckJSONSchema.jobSchema.path])
        for (file, refused) in zip(files, Self.refused) {
            if verdict.passed(file) {
                Issue.record("the schema accepts what the decoder refuses at \(refused.keyPath):\n\(refused.yaml)")
            } else if verdict.unparsed.contains(file) {
                Issue.record("check-jsonschema could not parse the \(refused.keyPath) case:\n\(refused.yaml)")
            }
        }
        #expect(verdict.status == 1)
    }

    /// Job files the decoder accepts, in the spellings a schema is easily too strict about: quoted
    /// numbers and booleans, `${VAR}` in typed keys, zero where zero is allowed, spaces in sizes and
    /// durations, numbers and dates as names, every key at once.
    static let accepted = [
        """
        version: 1
        name: everything
        cache: {path: cache, layout: sdwebimage, max_size: 2GiB, max_age: 12h, expire_by: creation, trim_to: 0.5, durable: true}
        defaults:
          concurrency: 8
          per_host: 4
          order: lifo
          timeout: 500ms
          retries: 0
          retry_failed: true
          refresh: stale
          headers: {Accept: image/webp, X-Empty: "", X-Number: 5}
          credentials: {username: shop, password_env: SHOP_PASSWORD}
          cookies: true
          insecure_tls: false
          validate: sniff
          formats: [png, jpeg, gif, webp, avif, jxl, png]
          max_bytes: 5MB
          max_pixels: 1000000
          max_frames: 10
          max_frame_pixels: 10000000
          cache_key: {strip_query: true}
          redact_params: [sig, Token]
          stall: {low_speed_limit: 1KiB, low_speed_time: 5s}
          proxy: {url: "socks5h://proxy.internal:1080", username: warm, password_env: SHOP_PASSWORD}
          no_proxy: [localhost, .internal.example, 10.0.0.0/8, "[::1]", 8]
          ca_file: certs/ca.pem
          ca_path: certs/hashed
          connect_to: [{host: cdn.example.com, port: 443, to: "edge-3.example.net:443"}, {host: "[::1]", to: "[::2]:8443"}, {host: "::1", to: edge}]
          rate_limit: {requests_per_second: 0.5, burst: 4, bytes_per_second: 20MiB}
        hosts:
          cdn.example.com: {rate_limit: {requests_per_second: "20"}}
          "*.example.com": {rate_limit: {bytes_per_second: 100000}}
          "*": {rate_limit: {requests_per_second: 100, burst: "10"}}
        network: {allow_private: false, allow_hosts: ["*.example.com", bücher.test., 127.0.0.1], deny_hosts: []}
        sets:
          - name: list
            priority: high
            urls: ["https://user:pw@cdn.example.com:8443/a.png?sig=1#frag", "http://[::1]:8080/b.jpg"]
            cache_key: {drop_params: []}
          - name: pattern
            priority: low
            url_pattern: "HTTPS://cdn{1,2}.example.com/[001-120:7]/[a-f].webp"
            per_host: 2
          - name: file
            url_file: urls.txt
            validate: none
            proxy: none
            stall: {low_speed_limit: 0}
          - name: proxied
            urls: ["http://127.0.0.1:1/c.png"]
            proxy: "HTTP://proxy.internal:3128/"
            credentials: {username: shop, password_file: secrets/shop-password}
            no_proxy: "localhost, .internal.example"
            connect_to: []
          - name: thumbs
            urls: ["http://127.0.0.1:1/d.png"]
            keep_original: "false"
            variants:
              - {name: thumb, max_pixel_size: 256, format: jpeg, quality: 80}
              - {name: card, width: "300", height: 200, fit: cover, format: webp}
              - {name: tall, height: 1080}
              - {name: lossless, width: 640, fit: inside, format: png}
          - name: plain
            urls: ["http://127.0.0.1:1/e.png"]
            variants: []
            keep_original: true
        """,
        """
        version: "1"
        name: 2026
        cache: {max_size: 0, max_age: 0, trim_to: 1, durable: "False"}
        defaults: {concurrency: "16", retries: "+2", max_bytes: 1048576, timeout: " 15 s", cookies: TRUE, max_pixels: "100"}
        sets:
          - name: 2026-01-01
            urls: []
            max_bytes: "20 MiB"
            cache_key: {strip_query: "True"}
        """,
        """
        version: ${JOB_VERSION:-1}
        name: ${JOB_NAME:-expanded}
        cache: {path: "${PREFETCHD_CACHE_DIR:-cache}", layout: "${LAYOUT:-native}", max_size: "${CAP:-1GiB}", trim_to: "${TRIM:-0.5}"}
        defaults: {concurrency: "${N:-4}", timeout: "${TIMEOUT:-10s}", validate: "${LEVEL:-header}", formats: ["${FORMAT:-png}"], cookies: "${COOKIES:-false}",
                   proxy: "${HTTPS_PROXY:-none}", no_proxy: "${NO_PROXY:-}", stall: {low_speed_time: "${STALL:-3s}"}}
        network: {allow_hosts: ["${HOST:-cdn.example.com}"]}
        sets:
          - name: a
            priority: "${PRIORITY:-high}"
            urls: ["${BASE:-http://127.0.0.1:1}/a.png"]
          - name: b
            url_pattern: "${BASE:-http://127.0.0.1:1}/[1-3].png"
        """,
    ]

    @Test func jobFilesTheDecoderAcceptsPassTheSchema() throws {
        let folder = try TemporaryDirectory()
        try folder.write("urls.txt", "http://127.0.0.1:1/a.png\n")
        try folder.write("certs/ca.pem", "-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n")
        try folder.write("certs/hashed/.keep", "")
        try folder.write("secrets/shop-password", "s3cret\n")
        var files: [String] = []
        for (number, yaml) in Self.accepted.enumerated() {
            let file = try folder.write("accepted-\(number).yaml", yaml).path
            files.append(file)
            do {
                _ = try JobFile.load(path: file, environment: ["SHOP_PASSWORD": "p"], workingDirectory: folder.path)
            } catch {
                Issue.record("the decoder refuses accepted case \(number): \(error)")
            }
        }
        let verdict = try CheckJSONSchema.check(files, schema: ["--schemafile", CheckJSONSchema.jobSchema.path])
        for (number, file) in files.enumerated() where !verdict.passed(file) {
            Issue.record("the schema refuses accepted case \(number): \(verdict.errors[file] ?? ["does not parse"])")
        }
    }

    /// The schema's keys, enumerations and defaults are the decoder's: a key added to one and not the
    /// other fails here.
    @Test func theSchemaNamesEveryKeyValueAndDefaultOfTheDecoder() throws {
        let schema = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: CheckJSONSchema.jobSchema)) as? [String: Any])
        let definitions = try #require(schema["$defs"] as? [String: Any])
        func properties(_ object: Any?) throws -> [String: [String: Any]] {
            try #require((object as? [String: Any])?["properties"] as? [String: [String: Any]])
        }
        let top = try properties(schema)
        let cache = try properties(definitions["cache"])
        let network = try properties(definitions["network"])
        let options = try properties(definitions["options"])
        let set = try properties(definitions["set"])
        #expect(Set(top.keys) == Set(JobDecoder.topKeys))
        #expect(Set(cache.keys) == Set(JobDecoder.cacheKeys))
        #expect(Set(network.keys) == Set(JobDecoder.networkKeys))
        #expect(Set(options.keys) == Set(JobDecoder.optionKeys))
        #expect(Set(set.keys).union(options.keys) == Set(JobDecoder.setKeys))
        #expect(Set(try properties(options["credentials"]).keys) == Set(JobDecoder.credentialKeys))
        #expect(Set(try properties(options["cache_key"]).keys) == ["drop_params", "strip_query"])
        #expect(Set(try properties(options["stall"]).keys) == Set(JobDecoder.stallKeys))
        let proxyMapping = (options["proxy"]?["anyOf"] as? [[String: Any]])?.last
        #expect(Set(try properties(proxyMapping).keys) == Set(JobDecoder.proxyKeys))
        #expect(Set(try properties(options["connect_to"]?["items"]).keys) == Set(JobDecoder.connectToKeys))
        #expect(Set(try properties(definitions["rateLimit"]).keys) == Set(JobDecoder.rateLimitKeys))
        let hostSettings = (top["hosts"]?["additionalProperties"] as? [String: Any])
        #expect(Set(try properties(hostSettings).keys) == Set(JobDecoder.hostKeys))
        let proxyPattern = try NSRegularExpression(pattern: try #require((definitions["proxyURL"] as? [String: Any])?["pattern"] as? String))
        func isProxyURL(_ text: String) -> Bool {
            proxyPattern.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
        }
        for scheme in JobDecoder.proxySchemes {
            #expect(isProxyURL("\(scheme)://proxy.internal:3128") && isProxyURL("\(scheme.uppercased())://[::1]:3128/"), "\(scheme)")
        }
        #expect(!isProxyURL("ftp://proxy.internal:21") && !isProxyURL("socks4://proxy.internal:1080"))

        /// The `enum` of a key's first `anyOf` branch.
        func values(_ property: [String: Any]?) -> [String] {
            ((property?["anyOf"] as? [[String: Any]])?.first?["enum"] as? [String]) ?? []
        }
        #expect(values(cache["layout"]) == CacheLayout.allCases.map(\.rawValue))
        #expect(values(cache["expire_by"]) == ExpiryClock.allCases.map(\.rawValue))
        #expect(values(options["order"]) == QueueOrder.allCases.map(\.rawValue))
        #expect(values(options["refresh"]) == RefreshPolicy.allCases.map(\.rawValue))
        #expect(values(options["validate"]) == ValidationLevel.allCases.map(\.rawValue))
        #expect(values(set["priority"]) == Priority.allCases.map(\.rawValue))
        #expect(values(options["formats"]?["items"] as? [String: Any]) == ImageFormat.allCases.map(\.rawValue))

        // Defaults, read as the decoder reads a value of the same text.
        let builtIn = JobOptions()
        let settings = CacheSettings(path: "")
        func text(_ property: [String: Any]?) -> String { property?["default"].map { "\($0)" } ?? "" }
        #expect(text(options["concurrency"]) == "\(builtIn.concurrency)")
        #expect(text(options["per_host"]) == "\(builtIn.perHost)")
        #expect(text(options["order"]) == builtIn.order.rawValue)
        #expect(try JobValues.duration(text(options["timeout"])) == builtIn.timeout)
        #expect(text(options["retries"]) == "\(builtIn.retries)")
        #expect(options["retry_failed"]?["default"] as? Bool == builtIn.retryFailed)
        #expect(text(options["refresh"]) == builtIn.refresh.rawValue)
        #expect(options["headers"]?["default"] as? [String: String] == builtIn.headers)
        #expect(options["cookies"]?["default"] as? Bool == builtIn.cookies)
        #expect(options["insecure_tls"]?["default"] as? Bool == builtIn.insecureTLS)
        #expect(text(options["validate"]) == builtIn.validate.rawValue)
        #expect(options["formats"]?["default"] as? [String] == builtIn.formats.map(\.rawValue))
        #expect(try JobValues.size(text(options["max_bytes"])) == builtIn.maxBytes)
        #expect(text(options["max_pixels"]) == "\(builtIn.maxPixels)")
        #expect(text(options["max_frames"]) == "\(builtIn.maxFrames)")
        #expect(text(options["max_frame_pixels"]) == "\(builtIn.maxFramePixels)")
        #expect(options["redact_params"]?["default"] as? [String] == builtIn.redactParams)
        let stall = try #require(options["stall"]?["default"] as? [String: Any])
        #expect(try JobValues.size("\(stall["low_speed_limit"] ?? "")") == builtIn.stall.bytesPerSecond)
        #expect(try JobValues.duration("\(stall["low_speed_time"] ?? "")") == builtIn.stall.time)
        #expect(text(options["proxy"]) == "none" && builtIn.proxy == nil)
        #expect(options["no_proxy"]?["default"] as? [String] == builtIn.noProxy)
        #expect((options["connect_to"]?["default"] as? [Any])?.isEmpty == true && builtIn.connectTo.isEmpty)
        #expect(options["ca_file"]?["default"] == nil && builtIn.caFile == nil)
        #expect(options["ca_path"]?["default"] == nil && builtIn.caPath == nil)
        #expect((options["variants"]?["default"] as? [Any])?.isEmpty == true && builtIn.variants.isEmpty)
        #expect(options["keep_original"]?["default"] as? Bool == builtIn.keepOriginal)
        let variant = try properties(options["variants"]?["items"])
        #expect(Set(variant.keys) == Set(JobDecoder.variantKeys))
        #expect(values(variant["format"]) == VariantSpec.Format.allCases.map(\.rawValue))
        #expect(values(variant["fit"]) == VariantSpec.Fit.allCases.map(\.rawValue))
        #expect(text(variant["format"]) == VariantSpec(name: "x", box: .longestSide(1)).format.rawValue)
        #expect(text(variant["quality"]) == "\(VariantSpec(name: "x", box: .longestSide(1)).quality)")
        #expect(text(variant["fit"]) == VariantSpec.Fit.inside.rawValue)
        let sides = ((variant["max_pixel_size"]?["anyOf"] as? [[String: Any]])?.first?["maximum"] as? Int)
        #expect(sides == JobDecoder.maxVariantSide)
        #expect(text(cache["layout"]) == settings.layout.rawValue)
        #expect(try JobValues.size(text(cache["max_size"])) == settings.maxSize)
        #expect(try JobValues.duration(text(cache["max_age"])) == settings.maxAge)
        #expect(text(cache["expire_by"]) == settings.expireBy.rawValue)
        #expect(cache["trim_to"]?["default"] as? Double == settings.trimTo)
        #expect(cache["durable"]?["default"] as? Bool == settings.durable)
        #expect(network["allow_private"]?["default"] as? Bool == NetworkSettings().allowPrivate)
        #expect(text(set["priority"]) == Priority.normal.rawValue)
    }
}

extension String {
    /// This set list as a whole job file of version 1.
    fileprivate var versioned: String { "version: 1\n" + self }
}
