import Foundation
import Testing
@testable import PrefetchKit

@Suite struct JobFileTests {
    static let designExample = """
        version: 1
        name: catalog
        cache:
          path: ${PREFETCHD_CACHE_DIR:-.prefetchd-cache}
          layout: sdwebimage
          max_size: 2GiB
          max_age: 7d
          expire_by: modification
          trim_to: 0.5
          durable: true
        defaults:
          concurrency: 32
          per_host: 4
          order: lifo
          timeout: 500ms
          retries: 5
          retry_failed: true
          refresh: stale
          headers: { Accept: "image/webp", X-Shop: "${SHOP:-none}" }
          credentials: { username: shop, password_env: SHOP_PASSWORD }
          cookies: true
          insecure_tls: true
          validate: header
          formats: [jpeg, png, avif, jxl]
          max_bytes: 5MB
          max_pixels: 1000000
          max_frames: 50
          max_frame_pixels: 20000000
          cache_key: { drop_params: [sig, token] }
        network:
          allow_private: false
          allow_hosts: ["cdn.example.com", "*.img.example.com"]
          deny_hosts: [bad.example.com]
        sets:
          - name: hero
            priority: high
            urls: [ "https://cdn.example.com/banners/1.jpg", "http://cdn.example.com/banners/2.jpg" ]
          - name: catalog
            priority: low
            url_file: urls/catalog.txt
          - name: thumbs
            url_pattern: "https://cdn.example.com/t/[1-50000].jpg"
        """

    @Test func readsEveryKeyOfTheDesignExample() throws {
        let folder = try TemporaryDirectory()
        try folder.write("urls/catalog.txt", "# catalog\n\nhttps://cdn.example.com/a.jpg\n  https://cdn.example.com/b.jpg  \n")
        let job = try folder.load(Self.designExample, environment: ["SHOP_PASSWORD": "hunter2", "SHOP": "s1"])

        #expect(job.name == "catalog")
        #expect(job.cache.path == "\(folder.path)/.prefetchd-cache")
        #expect(job.cache.layout == .sdwebimage)
        #expect(job.cache.maxSize == 2 << 30)
        #expect(job.cache.maxAge == .seconds(7 * 86_400))
        #expect(job.cache.expireBy == .modification)
        #expect(job.cache.trimTo == 0.5)
        #expect(job.cache.durable)

        let options = try #require(job.sets.first).options
        #expect(options.concurrency == 32)
        #expect(options.perHost == 4)
        #expect(options.order == .lifo)
        #expect(options.timeout == .milliseconds(500))
        #expect(options.retries == 5)
        #expect(options.retryFailed)
        #expect(options.refresh == .stale)
        #expect(options.headers == ["Accept": "image/webp", "X-Shop": "s1"])
        #expect(options.credentials == CredentialSettings(username: "shop", passwordSource: .environment("SHOP_PASSWORD"), password: "hunter2"))
        #expect(options.cookies)
        #expect(options.insecureTLS)
        #expect(options.validate == .header)
        #expect(options.formats == [.jpeg, .png, .avif, .jxl])
        #expect(options.maxBytes == 5_000_000)
        #expect(options.maxPixels == 1_000_000)
        #expect(options.maxFrames == 50 && options.maxFramePixels == 20_000_000)
        #expect(options.cacheKey == .dropParams(["sig", "token"]))

        #expect(job.network.allowPrivate == false)
        #expect(job.network.allowHosts == ["cdn.example.com", "*.img.example.com"])
        #expect(job.network.denyHosts == ["bad.example.com"])

        #expect(job.sets.map(\.name) == ["hero", "catalog", "thumbs"])
        #expect(job.sets.map(\.priority) == [.high, .low, .normal])
        #expect(Array(job.sets[0].urls) == ["https://cdn.example.com/banners/1.jpg", "http://cdn.example.com/banners/2.jpg"])
        #expect(Array(job.sets[1].urls) == ["https://cdn.example.com/a.jpg", "https://cdn.example.com/b.jpg"])
        #expect(job.sets[1].urls.kind == .file(path: "\(folder.path)/urls/catalog.txt"))
        #expect(job.sets[2].urls.count == 50_000)
        #expect(job.urlCount == 50_004)
    }

