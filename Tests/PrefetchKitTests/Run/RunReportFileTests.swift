import Foundation
import Testing
@testable import PrefetchKit

/// `prefetchd run`'s `--report` and `--junit` files: paths that cannot be written, and how the sets of
/// several job files appear in JUnit.
@Suite(.timeLimit(.minutes(3)))
struct RunReportFileTests {
    @Test func aReportPathThatCannotBeWrittenStopsTheRunBeforeItFetches() throws {
        let harness = try RunHarness()
        let job = try harness.job(sets: [harness.set("images", ["/count/early"])])
        let missingFolder = harness.folder.file("no-such-folder/report.json").path
        let folder = harness.folder.file("reports").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)

        for (option, path, reason) in [("--report", missingFolder, "does not exist"), ("--junit", folder, "is a folder")] {
            let outcome = try Binary.run(["run", job, option, path, "--progress", "never"])
            #expect(outcome.status == 2, "\(outcome.stderr)")
            #expect(outcome.unstampedStderr.hasPrefix("prefetchd run: \(option) \(path) cannot be written"), "\(outcome.stderr)")
            #expect(outcome.stderr.contains(reason), "\(outcome.stderr)")
        }
        #expect(try harness.server.hits("early") == 0)
        #expect(!FileManager.default.fileExists(atPath: harness.cachePath))
    }

    @Test func setsOfOneNameInTwoJobFilesStayApartInJUnit() throws {
        // Given two job files, each with a set named `images`
        let harness = try RunHarness()
        let one = try harness.job("one", sets: [harness.set("images", ["/ok/1"])])
        let two = try harness.job("two", sets: [harness.set("images", ["/ok/2", "/missing/2"])])
        let junit = harness.folder.file("junit.xml").path

        // When both run
        let outcome = try Binary.run(["run", one, two, "--junit", junit, "--progress", "never", "--quiet"])

        // Then each set is a case of its own job's class
        #expect(outcome.status == 1, "\(outcome.stderr)")
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(xml.contains(#"<testcase classname="one" name="images" time=""#), "\(xml)")
        #expect(xml.contains(#"<testcase classname="two" name="images" time=""#), "\(xml)")
        #expect(xml.contains("<system-out>1 URL: 1 ok, 0 failed, 0 ledgered, 0 skipped</system-out>"), "\(xml)")
        #expect(xml.contains("<system-out>2 URLs: 1 ok, 1 failed, 0 ledgered, 0 skipped</system-out>"), "\(xml)")
        try JUnitSchema.expectValid(junit)
    }

    @Test func aReportThatCannotBeWrittenLeavesTheOtherOneWritten() throws {
        // Given a run whose --report folder is gone by the time the report is written
        let harness = try RunHarness()
        let job = try harness.job(sets: [harness.set("images", ["/ok/one"])])
        let report = harness.folder.file("gone/report.json").path
        let junit = harness.folder.file("junit.xml").path

        let result = try harness.run([job]) {
            $0.reportPath = report
            $0.junitPath = junit
        }

        // Then the JUnit file is still written, and the report's failure is told in one line
        #expect(result.outputFailures.count == 1)
        #expect(result.outputFailures.first?.hasPrefix("cannot write \(report): ") == true, "\(result.outputFailures)")
        #expect(!result.outputFailures.contains { $0.contains("\n") })
        #expect(FileManager.default.fileExists(atPath: junit))
        #expect(result.report.totals.fetched == 1)
    }

    @Test func aJobNameWithALineBreakKeepsTheSummaryOneLine() throws {
        let harness = try RunHarness()
        let job = try harness.job(#""night\nly\u001b[31m""#, sets: [harness.set("s", ["/ok/night"])])
        let result = try harness.run([job])
        #expect(result.report.job == "night\nly\u{1B}[31m")
        #expect(result.report.summary.hasPrefix("night\\u{a}ly\\u{1b}[31m: 1 requested"), "\(result.report.summary)")
        #expect(!result.report.summary.contains("\n"))
    }

    @Test func aSetNameWithControlCharactersMakesValidJUnit() throws {
        // Given a set whose name (a YAML escape) holds control characters and markup
        let harness = try RunHarness()
        let job = try harness.job(sets: [harness.set(#""odd\x01\x1b[0m\x0b<&> \"name\"""#, ["/ok/odd", "/missing/odd"])])
        let junit = harness.folder.file("junit.xml").path

        // When it runs
        let result = try harness.run([job]) { $0.junitPath = junit }

        // Then the JUnit file is valid XML, the characters XML forbids shown as U+FFFD
        #expect(result.report.totals.failed == 1)
        try JUnitSchema.expectValid(junit)
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(xml.contains(#"name="odd\#u{FFFD}\#u{FFFD}[0m\#u{FFFD}&lt;&amp;&gt; &quot;name&quot;" time=""#), "\(xml)")
    }
}
