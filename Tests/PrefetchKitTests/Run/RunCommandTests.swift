import Foundation
import Testing
@testable import PrefetchKit

/// `prefetchd run` through the real binary: exit statuses, report files, dry run, SIGINT.
@Suite(.timeLimit(.minutes(1)))
struct RunCommandTests {
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
        #expect(xml.contains(#"name="images (2 URLs: 2 ok, 0 failed, 0 skipped)""#))
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
        try harness.expectCache(holds: [harness.url("/ok/fine"): harness.png], without: [harness.url("/status/404")])
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

    @Test func aReportPathThatCannotBeWrittenStopsTheRunBeforeItFetches() throws {
        let harness = try RunHarness()
        let job = try harness.job(sets: [harness.set("images", ["/count/early"])])
        let missingFolder = harness.folder.file("no-such-folder/report.json").path
        let folder = harness.folder.file("reports").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)

        for (option, path, reason) in [("--report", missingFolder, "does not exist"), ("--junit", folder, "is a folder")] {
            let outcome = try Binary.run(["run", job, option, path, "--progress", "never"])
            #expect(outcome.status == 2, "\(outcome.stderr)")
            #expect(outcome.stderr.hasPrefix("prefetchd run: \(option) \(path) cannot be written"), "\(outcome.stderr)")
            #expect(outcome.stderr.contains(reason), "\(outcome.stderr)")
        }
        #expect(try harness.server.hits("early") == 0)
        #expect(!FileManager.default.fileExists(atPath: harness.cachePath))
    }

    @Test func logLinesNeverRunIntoTheProgressLine() throws {
        let harness = try RunHarness()
        let paths = (0..<12).map { "/slow/\(300 + $0)" } + ["/status/404"]
        let job = try harness.job(defaults: ["concurrency": "2", "per_host": "2"], sets: [harness.set("images", paths)])

        let text = try Binary.run(["run", job, "--progress", "always", "--verbose"])
        #expect(text.status == 1, "\(text.stderr)")
        // Each visible line (what follows the last clear-line on it) is the bar or a log line, not both.
        let visible = text.stderr.split(separator: "\n").map { String($0).components(separatedBy: "\u{1B}[2K").last ?? "" }
        #expect(visible.contains { $0.hasPrefix("prefetchd: fetched") })
        #expect(visible.contains { $0.contains("ETA") })
        #expect(!visible.contains { $0.contains("ETA") && $0.contains("prefetchd:") }, "\(visible)")

        try FileManager.default.removeItem(atPath: harness.cachePath)
        let json = try Binary.run(["run", job, "--progress", "always", "--log-format", "json"])
        #expect(json.status == 1, "\(json.stderr)")
        let lines = json.stderr.split(separator: "\n").dropLast().map(String.init)  // the closing summary is text
        #expect(lines.count > 13)
        for line in lines {
            #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) != nil, "not JSON: \(line)")
        }
    }

    @Test func dryRunPrintsWhatItWouldFetchAndCreatesNothing() throws {
        let harness = try RunHarness()
        let job = try harness.job(sets: [harness.set("images", ["/count/d1", "/count/d2"])])
        let scratch = harness.folder.file("tmpdir")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)

        let outcome = try Binary.run(["run", job, "--dry-run"], environment: ["TMPDIR": scratch.path])

        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stdout.split(separator: "\n") == [
            "fetch \(harness.url("/count/d1"))"[...], "fetch \(harness.url("/count/d2"))"[...],
        ])
        #expect(try harness.server.hits("d1") == 0)
        #expect(try harness.server.hits("d2") == 0)
        #expect(!FileManager.default.fileExists(atPath: harness.cachePath))
        let leftovers = try FileManager.default.subpathsOfDirectory(atPath: scratch.path)
        #expect(leftovers.isEmpty, "\(leftovers)")
    }

    @Test func dryRunAgainstACacheChangesNothing() throws {
        let harness = try RunHarness()
        let job = try harness.job(sets: [harness.set("images", ["/count/kept", "/count/new"])])
        let first = try harness.job("first", sets: [harness.set("images", ["/count/kept"])])
        try harness.run([first])
        let before = try indexState(harness.cachePath)

        let outcome = try Binary.run(["run", job, "--dry-run"])

        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stdout.split(separator: "\n") == ["fetch \(harness.url("/count/new"))"[...]])
        #expect(try harness.server.hits("new") == 0)
        #expect(try indexState(harness.cachePath) == before)
        try harness.expectCache(holds: [harness.url("/count/kept"): harness.png])
    }

    @Test func aRetriedTransferLogsItsSecondAttempt() throws {
        let harness = try RunHarness()
        let path = "/flaky/\(UUID().uuidString)/1"
        let job = try harness.job(defaults: ["retries": "2"], sets: [harness.set("images", [path])])

        let outcome = try Binary.run(["run", job, "--log-format", "json", "--progress", "never"])

        #expect(outcome.status == 0, "\(outcome.stderr)")
        let events = outcome.stderr.split(separator: "\n").compactMap {
            try? JSONDecoder().decode(RunEvent.self, from: Data($0.utf8))
        }
        let retries = events.filter { $0.event == .retrying }
        #expect(retries.count == 1)
        #expect(retries.first?.status == 500)
        // (it says how long the transfer has taken and how long until the next attempt)
        #expect((retries.first?.delayMs ?? 0) >= 500 && retries.first?.elapsedMs != nil, "\(retries)")
        let finished = try #require(events.first { $0.event == .finished })
        #expect(finished.attempt == 2)
        // Its time covers both attempts and the backoff between them (1 s and more), as the response's does
        let response = try #require(events.last { $0.event == .response })
        #expect((finished.elapsedMs ?? 0) >= 1000, "\(finished)")
        #expect((finished.elapsedMs ?? 0) >= (response.elapsedMs ?? .infinity), "\(events)")
        #expect(finished.url == harness.url(path))
        #expect(!events.contains { $0.event == .failed })
    }

    @Test func jsonEventsFollowEachTransferFromItsStart() throws {
        let harness = try RunHarness()
        // One transfer at a time, so each URL after the first waits (handed to the engine) while the one
        // before it runs.
        let paths = (1...3).map { "/slow/400?n=\($0)" }
        let job = try harness.job(defaults: ["concurrency": "1", "per_host": "1"], sets: [harness.set("slow", paths)])

        let outcome = try Binary.run(["run", job, "--log-format", "json", "--progress", "never"])

        #expect(outcome.status == 0, "\(outcome.stderr)")
        let events = outcome.stderr.split(separator: "\n").compactMap {
            try? JSONDecoder().decode(RunEvent.self, from: Data($0.utf8))
        }
        for url in paths.map(harness.url) {
            let mine = events.filter { $0.url == url }
            #expect(mine.map(\.event) == [.queued, .started, .response, .finished], "\(mine)")
            // Counted from the start of its transfer, not from when it was queued: 400 ms and a little.
            let finished = try #require(mine.last)
            #expect((400..<750).contains(finished.elapsedMs ?? 0), "\(finished)")
        }
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
        #expect(outcome.stderr == "prefetchd run: the open-file limit (ulimit -n) is 40; a run needs at least 66\n")
        #expect(!FileManager.default.fileExists(atPath: harness.cachePath))
        #expect(try harness.server.hits("never") == 0)
    }

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

    @Test func aSignalDuringOneJobReportsTheJobsItKeptFromStarting() throws {
        // Given a run of two job files, the first slow, each into a cache of its own
        let harness = try RunHarness()
        let first = try harness.job("first", defaults: ["concurrency": "1", "per_host": "1"],
                                    sets: [harness.set("slow", ["/slow/3000?n=1", "/slow/3000?n=2"])])
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
        #expect(written.totals.requested == 5 && written.totals.fetched == 0, "\(written.totals)")
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(xml.contains(#"name="later (3 URLs: 0 ok, 0 failed, 0 skipped)">"# + "\n" + #"      <skipped message="3 URLs not reached"/>"#),
                "\(xml)")
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
        #expect(xml.contains(#"<testcase classname="one" name="images (1 URL: 1 ok, 0 failed, 0 skipped)">"#), "\(xml)")
        #expect(xml.contains(#"<testcase classname="two" name="images (2 URLs: 1 ok, 1 failed, 0 skipped)">"#), "\(xml)")
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

    @Test func aRunWhoseOutputReaderGoesAwayFinishesAndReports() throws {
        // Given a run whose standard error is a pipe nobody reads any more (`| head -1` done, a `tee`
        // killed), with SIGPIPE at its default action as from a shell
        let harness = try RunHarness()
        let paths = (1...20).map { "/slow/50?n=\($0)" }
        let job = try harness.job(defaults: ["concurrency": "2", "per_host": "2"], sets: [harness.set("slow", paths)])
        let report = harness.folder.file("report.json").path
        let pipe = Pipe()
        try pipe.fileHandleForReading.close()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["--default-signal=PIPE", Binary.url.path, "run", job, "--report", report,
                             "--progress", "never", "--log-format", "json"]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = pipe.fileHandleForWriting

        // When it runs
        try process.run()
        try pipe.fileHandleForWriting.close()
        process.waitUntilExit()

        // Then it finishes the job, writes its report, and records every body it stored
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
        let written = try readReport(report)
        #expect(written.outcome == "completed")
        #expect(written.totals.fetched == paths.count)
        try harness.expectCache(holds: Dictionary(uniqueKeysWithValues: paths.map { (harness.url($0), harness.png) }))
    }

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
        #expect(outcome.stderr.contains("— incomplete"), "\(outcome.stderr)")
        // (one line)
        let reasonLine = outcome.stderr.split(separator: "\n").first { $0.contains("is unusable") } ?? ""
        #expect(reasonLine.hasSuffix("."), "\(outcome.stderr)")
        let written = try readReport(report)
        #expect(written.outcome == "incomplete")
        #expect(written.totals.requested == disk.paths.count)
        let first = written.failures.prefix(disk.firstFailures.count)
        #expect(first.map(\.url) == disk.firstFailures.map { harness.url($0.path) })
        #expect(first.map(\.reason) == disk.firstFailures.map(\.reason))
        #expect(first.allSatisfy { $0.message.contains("File too large") })
        // (after those, at most one store per worker that met the index's failure first)
        #expect(written.failures.dropFirst(disk.firstFailures.count).allSatisfy { $0.reason == "cache" }, "\(written.failures)")
        #expect(written.failures.count <= disk.firstFailures.count + ProcessInfo.processInfo.activeProcessorCount)
        #expect(written.totals.fetched + written.totals.failed + written.totals.skipped == written.totals.unique)
        #expect(harness.partFiles().isEmpty)
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
        #expect(xml.contains(#"<testcase classname="first, second" name="run">"#))
        #expect(xml.contains("cache \(harness.cachePath) is unusable"))
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
        #expect(outcome.stderr.contains("prefetchd run: cache \(plainFile) is unusable: Could not use as a folder"), "\(outcome.stderr)")
        #expect(outcome.stderr.contains("prefetchd: first, second: 3 requested"), "\(outcome.stderr)")
        let written = try readReport(report)
        #expect(written.outcome == "incomplete")
        #expect(written.totals.requested == 3)
        #expect(written.totals.fetched == 1)
        // and in the JUnit file the first job's set is skipped, not green
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(xml.contains(#"<testcase classname="first" name="a (2 URLs: 0 ok, 0 failed, 0 skipped)">"#
                             + "\n" + #"      <skipped message="2 URLs not reached"/>"#), "\(xml)")
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

    /// Files under final names: anything below the cache's level folders, not in `tmp/`.
    private func storedFiles(_ cache: String) -> [String] {
        let all = (FileManager.default.subpaths(atPath: cache) ?? [])
        // Final names of the native layout: `<2 hex digits>/<sha256>.<ext>`.
        return all.filter { path in
            let parts = path.split(separator: "/")
            return parts.count == 2 && parts[0].count == 2 && parts[0] != "tmp" && parts[1].count >= 64
        }
    }

    /// What the index says: its entries (with their last-use times), failures and last run.
    private func indexState(_ cache: String) throws -> ([CacheEntry], [FailureRecord], RunRecord?) {
        let index = try DiskCache.open(at: cache, layout: .native).index
        return (try index.allEntries(), try index.failures(), try index.lastRun())
    }
}
