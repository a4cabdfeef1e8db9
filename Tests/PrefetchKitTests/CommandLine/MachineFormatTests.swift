import Foundation
import Testing
@testable import PrefetchKit

/// `format_version` in the machine output the binary writes: the run report (`--report`) and
/// `stats --format json`, the same number in both, and the number a reader of version 1 expects.
@Suite(.timeLimit(.minutes(2))) struct MachineFormatTests {
    @Test func theReportAndStatsJSONCarryTheFormatVersion() throws {
        #expect(PrefetchVersion.machineFormat == 1, "raising format_version is a contract change: README and DESIGN say what changed")

        // Given a run that fetched one image and failed one, with its report
        let harness = try RunHarness()
        let job = try harness.job(sets: [harness.set("images", ["/ok/format", "/missing/format"])])
        let report = harness.folder.file("report.json").path
        let run = try Binary.run(["run", job, "--report", report, "--progress", "never", "--quiet"])
        #expect(run.status == 1, "\(run.stderr)")

        // Then the report and the stats of its cache both say which format they are in
        let written = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report))) as? [String: Any])
        #expect(written["format_version"] as? Int == PrefetchVersion.machineFormat, "\(written)")
        let stats = try Binary.run(["stats", "--cache", harness.cachePath, "--format", "json"])
        #expect(stats.status == 0, "\(stats.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any])
        #expect(object["format_version"] as? Int == PrefetchVersion.machineFormat, "\(stats.stdout)")
        #expect((object["entries"] as? Int) == 1)
    }
}