    @Test func withoutACachePathTheCacheFolderVariableIsTheDefault() throws {
        let folder = try TemporaryDirectory()
        let text = "version: 1\nsets:\n  - name: a\n    urls: [\"https://x.example/1.png\"]\n"
        #expect(try folder.load(text, environment: ["PREFETCHD_CACHE_DIR": "shared-cache"]).cache.path
            == "\(folder.path)/shared-cache")
        #expect(try folder.load(text, environment: ["PREFETCHD_CACHE_DIR": ""]).cache.path == "\(folder.path)/.prefetchd-cache")
        // A cache.path of the job's own wins
        let own = "version: 1\ncache: { path: mine }\nsets:\n  - name: a\n    urls: [\"https://x.example/1.png\"]\n"
        #expect(try folder.load(own, environment: ["PREFETCHD_CACHE_DIR": "shared-cache"]).cache.path == "\(folder.path)/mine")
    }

    @Test func fillsBuiltInDefaultsForAbsentKeys() throws {
        let folder = try TemporaryDirectory()
        let job = try folder.load("version: 1\nsets:\n  - name: a\n    urls: [\"https://x.example/1.png\"]\n")

        #expect(job.name == "job")
        #expect(job.cache == CacheSettings(path: "\(folder.path)/.prefetchd-cache"))
        #expect(job.cache.layout == .native && job.cache.maxSize == 0 && job.cache.maxAge == .seconds(604_800))
        #expect(job.cache.expireBy == .access && job.cache.trimTo == 0.8 && job.cache.durable == false)
        #expect(job.network == NetworkSettings())
        #expect(job.network.allowPrivate && job.network.allowHosts.isEmpty && job.network.denyHosts.isEmpty)
        let set = try #require(job.sets.first)
        #expect(set.priority == .normal)
        let options = set.options
        #expect(options.concurrency == 16 && options.perHost == 6 && options.order == .fifo)
        #expect(options.timeout == .seconds(15) && options.retries == 2 && options.retryFailed == false)
        #expect(options.refresh == .never && options.headers == ["Accept": "image/*,*/*;q=0.8"])
        #expect(options.credentials == nil && options.cookies == false && options.insecureTLS == false)
        #expect(options.validate == .decode && options.formats == [.jpeg, .png, .gif, .webp, .avif, .jxl])
        #expect(options.maxBytes == 20 * 1024 * 1024 && options.maxPixels == 89_478_485 && options.cacheKey == .none)
        #expect(options.maxFrames == 1_000 && options.maxFramePixels == 1_000_000_000)
    }

    @Test func aSetOverridesEveryDefaultKey() throws {
        let folder = try TemporaryDirectory()
        let job = try folder.load("""
            version: 1
            defaults:
              headers: { Accept: "image/png", X-Trace: "1" }
              cache_key: { drop_params: [sig] }
            sets:
              - name: plain
                urls: ["https://x.example/1.png"]
              - name: custom
                concurrency: 8
                per_host: 2
                order: lifo
                timeout: 2m
                retries: 0
                retry_failed: true
                refresh: always
                headers: { accept: "image/jpeg", X-Extra: "yes" }
                credentials: { username: u, password_env: PW }
                cookies: true
                insecure_tls: true
                validate: sniff
                formats: [webp, gif, webp]
                max_bytes: 512KiB
                max_pixels: 4096
                max_frames: 3
                max_frame_pixels: 9000
                cache_key: { strip_query: true }
                url_pattern: "https://x.example/[a-c].gif"
            """, environment: ["PW": "secret"])

        let plain = job.sets[0].options
        #expect(plain.headers == ["Accept": "image/png", "X-Trace": "1"])
        #expect(plain.cacheKey == .dropParams(["sig"]))
        #expect(plain.concurrency == 16)

        var expected = JobOptions()
        expected.concurrency = 8
        expected.perHost = 2
        expected.order = .lifo
        expected.timeout = .seconds(120)
        expected.retries = 0
        expected.retryFailed = true
        expected.refresh = .always
        expected.headers = ["accept": "image/jpeg", "X-Trace": "1", "X-Extra": "yes"]
        expected.credentials = CredentialSettings(username: "u", passwordSource: .environment("PW"), password: "secret")
        expected.cookies = true
        expected.insecureTLS = true
        expected.validate = .sniff
        expected.formats = [.webp, .gif]
        expected.maxBytes = 512 * 1024
        expected.maxPixels = 4096
        expected.maxFrames = 3
        expected.maxFramePixels = 9000
        expected.cacheKey = .stripQuery
        #expect(job.sets[1].options == expected)
        #expect(Array(job.sets[1].urls) == ["https://x.example/a.gif", "https://x.example/b.gif", "https://x.example/c.gif"])
    }

    @Test func perHostFollowsASmallerConcurrencyWhenNotWritten() throws {
        let folder = try TemporaryDirectory()
        let job = try folder.load("""
            version: 1
            sets:
              - { name: a, concurrency: 3, urls: ["https://x.example/1.png"] }
            """)
        #expect(job.sets[0].options.perHost == 3)
    }

    @Test func absoluteCachePathIsKeptAndEnvironmentExpands() throws {
        let folder = try TemporaryDirectory()
        let job = try folder.load("""
            version: 1
            name: ${JOB_NAME}
            cache: { path: "${CACHE_ROOT}/c" }
            sets:
              - name: a
                urls: ["https://${HOST:-img.example}/1.png"]
            """, environment: ["JOB_NAME": "nightly", "CACHE_ROOT": "/var/cache/prefetchd"])
        #expect(job.name == "nightly")
        #expect(job.cache.path == "/var/cache/prefetchd/c")
        #expect(Array(job.sets[0].urls) == ["https://img.example/1.png"])
    }

    @Test func checkSummarisesSetsURLsAndCache() throws {
        let folder = try TemporaryDirectory()
        try folder.write("list.txt", "https://x.example/a.png\nhttps://x.example/b.png\n")
        let file = try folder.write("shop.yaml", """
            version: 1
            cache: { path: /tmp/shop-cache }
            sets:
              - { name: a, url_file: list.txt }
              - { name: b, url_pattern: "https://x.example/{a,b,c}/[01-10].png" }
            """).path
        let summary = try JobFile.check(path: file, environment: [:])
        #expect(summary.setCount == 2)
        #expect(summary.urlCount == 32)
        #expect(summary.name == "shop")
        #expect(summary.description == "\(file): ok — 2 sets, 32 URLs, 32 unique keys, cache /tmp/shop-cache")
    }
}

