import Foundation
import Testing
@testable import PrefetchKit

/// `prefetchd run` against a cache that stops taking writes or cannot be used at all: exit 3, the
/// reason in one line, the report still written, and the other jobs still run.
@Suite(.timeLimit(.minutes(3)))
struct RunUnusableCacheTests {
    /// How a run under a file-size limit of 100 KiB (as on a disk that fills up) ends, given the
    /// paths its one set asks for in order.
    struct LimitedDisk: Sendable, CustomStringConvertible {
        let paths: [String]
        /// The start of the one-line reason the run gives.
        let reason: String
        /// The failures the run must list first, in order, with their reason.
        let firstFailures: [(path: String, reason: String)]
        var description: String { reason }

        /// 300 small bodies: the index outgrows the limit part way.
        static let index = LimitedDisk(
            paths: (0..<300).map { "/bytes/2000/\($0)" }, reason: "The cache index failed to", firstFailures: [])
        /// A body larger than the limit after ten small ones: the first body the disk cannot take stops the run.
        static let body = LimitedDisk(
            paths: (0..<10).map { "/bytes/2000/\($0)" } + ["/bytes/200000/0"] + (10..<100).map { "/bytes/2000/\($0)" },
            reason: "Could not write a body to a new file in ", firstFailures: [("/bytes/200000/0", "destination")])
    }

    @Test(arguments: [LimitedDisk.index, .body])
    func aCacheThatStopsTakingWritesPartWayStopsTheRunAndStillGetsItsReport(_ disk: LimitedDisk) throws {
        // Given a cache made beforehand, and a run that may not write past 100 KiB of any file
        let harness = try RunHarness()
        let warmup = try harness.job("warmup", sets: [harness.set("first", ["/bytes/2000/999"], ["validate: none"])])
        #expect(try Binary.run(["run", warmup, "--progress", "never"]).status == 0)
        let job = try harness.job(sets: [harness.set("bulk", disk.paths, ["validate: none", "concurrency: 1", "per_host: 1"])])
        let report = harness.folder.file("report.json").path

        let outcome = try Binary.run(["run", job, "--report", report, "--progress", "never", "--log-format", "json"],
                                     fileSizeLimit: 100 << 10)

        // Then the run stops with exit 3 and the reason, and still writes its report
        #expect(outcome.status == 3, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("prefetchd run: cache \(harness.cachePath) is unusable: \(disk.reason)"), "\(outcome.stderr)")
        // (one error event, and the log's summary says how the run ended)
        let logged = try outcome.jsonLogLines()
        let reasons = logged.filter { ($0["message"] as? String)?.contains("is unusable") == true }
        #expect(reasons.count == 1 && reasons.first?["level"] as? String == "error", "\(outcome.stderr)")
        #expect((reasons.first?["message"] as? String)?.hasSuffix(".") == true, "\(outcome.stderr)")
        #expect(logged.last?["event"] as? String == "summary" && logged.last?["outcome"] as? String == "incomplete"
                && logged.last?["exit_status"] as? Int == 3, "\(outcome.stderr)")
        let written = try readReport(report)
        #expect(written.outcome == "incomplete")
        #expect(written.totals.requested == disk.paths.count)
        let first = written.failures.prefix(disk.firstFailures.count)
        #expect(first.map(\.url) == disk.firstFailures.map { harness.url($0.path) })
        #expect(first.map(\.reason) == disk.firstFailures.map(\.reason))
        #expect(first.allSatisfy { $0.message.contains("File too large") })
        // (after those, at most one store per worker that met the index's failure first, and the bodies
        // of the batch the index could not record, removed and counted as failed)
        #expect(written.failures.dropFirst(disk.firstFailures.count).allSatisfy { $0.reason == "cache" }, "\(written.failures)")
        let removed = written.failures.filter { $0.message.contains("the index could not record it, so it was removed") }
        #expect(written.failures.count - removed.count <= disk.firstFailures.count + ProcessInfo.processInfo.activeProcessorCount)
        #expect(written.totals.fetched + written.totals.failed + written.totals.skipped == written.totals.unique)
        #expect(harness.partFiles().isEmpty)
        // and no body is left without its row: fsck finds the cache whole before any repair
        let fsck = try Binary.run(["fsck", "--cache", harness.cachePath])
        #expect(fsck.status == 0, "\(fsck.stdout) \(fsck.stderr)")
        // and every key it counts as skipped has its `skipped` event
        let events = outcome.stderr.split(separator: "\n").compactMap { try? JSONDecoder().decode(RunEvent.self, from: Data($0.utf8)) }
        #expect(events.filter { $0.event == .skipped }.count == written.totals.skipped)
        // and every failed one its time
        #expect(events.filter { $0.event == .failed }.count == written.totals.failed)
        #expect(events.filter { $0.event == .failed }.allSatisfy { $0.elapsedMs != nil })

