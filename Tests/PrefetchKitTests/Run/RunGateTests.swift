import Foundation
import Testing
@testable import PrefetchKit

/// `prefetchd run` as a CI warm-cache gate, through the real binary: `run` then `verify`, and an exit
/// status the gate can trust on a rerun (the failure ledger's skips fail it; --shard and --dry-run
/// skips do not).
@Suite(.timeLimit(.minutes(3)))
struct RunGateTests {
    @Test func aGoneURLFailsEveryRunAndVerifyAndTheJUnitCasesKeepTheirNames() throws {
        // Given a job with two sound URLs and one that answers 404
        let harness = try RunHarness()
        let gone = harness.url("/missing/gate")
        let job = try harness.job(sets: [harness.set("hero", ["/ok/g1"]), harness.set("catalog", ["/ok/g2", "/missing/gate"])])
        var names: [[String]] = []

        // When the CI recipe runs twice, each time `run` then `verify`
        for round in 1...2 {
            let report = harness.folder.file("report\(round).json").path
            let junit = harness.folder.file("junit\(round).xml").path
            let run = try Binary.run(["run", job, "--report", report, "--junit", junit, "--progress", "never"])

            // Then both runs exit 1: the first for the 404, the second for the ledger's skip of it
            #expect(run.status == 1, "run \(round): \(run.stderr)")
            let written = try readReport(report)
            let failure = try #require(written.failures.first, "run \(round): no failure listed")
            #expect(written.failures.count == 1)
            #expect([failure.url, failure.set, failure.reason] == [gone, "catalog", "http_404"])
            if round == 1 {
                #expect(written.totals == .expected(requested: 3, unique: 3, fetched: 2, failed: 1, bytes: 2 * harness.png.count))
                #expect(failure.ledgered == nil && failure.nextRetry == nil)
            } else {
                #expect(written.totals == .expected(requested: 3, unique: 3, cached: 2, ledgered: 1))
                #expect(run.stderr.contains("0 failed, 1 ledgered, 0 skipped"), "\(run.stderr)")
                try expectLedgered(report: report, url: gone, harness: harness)
                // and its log names the URL the ledger kept, as a failure, also in a quiet JSON log
                #expect(run.stderr.contains("prefetchd: ledgered \(gone) [catalog]: failed as http_404 (HTTP 404) at "), "\(run.stderr)")
                let quiet = try Binary.run(["run", job, "--quiet", "--log-format", "json", "--progress", "never"])
                let events = quiet.stderr.split(separator: "\n").compactMap {
                    try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
                }
                #expect(events.map { $0["event"] as? String } == ["ledgered", "summary"], "\(quiet.stderr)")
                #expect(events.first?["url"] as? String == gone && events.first?["reason"] as? String == "http_404"
                        && events.first?["status"] as? Int == 404, "\(quiet.stderr)")
            }
            // and each JUnit file is valid, its catalog case failed, with the same case names each time
            try JUnitSchema.expectValid(junit)
            let xml = try String(contentsOfFile: junit, encoding: .utf8)
            #expect(xml.contains(#"failures="1""#) && xml.contains("\(gone): http_404 (HTTP 404)"), "\(xml)")
            names.append(caseNames(xml))

            // and verify exits 1, naming the missing URL
            let verify = try Binary.run(["verify", job])
            #expect(verify.status == 1, "\(verify.stderr)")
            #expect(verify.stdout == "missing \(gone)\n", "\(verify.stdout)")
        }
        #expect(names[0] == ["job/hero", "job/catalog"])
        #expect(names[1] == names[0])
        #expect(try harness.server.hits("gate") == 1)
    }

    @Test func skipsByShardOrDryRunDoNotFailTheRun() throws {
        // Given a job of fresh URLs, and a gone one the ledger holds
        let harness = try RunHarness()
        let fresh = (1...6).map { "/ok/s\($0)" }
        let gone = harness.url("/missing/shard")
        _ = try harness.run([harness.job("first", sets: [harness.set("images", ["/missing/shard"])])])
        let job = try harness.job(sets: [harness.set("images", fresh + ["/missing/shard"])])

        // When a dry run looks at it, with the gone URL outside its shard, and then with it inside
        let outside = try #require((1...2).compactMap { Shard("\($0)/2") }.first { !$0.contains(key: gone) })
        let inside = try #require((1...2).compactMap { Shard("\($0)/2") }.first { $0.contains(key: gone) })
        let report = harness.folder.file("report.json").path
        let dryOutside = try Binary.run(["run", job, "--dry-run", "--shard", "\(outside.index)/2", "--report", report])

        // Then skips by shard and by dry run leave it at exit 0
        #expect(dryOutside.status == 0, "\(dryOutside.stderr)")
        let totals = try readReport(report).totals
        #expect(totals.skipped == 7 && totals.ledgered == 0 && totals.failed == 0, "\(totals)")

        // and a real run of that shard fetches its share and exits 0 too
        let shardRun = try Binary.run(["run", job, "--shard", "\(outside.index)/2", "--report", report, "--progress", "never"])
        #expect(shardRun.status == 0, "\(shardRun.stderr)")
        let shardTotals = try readReport(report).totals
        #expect(shardTotals.fetched > 0 && shardTotals.fetched + shardTotals.skipped == 7 && shardTotals.ledgered == 0,
                "\(shardTotals)")

        // while a dry run of the shard holding the gone URL reports it ledgered and exits 1, as the run would
        let dryInside = try Binary.run(["run", job, "--dry-run", "--shard", "\(inside.index)/2", "--report", report])
        #expect(dryInside.status == 1, "\(dryInside.stderr)")
        #expect(dryInside.stdout.contains("skip \(gone) (failed before: http_404)"), "\(dryInside.stdout)")
        #expect(try readReport(report).totals.ledgered == 1)
        #expect(try harness.server.hits("shard") == 1)
    }

    @Test func aFailedRevalidationThatKeptTheOldFileFailsTheRunButNotVerify() throws {
        // Given a cached 1x1 image in a set that revalidates every run and takes at most 2 pixels
        let harness = try RunHarness()
        let key = harness.url("/image/gate-kept")
        let job = try harness.job(defaults: ["refresh": "always", "max_pixels": "2"], sets: [harness.set("images", ["/image/gate-kept"])])
        #expect(try Binary.run(["run", job, "--progress", "never"]).status == 0)

        // When the server's image grows past that, and the run revalidates it
        _ = try harness.server.get("/set-width/gate-kept/3")
        let report = harness.folder.file("report.json").path
        let run = try Binary.run(["run", job, "--report", report, "--progress", "never"])

        // Then the run fails on it, while the old file stays cached, so verify passes
        #expect(run.status == 1, "\(run.stderr)")
        let written = try readReport(report)
        #expect(written.totals == .expected(requested: 1, unique: 1, failed: 1))
        #expect(written.failures.map(\.reason) == ["too_many_pixels"])
        try harness.expectCache(holds: [key: harness.png])
        #expect(try Binary.run(["verify", job]).status == 0)
    }

    /// The raw report lists the URL with `"ledgered": true` and an ISO 8601 `next_retry` about a day away.
    private func expectLedgered(report: String, url: String, harness: RunHarness) throws {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report))) as? [String: Any])
        let totals = try #require(object["totals"] as? [String: Any])
        #expect(totals["ledgered"] as? Int == 1 && totals["skipped"] as? Int == 0)
        let failure = try #require((object["failures"] as? [[String: Any]])?.first)
        #expect(failure["url"] as? String == url)
        #expect(failure["ledgered"] as? Bool == true)
        #expect(failure["http_status"] as? Int == 404)
        let parser = ISO8601DateFormatter()
        parser.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let due = try #require(parser.date(from: failure["next_retry"] as? String ?? ""), "\(failure)")
        #expect(abs(due.timeIntervalSinceNow - 86_400) < 600)
        #expect(try #require(try harness.ledger(forKey: url)?.nextRetryAt).timeIntervalSince(due).magnitude < 1)
    }

    /// `classname/name` of every test case, in order.
    private func caseNames(_ xml: String) -> [String] {
        xml.split(separator: "\n").compactMap { line -> String? in
            guard let match = line.firstMatch(of: /<testcase classname="([^"]*)" name="([^"]*)"/) else { return nil }
            return "\(match.1)/\(match.2)"
        }
    }
}
