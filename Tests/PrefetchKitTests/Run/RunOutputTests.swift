import Foundation
import Testing
@testable import PrefetchKit

/// What `prefetchd run` writes to standard error: text and JSON log lines, the progress line, the
/// events of each transfer, and an output reader that goes away.
@Suite(.timeLimit(.minutes(3)))
struct RunOutputTests {
    @Test func logLinesNeverRunIntoTheProgressLine() throws {
        let harness = try RunHarness()
        let paths = (0..<12).map { "/slow/\(300 + $0)" } + ["/status/404"]
        let job = try harness.job(defaults: ["concurrency": "2", "per_host": "2"], sets: [harness.set("images", paths)])

        let text = try Binary.run(["run", job, "--progress", "always", "--verbose"])
        #expect(text.status == 1, "\(text.stderr)")
        // Each visible line (what follows the last clear-line on it, less the time that starts a log line
        // off a terminal) is the bar or a log line, not both.
        let visible = text.stderr.split(separator: "\n").map {
            ($0.components(separatedBy: "\u{1B}[2K").last ?? "").replacing(Binary.Outcome.stamp(), with: "", maxReplacements: 1)
        }
        #expect(visible.contains { $0.hasPrefix("prefetchd: fetched") })
        #expect(visible.contains { $0.contains("ETA") })
        #expect(!visible.contains { $0.contains("ETA") && $0.contains("prefetchd:") }, "\(visible)")

        try FileManager.default.removeItem(atPath: harness.cachePath)
        let json = try Binary.run(["run", job, "--progress", "always", "--log-format", "json"])
        #expect(json.status == 1, "\(json.stderr)")
        let lines = json.stderr.split(separator: "\n").map(String.init)  // the closing summary too
        #expect(lines.count > 13)
        for line in lines {
            #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) != nil, "not JSON: \(line)")
        }
        #expect(lines.last?.contains(#""event":"summary""#) == true, "\(json.stderr)")
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
        #expect((finished.elapsedMs ?? 0) >= (response.elapsedMs ?? .max), "\(events)")
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
}
