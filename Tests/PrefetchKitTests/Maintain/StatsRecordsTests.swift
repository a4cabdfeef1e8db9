import Foundation
import Testing
@testable import PrefetchKit

/// What the index keeps for `stats` beyond its entries: the last clean and the last run's outcome,
/// and what the renderings make of them and of hostile names.
@Suite(.timeLimit(.minutes(2))) struct StatsRecordsTests {
    @Test func aCleanIsRecordedAndADryRunIsNot() throws {
        try TemporaryDirectory.withPath { folder in
            let cache = try DiskCache.open(at: folder, layout: .native)
            let keys = try fillCache(cache, count: 6)
            let old = Date().addingTimeInterval(-40 * 86_400)
            for key in keys.prefix(2) { try setClocks(cache, key: key, fetched: old, modified: old, accessed: old) }
            _ = try CacheCleaner(cache, policy: testPolicy(maxAge: 30 * 86_400)).run(dryRun: true)
            #expect(try cache.index.lastClean() == nil)

            let report = try CacheCleaner(cache, policy: testPolicy(maxAge: 30 * 86_400)).run()
            let clean = try #require(try cache.index.lastClean())
            #expect(clean.removedEntries == 2 && clean.expiredEntries == 2 && clean.trimmedEntries == 0)
            #expect(clean.freedBytes == report.expired.bytes && clean.bytesAfter == report.bytesAfter)
            #expect(abs(clean.finished.timeIntervalSinceNow) < 60)
            #expect(try CacheStats.collect(from: cache).lastClean == clean)
        }
    }

    /// Durations are given to the millisecond, the clean's as the run's, in JSON and in Prometheus.
    @Test func durationsAreToTheMillisecond() throws {
        try TemporaryDirectory.withPath { folder in
            let cache = try DiskCache.open(at: folder, layout: .native)
            _ = try fillCache(cache, count: 1)
            try cache.index.recordRun(RunRecord(job: "a", started: Date(timeIntervalSince1970: 1_700_000_000), duration: 1.23456789, totals: [:]))
            _ = try CacheCleaner(cache, policy: testPolicy()).run()
            try cache.flush()
            let stats = try CacheStats.collect(from: cache)
            let clean = try #require(stats.lastClean)
            let json = try #require(try JSONSerialization.jsonObject(with: Data(StatsFormat.json.render(stats).utf8)) as? [String: Any])
            let lastClean = try #require(json["last_clean"] as? [String: Any])
            #expect(lastClean["duration_s"] as? Double == (clean.duration * 1000).rounded() / 1000)
            let export = StatsFormat.prometheus.render(stats).split(separator: "\n")
            let run = try #require(export.first { $0.hasPrefix("prefetchd_last_run_duration_seconds{") })
            #expect(run.hasSuffix(" 1.235"), "\(run)")
            let cleaned = try #require(export.first { $0.hasPrefix("prefetchd_last_clean_duration_seconds{") })
            let value = try #require(Double(String(cleaned.split(separator: " ").last ?? "")))
            #expect(value == (clean.duration * 1000).rounded() / 1000, "\(cleaned)")
        }
    }

    @Test func anOutcomeBelongsToItsOwnRunOnly() throws {
        try TemporaryDirectory.withPath { folder in
            let index = try DiskCache.open(at: folder, layout: .native).index
            let start = Date(timeIntervalSince1970: 1_700_000_000)
            try index.recordRun(RunRecord(job: "a", started: start, duration: 1, totals: ["fetched": 1], outcome: "interrupted"))
            #expect(try index.lastRun()?.outcome == "interrupted")
            // As an earlier version records a run: without an outcome.
            try index.recordRun(RunRecord(job: "b", started: start.addingTimeInterval(60), duration: 1, totals: [:]))
            #expect(try index.recentRuns(limit: 2).map(\.outcome) == [nil, "interrupted"])
        }
    }

    @Test func everyRenderingEscapesAHostileSetNameAndThePageWarnsPastTheCap() throws {
        try TemporaryDirectory.withPath { folder in
            let cache = try DiskCache.open(at: folder, layout: .native)
            let hostile = "<script>alert(\"x\")</script>&\u{1}\u{7F}\n"
            _ = try fillCache(cache, count: 4, set: hostile)
            try cache.flush()
            let stats = try CacheStats.collect(from: cache, overrides: LimitOverrides(maxSize: 900))
            let page = StatsFormat.html.render(stats)
            #expect(!page.contains("<script"))
            #expect(page.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;\u{2401}\u{2421}\u{240A}"))
            #expect(!page.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
            #expect(page.contains("data-state=\"over\"") && page.contains("role=\"alert\""))
            #expect(page.contains(">\(String(format: "%.1f%%", Double(stats.bytes) * 100 / 900))</text>"))
            #expect(!page.contains("bytes bytes") && !page.contains("B bytes"))
            let export = StatsFormat.prometheus.render(stats)
            #expect(export.contains("set=\"<script>alert(\\\"x\\\")</script>&\u{1}\u{7F}\\n\""))
        }
    }

    @Test func aLongNameIsCutWithAnEllipsisAndWholeInItsTooltip() {
        let name = String(repeating: "long-set-name-", count: 6)
        let bars = SVGChart.bars("by-set", [SVGChart.Mark(label: name, values: [1, 2], shown: "1 entry, 2 B", tip: "\(name): 1 entry, 2 B")],
                                 series: ["entries", "bytes"])
        #expect(bars.contains("data-name=\"\(name)\""))
        #expect(bars.contains("<title>\(name): 1 entry, 2 B</title>"))
        #expect(bars.contains(">\(name.prefix(25))\u{2026}</text>"))
    }
}
