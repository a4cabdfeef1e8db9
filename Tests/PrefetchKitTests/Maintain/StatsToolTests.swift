import Foundation
import Testing
@testable import PrefetchKit

/// Each of three caches (empty, small from real runs, 100,000 entries) through `prefetchd stats`: its
/// HTML page loaded in headless chromium (no console message, nothing loaded from outside, each chart
/// with one mark per group, bucket or run it shows as counted from the index with SQLite, "(none)"
/// where a section has nothing) and its Prometheus export checked by `promtool check metrics`. With
/// `PREFETCHD_STATS_SHOTS` set to a folder, the pages' screenshots are kept there as page-NAME.png.
@Suite(.serialized, .timeLimit(.minutes(6))) struct StatsToolTests {
    @Test func anEmptyCache() throws {
        let folder = try TemporaryDirectory()
        let page = try expectRenderings(of: try StatsCaches.empty(in: folder), named: "empty", cap: 0, in: folder)
        #expect(page.sections.filter(\.none).count == 11, "\(page.sections)")
    }

    @Test func aSmallCacheOfRealRuns() throws {
        let folder = try TemporaryDirectory()
        let page = try expectRenderings(of: try StatsCaches.small(in: folder), named: "small", cap: 300, in: folder)
        let sets = try #require(page.charts["by-set"]?.names)
        #expect(sets.contains("catalog <script>alert(1)</script>\u{2401}\u{2421}"), "\(sets)")
        #expect(sets.contains(StatsCaches.longSet))
        #expect(page.charts["size-gauge"]?.state == "over")
        #expect(page.sections.first { $0.title == "Last clean" }?.none == false)
    }

    @Test func aCacheOfAHundredThousandEntries() throws {
        let folder = try TemporaryDirectory()
        let cache = try StatsCaches.large(in: folder)
        let started = ContinuousClock.now
        _ = try expectRenderings(of: cache, named: "100k", cap: 0, in: folder)
        print("stats page and export of 100,000 entries, rendered and checked in \(ContinuousClock.now - started)")
    }

    /// The browser check itself: a page that logs to the console, throws, and loads an image is seen to.
    @Test func theBrowserCheckSeesConsoleMessagesAndLoads() throws {
        let folder = try TemporaryDirectory()
        let html = try folder.write("noisy.html", """
            <!DOCTYPE html><html><body><section class="card"><h2>Noisy</h2><p class="none">(none)</p></section>
            <script>console.error("logged"); notDefined();</script><img src="data:,"></body></html>
            """).path
        let page = try HeadlessChromium.load(html)
        #expect(page.console.contains { $0.contains("logged") }, "\(page.console)")
        #expect(page.console.contains { $0.contains("notDefined") }, "\(page.console)")
        #expect(page.loads == ["script", "img"])
        #expect(page.sections.first?.title == "Noisy" && page.sections.first?.none == true)
    }

    /// Renders `cache`'s page and export with the built prefetchd and checks both in the real tools.
    private func expectRenderings(of cache: String, named name: String, cap: Int64, in folder: TemporaryDirectory) throws
        -> HeadlessChromium.Page
    {
        let counts = try IndexCounts(cache: cache)
        let html = folder.path + "/page-\(name).html"
        let rendered = try Binary.run(["stats", "--cache", cache, "--format", "html", "--output", html])
        try #require(rendered.status == 0, "\(rendered.stderr)")
        let shots = ProcessInfo.processInfo.environment["PREFETCHD_STATS_SHOTS"] ?? folder.path
        let shot = shots + "/page-\(name).png"
        let page = try HeadlessChromium.load(html, screenshot: shot)
        #expect(page.console.isEmpty, "console: \(page.console)")
        #expect(page.loads.isEmpty, "the page loads \(page.loads)")
        #expect(FileManager.default.contents(atPath: shot)?.starts(with: [0x89, 0x50, 0x4E, 0x47]) == true, "no PNG at \(shot)")
        expectMarks(page, counts)
        let state = cap == 0 ? "none" : counts.bytes > cap ? "over" : counts.bytes * 10 > cap * 9 ? "near" : "ok"
        #expect(page.charts["size-gauge"]?.state == state)

        let export = try Binary.run(["stats", "--cache", cache, "--format", "prometheus"])
        try #require(export.status == 0, "\(export.stderr)")
        try Promtool.expectClean(export.stdout)
        let samples = PrometheusSamples(export.stdout)
        #expect(samples.total("prefetchd_cache_entries") == Double(counts.entries))
        #expect(samples.total("prefetchd_cache_bytes") == Double(counts.bytes))
        #expect(samples.total("prefetchd_cache_access_age_seconds_count") == Double(counts.entries))
        #expect(samples.total("prefetchd_failure_ledger_entries") == Double(counts.failures))
        #expect(samples.total("prefetchd_last_run_timestamp_seconds") > 0 || counts.runs == 0)
        return page
    }

    /// Each section's charts and their marks against the index's own counts; "(none)" where nothing is.
    private func expectMarks(_ page: HeadlessChromium.Page, _ counts: IndexCounts) {
        let shown = StatsHTML.shownGroups
        let ages = counts.entries > 0 ? 6 : 0
        let expected: [(section: String, charts: [String], marks: Int)] = [
            ("Size against the cap", ["size-gauge"], 1),
            ("By format", ["by-format"], min(shown, counts.formats)),
            ("By set", ["by-set"], min(shown, counts.sets.count)),
            ("By host", ["by-host"], min(shown, counts.hosts)),
            ("Age by last access", ["age-by-access"], ages),
            ("Age by first fetch", ["age-by-fetch"], ages),
            ("Run history", ["run-urls", "run-bytes", "run-duration"], min(10, counts.runs)),
            ("Failure ledger by reason", ["failures-by-reason"], min(shown, counts.failureReasons)),
            ("Failure ledger by host", ["failures-by-host"], min(shown, counts.failureHosts)),
        ]
        for row in expected {
            let section = page.sections.first { $0.title == row.section }
            #expect(section != nil, "no section \(row.section)")
            #expect(section?.charts == (row.marks > 0 ? row.charts : []), "\(row.section): \(section?.charts ?? [])")
            #expect(section?.none == (row.marks == 0), "\(row.section) says (none): \(section?.none ?? false)")
            for chart in row.charts where row.marks > 0 {
                #expect(page.charts[chart]?.marks == row.marks, "\(chart): \(page.charts[chart]?.marks ?? -1) marks, not \(row.marks)")
            }
        }
        #expect(page.sections.first { $0.title == "Largest entries" }?.none == (counts.entries == 0))
    }
}
