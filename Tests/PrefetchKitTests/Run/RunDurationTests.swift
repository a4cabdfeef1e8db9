import Foundation
import Testing

/// A run's duration is one figure, to the millisecond, in the report, the summary line and `stats`.
@Suite(.timeLimit(.minutes(2)))
struct RunDurationTests {
    @Test func theReportTheSummaryAndStatsGiveTheSameMilliseconds() throws {
        // Given a run of a few URLs with a report
        let harness = try RunHarness()
        let job = try harness.job(sets: [harness.set("images", ["/ok/d1", "/ok/d2", "/slow/200"])])
        let reportPath = harness.folder.path + "/report.json"
        let run = try Binary.run(["run", job, "--report", reportPath, "--progress", "never"])
        #expect(run.status == 0, "\(run.stderr)")

        // Then duration_s has at most three decimals, as written in the file
        let report = try String(contentsOfFile: reportPath, encoding: .utf8)
        let match = try #require(report.firstMatch(of: try Regex(#""duration_s" : ([0-9.]+)"#)), "\(report)")
        let written = String(try #require(match.output[1].substring))
        #expect((written.split(separator: ".").last?.count ?? 0) <= 3 || !written.contains("."), "\(written)")
        let seconds = try #require(Double(written))
        let shown = String(format: "%.3f", seconds)
        // And the summary line and stats (text and JSON) say the same figure
        #expect(run.stderr.contains(" in \(shown) s ("), "\(run.stderr)")
        let text = try Binary.run(["stats", "--cache", harness.cachePath])
        #expect(text.stdout.contains(shown + " s"), "\(text.stdout)")
        let json = try Binary.run(["stats", "--cache", harness.cachePath, "--format", "json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let runs = try #require(object["runs"] as? [[String: Any]], "\(object.keys)")
        #expect(runs.first?["duration_s"] as? Double == seconds, "\(runs)")
    }
}
