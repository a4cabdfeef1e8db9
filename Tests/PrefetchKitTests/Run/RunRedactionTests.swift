import Foundation
import Testing
@testable import PrefetchKit

/// A signed URL's secret is shown nowhere; its cache key keeps it.
@Suite(.timeLimit(.minutes(3))) struct RunRedactionTests {
    @Test func theValuesOfHiddenParametersAreShownAsStars() {
        let url = "https://shop:pw@cdn.test/a.jpg?w=100&token=abc&X-Amz-Signature=dead&Sig=1&plain#frag"
        #expect(URLRedaction.shown(url, hiding: URLRedaction.commonSecrets)
            == "https://shop:***@cdn.test/a.jpg?w=100&token=***&X-Amz-Signature=***&Sig=***&plain#frag")
        #expect(URLRedaction.shown("https://cdn.test/a.jpg?w=1", hiding: URLRedaction.commonSecrets) == "https://cdn.test/a.jpg?w=1")
        #expect(URLRedaction.shown("https://cdn.test/a.jpg?token=abc", hiding: []) == "https://cdn.test/a.jpg?token=abc")
        #expect(URLRedaction.keyed(url) == "https://shop:***@cdn.test/a.jpg?w=100&token=abc&X-Amz-Signature=dead&Sig=1&plain#frag")
    }

    @Test func urlsThatDifferOnlyInATokenStayTwoEntries() throws {
        let folder = try TemporaryDirectory()
        let transport = ScriptedTransport { _ in .body(SchedulerTests.png) }
        let outcome = try SchedulerTests.run(folder, sets: """
              - { name: s, urls: ["http://img.test/a.png?token=one", "http://img.test/a.png?token=two"] }
            """, transport: transport)
        #expect(transport.submitted.withLock { $0 } == ["http://img.test/a.png?token=one", "http://img.test/a.png?token=two"])
        #expect(outcome.report.totals.fetched == 2)
        let cache = try DiskCache.open(at: folder.path + "/cache", layout: .native)
        #expect(Set(try cache.index.allEntries().compactMap(\.key)) == ["http://img.test/a.png?token=one", "http://img.test/a.png?token=two"])
        #expect(Set(try cache.index.allEntries().compactMap(\.url)) == ["http://img.test/a.png?token=***"])
    }

    @Test func noOutputOfARunOrOfTheCommandsAfterItShowsTheSecrets() throws {
        // Given a job whose URLs carry secrets in the default parameters and in one of its own
        let harness = try RunHarness()
        let job = try harness.job(defaults: ["redact_params": "[session, token, x-amz-signature]"], sets: [
            harness.set("images", ["/ok/a?token=s3cr3tA&w=1", "/status/404?X-Amz-Signature=s3cr3tB", "/ok/b?session=s3cr3tC"]),
        ])
        let report = harness.folder.path + "/report.json"
        let junit = harness.folder.path + "/junit.xml"

        // When it runs, and every command looks at the cache
        let run = try Binary.run(["run", job, "--report", report, "--junit", junit, "--log-format", "json", "--verbose",
                                  "--progress", "never"])
        let dryRun = try Binary.run(["run", job, "--dry-run"])
        let outputs = [
            run, dryRun,
            try Binary.run(["stats", job, "--format", "json"]), try Binary.run(["stats", job]),
            try Binary.run(["verify", job]),
            try Binary.run(["path", harness.url("/ok/a?token=s3cr3tA&w=1"), "--cache", harness.cachePath]),
            try Binary.run(["path", harness.url("/ok/z?token=s3cr3tD"), "--cache", harness.cachePath]),
        ]

        // Then no output, report, JUnit file or shown column of the index holds a secret
        #expect(run.status == 1, "\(run.stderr)")
        #expect(outputs[5].status == 0 && outputs[6].status == 1)
        var texts = outputs.flatMap { [$0.stdout, $0.stderr] }
        texts.append(try String(contentsOfFile: report, encoding: .utf8))
        texts.append(try String(contentsOfFile: junit, encoding: .utf8))
        let cache = try DiskCache.open(at: harness.cachePath, layout: .native)
        texts += try cache.index.allEntries().compactMap(\.url)
        let ledger = try #require(try cache.index.failure(forKey: harness.url("/status/404?X-Amz-Signature=s3cr3tB")))
        texts.append(ledger.url)
        for text in texts {
            #expect(!text.contains("s3cr3t"), "\(text)")
        }
        #expect(texts.joined().contains("token=***&w=1"))
        #expect(texts.joined().contains("X-Amz-Signature=***"))
        #expect(texts.joined().contains("session=***"))
    }
}
