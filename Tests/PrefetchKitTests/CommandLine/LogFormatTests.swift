import Foundation
import Testing
@testable import PrefetchKit

/// The log `run`, `clean` and `verify` write on standard error, as cron and log shippers read it: with
/// `--log-format json` a JSON object a line to the end, the last the `summary`; in text off a
/// terminal, every line stamped with the time; `clean`'s figures said once.
@Suite(.timeLimit(.minutes(3))) struct LogFormatTests {
    /// `2026-12-01T15:40:00.123Z`, the whole string.
    static func isoMilliseconds() -> Regex<Substring> {
        #/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/#
    }

    /// A job of two images and a 404, on the harness's server.
    func job(_ harness: RunHarness) throws -> String {
        try harness.job(sets: [harness.set("images", ["/ok/a", "/ok/b", "/status/404"])])
    }

    /// Every event carries the machine format's version and an ISO 8601 time with milliseconds, and
    /// every `_ms` field is a whole number; the last event is the summary of `command` with `status`.
    func expectEnvelope(_ outcome: Binary.Outcome, command: String, status: Int32,
                        sourceLocation: SourceLocation = #_sourceLocation) throws -> (events: [[String: Any]], summary: [String: Any]) {
        #expect(outcome.status == status, "\(outcome.stderr)", sourceLocation: sourceLocation)
        let events = try outcome.jsonLogLines(sourceLocation: sourceLocation)
        for (event, line) in zip(events, outcome.stderr.split(separator: "\n")) {
            #expect(event["format_version"] as? Int == PrefetchVersion.machineFormat, "\(line)", sourceLocation: sourceLocation)
            let time = event["time"] as? String ?? ""
            #expect(time.wholeMatch(of: Self.isoMilliseconds()) != nil, "\(line)", sourceLocation: sourceLocation)
            #expect(event["event"] is String, "\(line)", sourceLocation: sourceLocation)
            // (JSONSerialization reads 12 and 12.0 alike, so the text itself says whether it is whole)
            let durations = line.matches(of: #/"[a-z_]+_ms":([^,}]*)/#).map { String($0.output.1) }
            #expect(durations.allSatisfy { Int64($0) != nil }, "\(line)", sourceLocation: sourceLocation)
        }
        let summary = try #require(events.last, sourceLocation: sourceLocation)
        #expect(summary["event"] as? String == "summary", "\(outcome.stderr)", sourceLocation: sourceLocation)
        #expect(summary["command"] as? String == command, sourceLocation: sourceLocation)
        #expect(summary["exit_status"] as? Int == Int(status), sourceLocation: sourceLocation)
        #expect(summary["duration_ms"] as? Int != nil, "\(summary)", sourceLocation: sourceLocation)
        #expect(events.dropLast().allSatisfy { $0["event"] as? String != "summary" }, sourceLocation: sourceLocation)
        return (events, summary)
    }

    @Test func aJSONRunLogIsJSONToItsSummaryWhoseTotalsAreTheReports() throws {
        // Given a job of two images and a 404
        let harness = try RunHarness()
        let job = try job(harness)
        let report = harness.folder.file("report.json").path

        // When it runs with a JSON log
        let outcome = try Binary.run(["run", job, "--log-format", "json", "--report", report])

        // Then every line is an event, the 404 a failed one, and the last the summary of the report
        let (events, summary) = try expectEnvelope(outcome, command: "run", status: 1)
        let written = try readReport(report)
        #expect(events.filter { $0["event"] as? String == "finished" }.count == 2)
        let failed = try #require(events.first { $0["event"] as? String == "failed" })
        #expect(failed["reason"] as? String == "http_404" && failed["url"] as? String == harness.url("/status/404"))
        #expect(failed["message"] as? String == written.failures.first?.message)
        #expect(summary["outcome"] as? String == written.outcome)
        #expect(summary["job"] as? String == written.job && summary["started"] as? String == written.started)
        let totals = try #require(summary["totals"] as? [String: Any])
        let expected = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(written.totals)) as? [String: Any])
        #expect(totals.keys.sorted() == expected.keys.sorted())
        for (key, value) in expected {
            #expect(totals[key] as? Int == value as? Int, "\(key): \(totals) against \(expected)")
        }
        #expect(written.totals.fetched == 2 && written.totals.failed == 1)
        // and the report's own times are spelled as the log's
        #expect(written.started.wholeMatch(of: Self.isoMilliseconds()) != nil, "\(written.started)")
    }

    @Test func warningsAndErrorsAreEventsWithALevel() throws {
        // Given a command line with a mistake, and a job file with two
        let harness = try RunHarness()
        let job = try job(harness)
        let bad = try harness.folder.write("bad.yaml", "version: 1\nsets:\n  - { name: s, urls: [\"ftp://x/a.png\"], colour: red }\n").path

        // When each runs with a JSON log
        let usage = try Binary.run(["run", job, "--log-format", "json", "--concurrency", "0"])
        let typo = try Binary.run(["run", job, "--log-format=json", "--concurrency"])
        let badJob = try Binary.run(["verify", bad, "--log-format", "json"])

        // Then each says what is wrong in error events and ends with a summary of exit status 2
        for (outcome, command) in [(usage, "run"), (typo, "run"), (badJob, "verify")] {
            let (events, summary) = try expectEnvelope(outcome, command: command, status: 2)
            let messages = events.dropLast()
            #expect(!messages.isEmpty && messages.allSatisfy { $0["event"] as? String == "message" && $0["level"] as? String == "error" },
                    "\(outcome.stderr)")
            #expect(summary["outcome"] as? String == "error")
        }
        #expect(try badJob.jsonLogLines().dropLast().count == 2, "one event a problem: \(badJob.stderr)")
    }

    @Test func cleanAndVerifyLogJSONToTheirSummaries() throws {
        // Given a cache a run filled with two images (its 404 missing), over a cap that one image is
        // under after the trim (to 0.8 of the cap)
        let harness = try RunHarness()
        let job = try job(harness)
        #expect(try Binary.run(["run", job, "--progress", "never"]).status == 1)

        // When verify and clean run with JSON logs
        let verify = try Binary.run(["verify", job, "--log-format", "json"])
        let cap = 2 * harness.png.count - 1
        let clean = try Binary.run(["clean", "--cache", harness.cachePath, "--max-size", "\(cap)", "--log-format", "json"])

        // Then verify's events say per job and in all what it found, and it lists the missing URL
        let (verifyEvents, verifySummary) = try expectEnvelope(verify, command: "verify", status: 1)
        #expect(verify.stdout == "missing \(harness.url("/status/404"))\n")
        let verified = try #require(verifyEvents.first)
        #expect(verified["event"] as? String == "verified" && verified["job"] as? String == "job")
        #expect(verified["checked"] as? Int == 3 && verified["fresh"] as? Int == 2 && verified["missing"] as? Int == 1)
        let verifyTotals = try #require(verifySummary["totals"] as? [String: Any])
        #expect(verifyTotals["checked"] as? Int == 3 && verifyTotals["missing"] as? Int == 1 && verifyTotals["stale"] as? Int == 0)
        #expect(verifySummary["jobs"] as? [String] == ["job"])

        // and clean's first event is its limits, its summary has its figures, and nothing is on stdout
        let (cleanEvents, cleanSummary) = try expectEnvelope(clean, command: "clean", status: 0)
        #expect(clean.stdout.isEmpty, "\(clean.stdout)")
        let limits = try #require(cleanEvents.first)
        #expect(limits["event"] as? String == "limits" && limits["max_size"] as? Int == cap)
        #expect(limits["max_age_ms"] as? Int == 7 * 86_400_000)
        #expect((limits["sources"] as? [String: String])?["max_size"] == "flag", "\(limits)")
        let totals = try #require(cleanSummary["totals"] as? [String: Any])
        let trimmed = try #require(totals["trimmed"] as? [String: Int])
        #expect(trimmed["entries"] == 1 && trimmed["bytes"] == harness.png.count, "\(totals)")
        #expect(totals["bytes_before"] as? Int == 2 * harness.png.count && totals["bytes_after"] as? Int == harness.png.count)
        #expect(cleanSummary["dry_run"] as? Bool == false && cleanSummary["outcome"] as? String == "completed")
        let stats = try Binary.run(["stats", "--cache", harness.cachePath, "--format", "json"])
        let held = try #require(try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any])
        #expect(held["bytes"] as? Int == totals["bytes_after"] as? Int)
    }

    @Test func textLogLinesOffATerminalStartWithTheTime() throws {
        // Given a job of two images and a 404
        let harness = try RunHarness()
        let job = try job(harness)
        let before = Date()

        // When run, verify and clean log as text to a pipe, as cron's log file takes them
        let outcomes = [
            try Binary.run(["run", job, "--verbose"]),
            try Binary.run(["verify", job]),
            try Binary.run(["clean", "--cache", harness.cachePath]),
        ]

        // Then every line starts with the time it was written, as the report spells times
        for outcome in outcomes {
            let lines = outcome.stderr.split(separator: "\n")
            #expect(!lines.isEmpty, "\(outcome.stderr)")
            let parser = ISO8601DateFormatter()
            parser.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            for line in lines {
                let stamp = try #require(line.prefixMatch(of: Binary.Outcome.stamp()), "no time: \(line)")
                let time = try #require(parser.date(from: String(stamp.output.dropLast())), "\(line)")
                #expect(time >= before.addingTimeInterval(-1) && time <= Date(), "\(line)")
            }
        }
        // (and after the time, each is the line a terminal shows)
        let runLines = outcomes[0].unstampedStderr.split(separator: "\n")
        #expect(runLines.contains { $0.hasPrefix("prefetchd: fetched \(harness.url("/ok/a")) [images] ") }, "\(outcomes[0].stderr)")
        #expect(runLines.last?.hasPrefix("prefetchd: job: 3 requested, 3 unique: 2 fetched") == true, "\(outcomes[0].stderr)")
    }

    @Test func cleanSaysItsFiguresOnce() throws {
        // Given a cache a run filled with two images, over a cap one of them is under after the trim
        let harness = try RunHarness()
        let job = try job(harness)
        #expect(try Binary.run(["run", job, "--progress", "never"]).status == 1)

        // When it is cleaned, its output and log both going to one file as in the crontab
        let cap = 2 * harness.png.count - 1
        let clean = try Binary.run(["clean", "--cache", harness.cachePath, "--max-size", "\(cap)"])

        // Then the figures are in the log once, each line stamped, and standard output is empty
        #expect(clean.status == 0, "\(clean.stderr)")
        #expect(clean.stdout.isEmpty, "\(clean.stdout)")
        let both = clean.stdout + clean.unstampedStderr
        for figure in ["removed 1 file", "trimmed ", "expired ", "orphan sweep ", "swept temp files "] {
            #expect(both.components(separatedBy: figure).count == 2, "\(figure) not once in: \(both)")
        }
        #expect(clean.unstampedStderr.hasPrefix("clean: limits max_size \(cap) (flag), "), "\(clean.stderr)")
        #expect(clean.unstampedStderr.contains("\n  trimmed               1 ("), "\(clean.stderr)")
    }
}

