import Foundation
import Testing
@testable import PrefetchKit

@Suite(.timeLimit(.minutes(3))) struct StatsTests {
    /// A cache that has seen stores, re-stores with other sizes, removals, uses, revalidations and a clean.
    private func busyCache(_ folder: String) throws -> DiskCache {
        let cache = try DiskCache.open(at: folder, layout: .native)
        let keys = try fillCache(cache, count: 40)
        for key in keys.prefix(5) {
            try cache.store(data: pngLikeBody(7, length: 2_000), as: NewEntry(url: key, key: key, setName: "other"))
        }
        for key in keys[5..<10] { try cache.remove(key: key) }
        for key in keys[10..<20] { try cache.touch(key: key, at: Date().addingTimeInterval(5 * 86_400)) }
        try cache.markRevalidated(key: keys[20], etag: "\"v2\"", lastModified: nil)
        let old = Date().addingTimeInterval(-40 * 86_400)
        try setClocks(cache, key: keys[30], fetched: old, modified: old, accessed: old)
        try cache.index.recordFailure(FailureRecord(url: "https://x.example/a.png", key: "a", reason: "HTTP 404", httpStatus: 404))
        try cache.index.recordFailure(FailureRecord(url: "https://x.example/b.png", key: "b", reason: "HTTP 404", httpStatus: 404))
        try cache.index.recordFailure(FailureRecord(url: "https://x.example/c.png", key: "c", reason: "not an image"))
        try cache.index.recordRun(RunRecord(job: "catalog", started: Date(timeIntervalSince1970: 1_700_000_000), duration: 12.5,
                                            totals: ["fetched": 35, "cached": 5, "revalidated": 1, "failed": 3, "ledgered": 2]))
        _ = try CacheCleaner(cache, policy: testPolicy(maxAge: 30 * 86_400)).run()
        try cache.flush()
        return cache
    }

    @Test func entriesAndBytesEqualAFreshScanOfTheFiles() throws {
        try TemporaryDirectory.withPath { folder in
            let cache = try busyCache(folder)
            let files = try scanFiles(cache)
            let stats = try CacheStats.collect(from: cache)
            #expect(stats.entries == files.count)
            #expect(stats.bytes == files.values.reduce(0, +))
            #expect(stats.entries == 34)
        }
    }

    @Test func keptTotalsMatchAGroupByOverTheRows() throws {
        try TemporaryDirectory.withPath { folder in
            let cache = try busyCache(folder)
            var kept: [String: [CacheGroupTotal]] = [:]
            for dimension in IndexTotals.dimensions { kept[dimension] = try cache.index.totals(dimension) }
            try cache.index.withConnection { connection throws(CacheError) in
                try connection.database.execute(IndexTotals.backfill)
            }
            for dimension in IndexTotals.dimensions {
                #expect(try cache.index.totals(dimension) == kept[dimension], "\(dimension) drifted")
            }
            #expect(kept["host"]?.map(\.name).sorted() == ["img0.example.com", "img1.example.com", "img2.example.com"])
            #expect(kept["set"]?.map(\.name).sorted() == ["main"])
        }
    }

    @Test func jsonHasTheFieldsOfTheDesignAndMore() throws {
        try TemporaryDirectory.withPath { folder in
            let cache = try busyCache(folder)
            let stats = try CacheStats.collect(from: cache, overrides: LimitOverrides(maxSize: 1 << 20))
            let parsed = try JSONSerialization.jsonObject(with: Data(StatsFormat.json.render(stats).utf8))
            let object = try #require(parsed as? [String: Any])
            for field in ["cache", "layout", "entries", "bytes", "max_size", "by_format", "by_set", "oldest", "newest",
                          "failures", "last_run", "by_host", "age_by_access", "age_by_fetch", "largest", "runs"] {
                #expect(object[field] != nil, "json lacks \(field)")
            }
            #expect(object["format_version"] as? Int == PrefetchVersion.machineFormat)
            #expect(object["entries"] as? Int == stats.entries)
            #expect((object["bytes"] as? NSNumber)?.int64Value == stats.bytes)
            #expect(object["max_size"] as? Int == 1 << 20)
            #expect((object["failures"] as? [String: Int]) == ["HTTP 404": 2, "not an image": 1])
            #expect((object["failures_by_host"] as? [String: Int]) == ["x.example": 3])
            let clean = try #require(object["last_clean"] as? [String: Any])
            #expect(clean["removed_entries"] as? Int == 1)
            #expect((clean["bytes_before"] as? NSNumber)?.int64Value ?? 0 > (clean["bytes_after"] as? NSNumber)?.int64Value ?? 0)
            let lastRun = try #require(object["last_run"] as? [String: Any])
            #expect(lastRun["job"] as? String == "catalog")
            #expect((lastRun["totals"] as? [String: Int])?["fetched"] == 35)
            let ages = try #require(object["age_by_access"] as? [[String: Any]])
            #expect(ages.compactMap { $0["entries"] as? Int }.reduce(0, +) == stats.entries)
            #expect((object["largest"] as? [[String: Any]])?.first?["bytes"] as? Int == 2_008)
        }
    }

    /// Set names the index holds apart but the reports show alike (a set named `(none)` beside the
    /// entries of no set; `café` composed in one job and decomposed in another) are one group, their
    /// counts added, in every format: JSON keys them by name, and Prometheus would have two series of
    /// one label set.
    @Test func setNamesThatReadAlikeAreOneGroup() throws {
        try TemporaryDirectory.withPath { folder in
            let cache = try DiskCache.open(at: folder, layout: .native)
            let sets: [String?] = ["caf\u{E9}", "cafe\u{301}", "cafe\u{301}", "(none)", nil, "main"]
            for (number, set) in sets.enumerated() {
                let key = "https://x.example/\(number).png"
                try cache.store(data: pngLikeBody(number, length: 100), as: NewEntry(url: key, key: key, setName: set))
            }
            try cache.flush()
            let stats = try CacheStats.collect(from: cache)
            #expect(stats.bySet.map(\.name) == ["caf\u{E9}", "(none)", "main"], "\(stats.bySet)")
            #expect(stats.bySet.map(\.entries) == [3, 2, 1])
            let json = try #require(try JSONSerialization.jsonObject(with: Data(StatsFormat.json.render(stats).utf8)) as? [String: Any])
            let bySet = try #require(json["by_set"] as? [String: Any])
            #expect(bySet.count == 3)
            let prometheus = StatsFormat.prometheus.render(stats).split(separator: "\n").filter { $0.hasPrefix("prefetchd_cache_set_entries{") }
            #expect(prometheus.count == 3 && Set(prometheus.map { $0.split(separator: " ")[0] }).count == 3, "\(prometheus)")
        }
    }

    /// A set name an older cache holds with a control character (job files refuse them now) is shown
    /// escaped in the text table, which cannot then be split or colour the terminal.
    @Test func aControlCharacterInASetNameIsShownEscaped() throws {
        try TemporaryDirectory.withPath { folder in
            let cache = try DiskCache.open(at: folder, layout: .native)
            let key = "https://x.example/a.png"
            try cache.store(data: pngLikeBody(1, length: 100), as: NewEntry(url: key, key: key, setName: "red\u{1B}[31m\nset"))
            try cache.flush()
            let text = StatsFormat.text.render(try CacheStats.collect(from: cache))
            #expect(text.contains("red\\u{1b}[31m\\u{a}set"), "\(text)")
            #expect(!text.contains("\u{1B}"))
        }
    }

    @Test func prometheusLinesParseAndCarryTheTotals() throws {
        try TemporaryDirectory.withPath { folder in
            let cache = try busyCache(folder)
            let stats = try CacheStats.collect(from: cache)
            let text = StatsFormat.prometheus.render(stats)
            var values: [String: Double] = [:]
            var typed: Set<String> = []
            for line in text.split(separator: "\n").map(String.init) {
                if line.hasPrefix("# HELP ") { continue }
                if line.hasPrefix("# TYPE ") {
                    typed.insert(String(line.split(separator: " ")[2]))
                    continue
                }
                let match = try #require(line.wholeMatch(of: /([a-z_]+)\{((?:[a-z_]+="(?:[^"\\]|\\.)*",?)*)\} (-?[0-9.e+]+)/),
                                         "not an exposition line: \(line)")
                let family = String(match.1).replacing(/_(bucket|sum|count)$/, with: "")
                #expect(typed.contains(String(match.1)) || typed.contains(family), "\(match.1) has no TYPE line before it")
                values[String(match.1) + "{" + String(match.2) + "}"] = Double(String(match.3))
            }
            let cacheLabel = "cache=\"\(cache.root)\""
            #expect(values["prefetchd_cache_entries{\(cacheLabel)}"] == Double(stats.entries))
            #expect(values["prefetchd_cache_bytes{\(cacheLabel)}"] == Double(stats.bytes))
            #expect(values["prefetchd_last_run_timestamp_seconds{\(cacheLabel),job=\"catalog\"}"] == 1_700_000_000)
            // (a URL the failure ledger kept from being tried is a result of its own, as in the report)
            #expect(values["prefetchd_last_run_items{\(cacheLabel),job=\"catalog\",result=\"ledgered\"}"] == 2)
            #expect(values["prefetchd_last_run_items{\(cacheLabel),job=\"catalog\",result=\"failed\"}"] == 3)
            #expect(values["prefetchd_failure_ledger_entries{\(cacheLabel),reason=\"HTTP 404\"}"] == 2)
            #expect(values["prefetchd_failure_ledger_host_entries{\(cacheLabel),host=\"x.example\"}"] == 3)
            #expect(values["prefetchd_cache_access_age_seconds_bucket{\(cacheLabel),le=\"+Inf\"}"] == Double(stats.entries))
            #expect(values["prefetchd_cache_fetch_age_seconds_bucket{\(cacheLabel),le=\"3600\"}"] == Double(stats.entries))
            #expect(values["prefetchd_last_clean_removed_entries{\(cacheLabel)}"] == 1)
            #expect(values["prefetchd_cache_info{\(cacheLabel),layout=\"native\",version=\"\(PrefetchVersion.string)\"}"] == 1)
        }
    }

    @Test func htmlIsOneSelfContainedPageWithItsCharts() throws {
        try TemporaryDirectory.withPath { folder in
            let cache = try busyCache(folder)
            let page = StatsFormat.html.render(try CacheStats.collect(from: cache))
            #expect(page.hasPrefix("<!DOCTYPE html>"))
            for chart in ["size-gauge", "by-format", "by-set", "by-host", "age-by-access", "age-by-fetch", "run-urls", "run-bytes",
                          "run-duration", "failures-by-reason", "failures-by-host"] {
                #expect(page.contains("<svg data-chart=\"\(chart)\""), "html lacks the \(chart) chart")
            }
            #expect(page.contains("<dl id=\"last-clean\">"))
            #expect(page.components(separatedBy: "<rect").count > 4)
            #expect(!page.contains("src=") && !page.contains("href=") && !page.contains("<link"))
            #expect(page.hasSuffix("</html>\n"))
        }
    }

    @Test func textTableNamesEverySection() throws {
        try TemporaryDirectory.withPath { folder in
            let cache = try busyCache(folder)
            let stats = try CacheStats.collect(from: cache)
            let text = StatsFormat.text.render(stats)
            #expect(text.contains("entries    \(stats.entries)\n"))
            for section in ["by format", "by set", "by host", "age by last access", "age by fetch time",
                            "largest entries", "failure ledger by reason", "failure ledger by host", "last clean", "last runs"] {
                #expect(text.contains("\n\(section)\n"), "text lacks \(section)")
            }
        }
    }

    @Test func anEmptyCacheSaysNoneUnderEverySection() throws {
        try TemporaryDirectory.withPath { folder in
            let cache = try DiskCache.open(at: folder, layout: .native)
            let text = StatsFormat.text.render(try CacheStats.collect(from: cache))
            for section in ["by format", "by set", "by host", "largest entries", "failure ledger by reason", "failure ledger by host",
                            "last clean"] {
                #expect(text.contains("\n\(section)\n  (none)\n"), "\(section) in: \(text)")
            }
            #expect(text.hasSuffix("job\n  (none)\n"))  // last runs: its column heads, then none
        }
    }

    @Test func outputIsWrittenAtomicallyByTheCommand() throws {
        try TemporaryDirectory.withPath { folder in
            _ = try busyCache(folder)
            let output = folder + "/report.prom"
            let outcome = try Binary.run(["stats", "--cache", folder, "--format", "prometheus", "--output", output])
            #expect(outcome.status == 0)
            #expect(outcome.stdout.isEmpty)
            let written = try String(contentsOfFile: output, encoding: .utf8)
            #expect(written.contains("prefetchd_cache_entries{cache=\"\(folder)\"} 34\n"))
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder).allSatisfy { !$0.hasSuffix(".tmp") })
        }
    }

    @Test func outputToADashOrADeviceGoesThereAndAnEmptyNameIsAUsageError() throws {
        try TemporaryDirectory.withPath { folder in
            _ = try busyCache(folder)
            let dash = try Binary.run(["stats", "--cache", folder, "--format", "prometheus", "--output", "-"])
            #expect(dash.status == 0)
            #expect(dash.stdout.contains("prefetchd_cache_entries{cache=\"\(folder)\"} 34\n"))
            #expect(!FileManager.default.fileExists(atPath: folder + "/-"))

            let device = try Binary.run(["stats", "--cache", folder, "--output", "/dev/null"])
            #expect(device.status == 0)
            var info = stat()
            #expect(stat("/dev/null", &info) == 0 && info.st_mode & S_IFMT == S_IFCHR)

            let empty = try Binary.run(["stats", "--cache", folder, "--output", ""])
            #expect(empty.status == 2)
            #expect(empty.stderr.contains("--output needs a value (FILE)"), "\(empty.stderr)")
        }
    }

    @Test func aJobFileNamesTheCacheAndItsLimits() throws {
        try TemporaryDirectory.withPath { folder in
            let cache = try DiskCache.open(at: folder + "/cache", layout: .native)
            _ = try fillCache(cache, count: 10)
            try cache.flush()
            let total = try cache.index.totalBytes()
            // A cap of half the bytes: clean must trim to 0.5 x cap, the job's own low-water mark.
            let job = folder + "/job.yaml"
            try """
                version: 1
                cache: { path: cache, max_size: \(total / 2), trim_to: 0.5 }
                sets: [{ name: s, urls: ["http://127.0.0.1:9/x.png"] }]
                """.write(toFile: job, atomically: true, encoding: .utf8)

            let stats = try Binary.run(["stats", "job.yaml", "--format", "json"], in: URL(fileURLWithPath: folder))
            #expect(stats.status == 0)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any])
            #expect(object["max_size"] as? Int == Int(total / 2))
            #expect(object["entries"] as? Int == 10)

            let clean = try Binary.run(["clean", "job.yaml"], in: URL(fileURLWithPath: folder))
            #expect(clean.status == 0)
            let reopened = try DiskCache.open(at: folder + "/cache", layout: .native)
            #expect(try reopened.index.totalBytes() <= total / 4)
        }
    }

    @Test func commandsRefuseABadJobFileAndAMissingCache() throws {
        try TemporaryDirectory.withPath { folder in
            try "version: 1\nsets: 3\n".write(toFile: folder + "/bad.yaml", atomically: true, encoding: .utf8)
            let job = try Binary.run(["clean", "bad.yaml"], in: URL(fileURLWithPath: folder))
            #expect(job.status == 2)
            #expect(job.stderr.contains("bad.yaml:2:7: sets: expected a list"))
        }
        let missing = try Binary.run(["stats", "--cache", "/nonexistent/prefetchd-cache"])
        #expect(missing.status == 3)
        #expect(missing.stderr.contains("prefetchd stats: no cache at /nonexistent/prefetchd-cache\n"))
    }
}