/// `resume_max_age` and `refresh: http`, read as every set option is: defaults, inherited, overridden.
@Suite struct JobFileResumeAndFreshnessTests {
    @Test func resumeMaxAgeAndRefreshHttpAreInheritedAndOverridden() throws {
        let folder = try TemporaryDirectory()
        let job = try folder.load("""
            version: 1
            defaults: { resume_max_age: 6h, refresh: http }
            sets:
              - { name: inherits, urls: ["https://x.example/a.png"] }
              - { name: overrides, resume_max_age: 0, refresh: stale, urls: ["https://x.example/b.png"] }
            """)
        #expect(job.sets[0].options.resumeMaxAge == .seconds(6 * 3600))
        #expect(job.sets[0].options.refresh == .http)
        #expect(job.sets[1].options.resumeMaxAge == .zero)
        #expect(job.sets[1].options.refresh == .stale)
    }

    @Test func theBuiltInResumeMaxAgeIsOneDay() throws {
        let folder = try TemporaryDirectory()
        let job = try folder.load("""
            version: 1
            sets:
              - { name: a, urls: ["https://x.example/a.png"] }
            """)
        #expect(job.sets[0].options.resumeMaxAge == .seconds(86_400))
        #expect(JobOptions().resumeMaxAge == .seconds(86_400))
    }

    @Test func badValuesNameTheirPlace() throws {
        let folder = try TemporaryDirectory()
        let diagnostics = try folder.diagnostics("""
            version: 1
            defaults: { resume_max_age: soon }
            sets:
              - { name: a, resume_max_age: -1d, refresh: http2, urls: ["https://x.example/a.png"] }
              - { name: b, resume_maxage: 1d, urls: ["https://x.example/b.png"] }
            """)
        expectDiagnostic(diagnostics, line: 2, column: 29, keyPath: "defaults.resume_max_age", contains: "`soon` is not a duration")
        expectDiagnostic(diagnostics, line: 4, column: 32, keyPath: "sets[0].resume_max_age", contains: "duration `-1d` is negative")
        expectDiagnostic(diagnostics, line: 4, column: 46, keyPath: "sets[0].refresh", contains: "use one of never, stale, always, http")
        expectDiagnostic(diagnostics, line: 5, column: 16, keyPath: "sets[1].resume_maxage", contains: "did you mean `resume_max_age`?")
    }
}