/// The pieces of the log: the one spelling of a time, the stamp, and when standard error gets it.
@Suite struct LogPiecesTests {
    @Test func timesAreISO8601InUTCWithMilliseconds() {
        #expect(Timestamp.iso8601(Date(timeIntervalSince1970: 1_800_000_000.25)) == "2027-01-15T08:00:00.250Z")
        #expect(Timestamp.iso8601(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00.000Z")
    }

    @Test func aStampStartsEveryLineOfAText() {
        let time = Date(timeIntervalSince1970: 1_800_000_000.25)
        #expect(Log.stamp("clean: removed 3 files\n  expired  3", at: time)
            == "2027-01-15T08:00:00.250Z clean: removed 3 files\n2027-01-15T08:00:00.250Z   expired  3\n")
    }

    @Test func theJournalsOwnStreamIsNotStamped() {
        // Off a terminal and off the journal it is stamped; the stream systemd names as the journal's is not
        var status = stat()
        #expect(fstat(STDERR_FILENO, &status) == 0)
        let terminal = isatty(STDERR_FILENO) == 1
        #expect(Log.stampsStandardError(environment: [:]) == !terminal)
        #expect(Log.stampsStandardError(environment: ["JOURNAL_STREAM": "\(status.st_dev):\(status.st_ino)"]) == false)
        #expect(Log.stampsStandardError(environment: ["JOURNAL_STREAM": "\(status.st_dev):\(status.st_ino + 1)"]) == !terminal)
    }

    @Test func everyEventCarriesTimeAndFormatVersion() throws {
        let line = Log.jsonLine(ProgressDisplay.Event(.init(done: 5, total: 8, failed: 1, bytes: 300), elapsed: 1.5),
                                at: Date(timeIntervalSince1970: 1_800_000_000.25))
        #expect(line == #"{"bytes":300,"done":5,"elapsed_ms":1500,"event":"progress","failed":1,"format_version":\#(PrefetchVersion.machineFormat),"time":"2027-01-15T08:00:00.250Z","total":8}"# + "\n")
    }
}
