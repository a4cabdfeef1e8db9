import Foundation
import Testing
@testable import PrefetchKit

/// `prefetchd run` stopped by a signal (SIGINT, SIGTERM, SIGHUP) or started under `nohup`: how it
/// ends, what it reports, and what a rerun fetches.
@Suite(.timeLimit(.minutes(3)))
struct RunSignalTests {
    /// A signal that stops a run, and how the run ends.
    struct Stop: Sendable, CustomStringConvertible {
        let signal: Int32
        let name: String
        let status: Int32
        let outcome: String
        var description: String { name }

        static let all = [Stop(signal: SIGINT, name: "SIGINT", status: 130, outcome: "interrupted"),
                          Stop(signal: SIGTERM, name: "SIGTERM", status: 143, outcome: "terminated"),
                          Stop(signal: SIGHUP, name: "SIGHUP", status: 129, outcome: "terminated")]
    }

    @Test(arguments: Stop.all)
    func aSignalStopsCleanlyAndARerunFetchesTheRest(_ stop: Stop) throws {
        let harness = try RunHarness()
        let paths = (1...10).map { "/slow/300?n=\($0)" }
        let job = try harness.job(defaults: ["concurrency": "2", "per_host": "2"], sets: [harness.set("slow", paths)])
        let report = harness.folder.file("report.json").path
        let junit = harness.folder.file("junit.xml").path

        // Given a run of slow URLs, started with the signals at their default actions as from a login
        // shell (the test runner's children inherit SIGHUP ignored), that has stored some files,
        let process = try startRun(job, signals: "--default-signal=HUP,INT,TERM", "--report", report, "--junit", junit)
        waitForAStoredFile(harness, process)

        // when it gets the signal,
        kill(process.processIdentifier, stop.signal)
        process.waitUntilExit()

        // then it exits with the signal's status, an honest report and no partial file,
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == stop.status)
        let written = try readReport(report)
        #expect(written.outcome == stop.outcome)
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(xml.contains(#"errors="1""#) && xml.contains("the run was \(stop.outcome) by \(stop.name)"), "\(xml)")
        try JUnitSchema.expectValid(junit)
        let stored = try DiskCache.open(at: harness.cachePath, layout: .native).index.allEntries().compactMap(\.key)
        #expect(written.totals.fetched == stored.count)
        #expect(written.totals.fetched < paths.count)
        #expect(written.totals.failed == 0)
        #expect(written.totals.bytes == Int64(stored.count * harness.png.count))
        #expect(written.totals.fetched + written.totals.skipped == written.totals.unique)
        try harness.expectCache(holds: Dictionary(uniqueKeysWithValues: stored.map { ($0, harness.png) }))

        // and a rerun fetches only what is missing.
        let rerun = try Binary.run(["run", job, "--report", report, "--progress", "never", "--quiet"])
        #expect(rerun.status == 0, "\(rerun.stderr)")
        let second = try readReport(report)
        #expect(second.outcome == "completed")
        #expect(second.totals == .expected(requested: paths.count, unique: paths.count, fetched: paths.count - stored.count,
                                           cached: stored.count, bytes: (paths.count - stored.count) * harness.png.count))
        try harness.expectCache(holds: Dictionary(uniqueKeysWithValues: paths.map { (harness.url($0), harness.png) }))
    }

    @Test func aSignalDuringOneJobReportsTheJobsItKeptFromStarting() throws {
        // Given a run of two job files, the first slow, each into a cache of its own; one queue runs
        // them, and the first's third URL holds it at the first job (one in flight, one waiting at
        // the engine) until the first transfer ends
        let harness = try RunHarness()
        let first = try harness.job("first", defaults: ["concurrency": "1", "per_host": "1"],
                                    sets: [harness.set("slow", ["/slow/3000?n=1", "/slow/3000?n=2", "/slow/3000?n=3"])])
        let secondCache = harness.folder.path + "/second-cache"
        let second = try harness.folder.write("second.yaml", """
            version: 1
            cache: { path: "\(secondCache)" }
            network: { allow_private: true }
            sets:
              - { name: later, urls: ["\(harness.url("/ok/a"))", "\(harness.url("/ok/b"))", "\(harness.url("/ok/c"))"] }
            """).path
        let report = harness.folder.file("report.json").path
        let junit = harness.folder.file("junit.xml").path
        let process = try startRun(first, signals: "--default-signal=TERM", second, "--report", report, "--junit", junit)
        usleep(1_000_000)

        // When SIGTERM stops it during the first
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()

        // Then the report counts the second job's URLs as requested and nothing else, and its set is
        // skipped, never reached, in the JUnit file
        #expect(process.terminationReason == .exit && process.terminationStatus == 143)
        let written = try readReport(report)
        #expect(written.outcome == "terminated")
        #expect(written.totals.requested == 6 && written.totals.fetched == 0, "\(written.totals)")
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(xml.contains(#"name="later" time="0.0">"# + "\n" + #"      <skipped message="3 URLs not reached"/>"#
                             + "\n" + "      <system-out>3 URLs: 0 ok, 0 failed, 0 ledgered, 0 skipped</system-out>"), "\(xml)")
        try JUnitSchema.expectValid(junit)
        #expect(!FileManager.default.fileExists(atPath: secondCache))
    }

    @Test func aSignalAsTheRunStartsIsNeverLost() throws {
        // Given runs of a slow job, each sent SIGTERM 0 to 15 ms after it was started: before its
        // handler is armed, while it is, and after
        let harness = try RunHarness()
        let job = try harness.job(defaults: ["concurrency": "1", "per_host": "1"],
                                  sets: [harness.set("slow", (1...3).map { "/slow/300?n=\($0)" })])
        var endings: [String] = []
        for delay in 0..<16 {
            let process = try startRun(job, signals: "--default-signal=TERM")
            usleep(useconds_t(delay * 1_000))
            kill(process.processIdentifier, SIGTERM)
            process.waitUntilExit()
            endings.append(process.terminationReason == .exit ? "exit \(process.terminationStatus)" : "killed")
        }

        // Then each was stopped: by the signal's default action before `main` began, or by the run
        // itself (143); none ran its job to the end as if the signal never came
        #expect(endings.allSatisfy { $0 == "killed" || $0 == "exit 143" }, "\(endings)")
    }

    @Test func aRunStartedUnderNohupFinishesThroughAHangup() throws {
        // Given a run started with SIGHUP ignored, as `nohup` starts it, that has stored some files
        let harness = try RunHarness()
        let paths = (1...10).map { "/slow/300?n=\($0)" }
        let job = try harness.job(defaults: ["concurrency": "2", "per_host": "2"], sets: [harness.set("slow", paths)])
        let report = harness.folder.file("report.json").path
        let process = try startRun(job, signals: "--ignore-signal=HUP", "--report", report)
        waitForAStoredFile(harness, process)

        // When its terminal goes away
        kill(process.processIdentifier, SIGHUP)
        process.waitUntilExit()

        // Then it finishes the job
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
        let written = try readReport(report)
        #expect(written.outcome == "completed" && written.totals.fetched == paths.count)
    }

    /// Starts `prefetchd run job` with `arguments`, quiet, through `env` with `signals` (such as
    /// `--default-signal=HUP`) setting the actions it starts with.
    private func startRun(_ job: String, signals: String, _ arguments: String...) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [signals, Binary.url.path, "run", job, "--progress", "never", "--quiet"] + arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Waits (10 s at most) until the run `process` has stored a file in the harness's cache.
    private func waitForAStoredFile(_ harness: RunHarness, _ process: Process) {
        let deadline = Date().addingTimeInterval(10)
        while storedFiles(harness.cachePath).isEmpty && process.isRunning && Date() < deadline {
            usleep(20_000)
        }
        #expect(!storedFiles(harness.cachePath).isEmpty)
    }

    /// Files under final names: anything below the cache's level folders, not in `tmp/`.
    private func storedFiles(_ cache: String) -> [String] {
        let all = (FileManager.default.subpaths(atPath: cache) ?? [])
        // Final names of the native layout: `<2 hex digits>/<sha256>.<ext>`.
        return all.filter { path in
            let parts = path.split(separator: "/")
            return parts.count == 2 && parts[0].count == 2 && parts[0] != "tmp" && parts[1].count >= 64
        }
    }
}
