import Foundation
import Testing
@testable import PrefetchKit

/// `prefetchd run` taking its shard from a Kubernetes Indexed Job's environment, through the real
/// binary: what it fetches, what the report and `stats` say, and the usage errors.
@Suite(.timeLimit(.minutes(3)))
struct RunShardEnvironmentTests {
    @Test func theCompletionIndexSelectsAShardAndTheReportAndStatsNameIt() throws {
        // Given a job of twelve URLs
        let harness = try RunHarness()
        let paths = (0..<12).map { "/count/env-shard-\($0)" }
        let job = try harness.job(sets: [harness.set("images", paths)])
        let report = harness.folder.file("report.json").path

        // When the pod with index 1 of 3 runs it
        let run = try Binary.run(["run", job, "--report", report, "--progress", "never"],
                                 environment: ["JOB_COMPLETION_INDEX": "1", "PREFETCHD_SHARDS": "3"])

        // Then it fetched exactly the keys of shard 2/3, and skipped the rest
        #expect(run.status == 0, "\(run.stderr)")
        let mine = paths.filter { Shard("2/3")!.contains(key: harness.url($0)) }
        #expect(!mine.isEmpty && mine.count < paths.count)
        for (number, path) in paths.enumerated() {
            #expect(try harness.server.hits("env-shard-\(number)") == (mine.contains(path) ? 1 : 0), "\(path)")
        }
        let written = try readReport(report)
        #expect(written.totals.fetched == mine.count && written.totals.skipped == paths.count - mine.count)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report))) as? [String: Any])
        #expect(object["shard"] as? String == "2/3")

        // and stats says which shard ran last, in JSON and in text
        let json = try Binary.run(["stats", "--cache", harness.cachePath, "--format", "json"])
        let stats = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let lastRun = try #require(stats["last_run"] as? [String: Any])
        #expect(lastRun["shard"] as? String == "2/3")
        #expect((lastRun["totals"] as? [String: Int])?.keys.contains { $0.hasPrefix("shard") } == false)
        let text = try Binary.run(["stats", "--cache", harness.cachePath])
        #expect(text.stdout.contains(" 2/3     job"), "\(text.stdout)")
    }

    @Test func aRunOfTheWholeJobReportsANullShard() throws {
        let harness = try RunHarness()
        let job = try harness.job(sets: [harness.set("images", ["/ok/whole"])])
        let report = harness.folder.file("report.json").path
        let run = try Binary.run(["run", job, "--report", report, "--progress", "never"])
        #expect(run.status == 0, "\(run.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report))) as? [String: Any])
        #expect(object.keys.contains("shard") && object["shard"] is NSNull)
        let json = try Binary.run(["stats", "--cache", harness.cachePath, "--format", "json"])
        let stats = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect((stats["last_run"] as? [String: Any])?["shard"] is NSNull)
    }

    @Test(arguments: [
        (["--shard", "1/3"], ["JOB_COMPLETION_INDEX": "1", "PREFETCHD_SHARDS": "3"], "disagrees with JOB_COMPLETION_INDEX"),
        ([], ["JOB_COMPLETION_INDEX": "1"], "PREFETCHD_SHARDS is not"),
        ([], ["PREFETCHD_SHARDS": "3"], "JOB_COMPLETION_INDEX is not"),
        ([], ["JOB_COMPLETION_INDEX": "x", "PREFETCHD_SHARDS": "3"], "JOB_COMPLETION_INDEX must be a whole number"),
        ([], ["JOB_COMPLETION_INDEX": "3", "PREFETCHD_SHARDS": "3"], "is not below PREFETCHD_SHARDS=3"),
        ([], ["JOB_COMPLETION_INDEX": "0", "PREFETCHD_SHARDS": "0"], "PREFETCHD_SHARDS must be a whole number"),
    ])
    func aShardThatCannotBeObeyedIsAUsageError(options: [String], environment: [String: String], message: String) throws {
        let harness = try RunHarness()
        let job = try harness.job(sets: [harness.set("images", ["/count/env-refused"])])
        let run = try Binary.run(["run", job, "--progress", "never"] + options, environment: environment)
        #expect(run.status == 2)
        let lines = run.unstampedStderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].hasPrefix("prefetchd run: ") && lines[0].contains(message), "\(run.stderr)")
        #expect(try harness.server.hits("env-refused") == 0)
    }
}
