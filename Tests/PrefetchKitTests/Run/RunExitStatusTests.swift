import Foundation
import Testing
@testable import PrefetchKit

/// `prefetchd run` through the real binary: the exit status for each way a run ends, and the limits
/// and environment it starts under.
@Suite(.timeLimit(.minutes(3)))
struct RunExitStatusTests {
    @Test func exitsZeroWhenEveryItemSucceeds() throws {
        let harness = try RunHarness()
        let job = try harness.job(sets: [harness.set("images", ["/count/z1", "/count/z2"])])
        let report = harness.folder.file("report.json").path
        let junit = harness.folder.file("junit.xml").path

        let outcome = try Binary.run(["run", job, "--report", report, "--junit", junit, "--progress", "never"])

        #expect(outcome.status == 0, "\(outcome.stderr)")
        let written = try readReport(report)
        #expect(written.outcome == "completed")
        #expect(written.totals == .expected(requested: 2, unique: 2, fetched: 2, bytes: 2 * harness.png.count))
        #expect(written.failures.isEmpty)
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(xml.contains(#"<testcase classname="job" name="images" time=""#), "\(xml)")
        #expect(xml.contains("<system-out>2 URLs: 2 ok, 0 failed, 0 ledgered, 0 skipped</system-out>"))
        try JUnitSchema.expectValid(junit)
        try harness.expectCache(holds: [harness.url("/count/z1"): harness.png, harness.url("/count/z2"): harness.png])
    }

    @Test func exitsOneWhenAnItemFails() throws {
        let harness = try RunHarness()
        let job = try harness.job(sets: [harness.set("images", ["/ok/fine", "/status/404"])])
        let report = harness.folder.file("report.json").path
        let junit = harness.folder.file("junit.xml").path

        let outcome = try Binary.run(["run", job, "--report", report, "--junit", junit, "--progress", "never"])

        #expect(outcome.status == 1, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("failed \(harness.url("/status/404")) [images]: http_404 (HTTP 404)"))
        let written = try readReport(report)
        #expect(written.totals == .expected(requested: 2, unique: 2, fetched: 1, failed: 1, bytes: harness.png.count))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report))) as? [String: Any])
        let failures = try #require(object["failures"] as? [[String: Any]])
        #expect(failures.count == 1)
        #expect(failures.first?["url"] as? String == harness.url("/status/404"))
        #expect(failures.first?["reason"] as? String == "http_404")
        #expect(failures.first?["http_status"] as? Int == 404)
        #expect(failures.first?["attempts"] as? Int == 1)
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(xml.contains(#"<failure message="1 of 2 URLs failed""#))
        try JUnitSchema.expectValid(junit)
        try harness.expectCache(holds: [harness.url("/ok/fine"): harness.png], without: [harness.url("/status/404")])
    }

    /// A failure other than a status refused is logged with its words, as the report gives them: which check
    /// refused the body, which limit a timeout was.
    @Test func aFailureWithoutAStatusIsLoggedWithItsWords() throws {
        let harness = try RunHarness()
        let job = try harness.job(sets: [harness.set("pages", ["/html-as-jpeg"])])
        let report = harness.folder.file("report.json").path

        let outcome = try Binary.run(["run", job, "--report", report, "--progress", "never"])

        #expect(outcome.status == 1, "\(outcome.stderr)")
        let failure = try #require(try readReport(report).failures.first)
        #expect(failure.reason == "not_image" && !failure.message.isEmpty)
        #expect(outcome.stderr.contains("failed \(harness.url("/html-as-jpeg")) [pages]: \(failure.reason): \(failure.message)\n"),
                "\(outcome.stderr)")
    }

    @Test func exitsTwoForABadJobFileAndFetchesNothing() throws {
        let harness = try RunHarness()
        let good = try harness.job("good", sets: [harness.set("images", ["/count/never"])])
        let bad = try harness.job("bad", defaults: ["colour": "blue"], sets: [harness.set("images", ["/count/never"])])
        let report = harness.folder.file("report.json").path

        let outcome = try Binary.run(["run", good, bad, "--report", report, "--progress", "never"])

        #expect(outcome.status == 2, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("bad.yaml:"))
        #expect(outcome.stderr.contains("colour"))
        #expect(try harness.server.hits("never") == 0)
        #expect(!FileManager.default.fileExists(atPath: harness.cachePath))
        #expect(!FileManager.default.fileExists(atPath: report))
    }

    @Test func aLowOpenFileLimitRunsFewerTransfersAtOnceInsteadOfFailing() throws {
        let harness = try RunHarness()
        // Far more keys in flight than 128 open files hold: 256 at once, and as many again waiting.
        let paths = (0..<300).map { "/slow/50/files?n=\($0)" }
        let job = try harness.job(defaults: ["concurrency": "256", "per_host": "8"], sets: [harness.set("many", paths)])

        let outcome = try Binary.run(["run", job, "--progress", "never"], openFiles: 128)

        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("at most 32 transfers at once: the open-file limit (ulimit -n) is 128"), "\(outcome.stderr)")
        #expect(outcome.stderr.contains(": 300 fetched, 0 cached, 0 revalidated, 0 failed,"), "\(outcome.stderr)")
    }

    @Test func anOpenFileLimitTooLowForOneTransferStopsBeforeTheCacheIsTouched() throws {
        let harness = try RunHarness()
        let job = try harness.job(sets: [harness.set("images", ["/count/never"])])

        let outcome = try Binary.run(["run", job, "--progress", "never"], openFiles: 40)

        #expect(outcome.status == 3, "\(outcome.stderr)")
        #expect(outcome.unstampedStderr == "prefetchd run: the open-file limit (ulimit -n) is 40; a run needs at least 66\n")
        #expect(!FileManager.default.fileExists(atPath: harness.cachePath))
        #expect(try harness.server.hits("never") == 0)
    }

    @Test func anInternationalHostNameIsFetchedUnderTheCLocale() throws {
        // Given a URL whose host is an international name (below `localhost`, which libcurl resolves
        // to the loopback address itself), and a run started with LC_ALL=C, as cron and CI start it
        let harness = try RunHarness()
        let url = "http://bücher.localhost:\(harness.server.port)/ok/idn"
        let job = try harness.job(cache: harness.cachePath, set: "name: idn, urls: [\"\(url)\"]")
        let report = harness.folder.file("report.json").path

        let outcome = try Binary.run(["run", job, "--report", report, "--progress", "never", "--quiet"], environment: ["LC_ALL": "C"])

        // Then it is fetched from the name's ASCII form
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(try readReport(report).totals.fetched == 1)
    }
}