        // And once fsck --repair has indexed any files whose rows the index lost, a rerun without the
        // limit fetches only what is missing
        #expect(try Binary.run(["fsck", "--cache", harness.cachePath, "--repair"]).status <= 1)
        #expect(try Binary.run(["fsck", "--cache", harness.cachePath]).status == 0)
        let rerun = try Binary.run(["run", job, "--report", report, "--progress", "never", "--quiet"])
        #expect(rerun.status == 0, "\(rerun.stderr)")
        let second = try readReport(report)
        #expect(second.totals.fetched + second.totals.cached == disk.paths.count)
        #expect(second.totals.cached >= written.totals.fetched)
    }

    @Test func aJobWhoseCacheFailsDoesNotStopTheNextJob() throws {
        // Given two jobs, each with a cache of its own made beforehand, run under a file-size limit:
        // the first asks for a body larger than the limit, the second for three small ones
        let harness = try RunHarness()
        let otherCache = harness.folder.file("other").path
        func job(_ name: String, cache: String, _ paths: [String]) throws -> String {
            try harness.folder.write("\(name).yaml", """
                version: 1
                cache: { path: "\(cache)" }
                network: { allow_private: true }
                sets:
                  - { name: \(name), validate: none, urls: [\(paths.map { "\"\(harness.url($0))\"" }.joined(separator: ", "))] }
                """).path
        }
        let warmups = [try job("warm1", cache: harness.cachePath, ["/bytes/2000/998"]),
                       try job("warm2", cache: otherCache, ["/bytes/2000/999"])]
        #expect(try Binary.run(["run"] + warmups + ["--progress", "never"]).status == 0)
        let first = try job("first", cache: harness.cachePath, ["/bytes/200000/1"])
        let second = try job("second", cache: otherCache, (1...3).map { "/bytes/2000/\($0)" })
        let report = harness.folder.file("report.json").path
        let junit = harness.folder.file("junit.xml").path

        let outcome = try Binary.run(["run", first, second, "--report", report, "--junit", junit, "--progress", "never", "--quiet"],
                                     fileSizeLimit: 100 << 10)

        // Then the run exits 3 for the first job's cache, and the second job still ran and stored its three
        #expect(outcome.status == 3, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("prefetchd run: cache \(harness.cachePath) is unusable: "), "\(outcome.stderr)")
        let written = try readReport(report)
        #expect(written.outcome == "incomplete")
        #expect(written.totals.requested == 4)
        #expect(written.totals.fetched == 3)
        #expect(try DiskCache.open(at: otherCache, layout: .native).index.entryCount() == 4)
        // and the JUnit file is not green: a case `run` in error says why
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(xml.contains(#"errors="1""#))
        #expect(xml.contains(#"<testcase classname="first, second" name="run" time=""#))
        #expect(xml.contains("cache \(harness.cachePath) is unusable"))
        try JUnitSchema.expectValid(junit)
    }

    @Test func aCacheThatCannotBeOpenedStopsOnlyItsJob() throws {
        // Given two jobs: the first's cache path is a plain file, the second's a fresh folder
        let harness = try RunHarness()
        let plainFile = try harness.folder.write("afile", "x").path
        let first = try harness.job("first", sets: [harness.set("a", ["/ok/1", "/ok/2"])])
        let firstText = try String(contentsOfFile: first, encoding: .utf8).replacingOccurrences(of: harness.cachePath, with: plainFile)
        try firstText.write(toFile: first, atomically: true, encoding: .utf8)
        let second = try harness.job("second", sets: [harness.set("b", ["/ok/3"])])
        let report = harness.folder.file("report.json").path

        let junit = harness.folder.file("junit.xml").path
        let outcome = try Binary.run(["run", first, second, "--report", report, "--junit", junit, "--progress", "never", "--quiet"])

        // Then the first job is reported as not done, the second runs, and the report and summary are written
        #expect(outcome.status == 3, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("prefetchd run: cache \(plainFile) is unusable: is a file, not a cache folder: \(plainFile)"), "\(outcome.stderr)")
        #expect(outcome.stderr.contains("prefetchd: first, second: 3 requested"), "\(outcome.stderr)")
        let written = try readReport(report)
        #expect(written.outcome == "incomplete")
        #expect(written.totals.requested == 3)
        #expect(written.totals.fetched == 1)
        // and in the JUnit file the first job's set is skipped, not green
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(xml.contains(#"<testcase classname="first" name="a" time="0.0">"#
                             + "\n" + #"      <skipped message="2 URLs not reached"/>"#), "\(xml)")
        try JUnitSchema.expectValid(junit)
        #expect(xml.contains(#"skipped="1""#), "\(xml)")
    }

    @Test func aBodyFileThatCannotBeMadeStopsTheRunAndItsKeyIsCounted() throws {
        // Given a cache where the folder one key's file would go into is a plain file
        let harness = try RunHarness()
        let warmup = try harness.job("warmup", sets: [harness.set("first", ["/ok/0"])])
        #expect(try Binary.run(["run", warmup, "--progress", "never"]).status == 0)
        let blocked = harness.finalPath(forKey: harness.url("/ok/blocked"))
        let folder = (blocked as NSString).deletingLastPathComponent
        try FileManager.default.removeItem(atPath: folder)
        try "x".write(toFile: folder, atomically: false, encoding: .utf8)
        let paths = ["/ok/1", "/ok/blocked", "/ok/2"]
        let job = try harness.job(sets: [harness.set("s", paths, ["concurrency: 1", "per_host: 1"])])
        let report = harness.folder.file("report.json").path

        let outcome = try Binary.run(["run", job, "--report", report, "--progress", "never", "--log-format", "json"])

        // Then the run stops there with the reason, and every key it counts is settled and logged
        #expect(outcome.status == 3, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("is unusable: Could not create a file in \(folder)"), "\(outcome.stderr)")
        let written = try readReport(report)
        #expect(written.totals.requested == paths.count)
        #expect(written.totals.fetched + written.totals.failed + written.totals.skipped == written.totals.unique)
        let events = outcome.stderr.split(separator: "\n").compactMap { try? JSONDecoder().decode(RunEvent.self, from: Data($0.utf8)) }
        #expect(events.filter { $0.event == .skipped }.count == written.totals.skipped)
        #expect(events.contains { $0.event == .skipped && $0.url == harness.url("/ok/blocked") })
    }
}
