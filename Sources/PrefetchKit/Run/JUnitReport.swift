import Foundation

/// `--junit FILE.xml`: one test case per set, so CI dashboards show a warm-cache step per set; its class
/// is the set's job, so sets of the same name in two job files stay apart, and its name is the set's
/// name alone, so a dashboard's history of the case carries over from run to run (the counts are in its
/// `<system-out>`).
/// A set with URLs that failed, or that the failure ledger kept from being tried, is a failed case
/// listing them; a set with nothing but skips, or with nothing done at all (its job's cache could not
/// be used, or the run stopped before it), is skipped.
/// A run cut short (`problems`: a URL file not read to its end, a cache that stopped taking writes)
/// adds a case `run` in error, so the step is never green while work was left undone.
/// The output is XML 1.0 whatever the names and URLs hold (`XMLText`), and valid against the xUnit
/// plugin's JUnit schema (`Tests/Fixtures/junit/`).
package enum JUnitReport {
    /// The suite's own facts: when the run started, how long it took, and on which host.
    package struct Suite: Sendable {
        package var job: String
        package var started: Date
        package var durationSeconds: Double
        package var hostname: String
    }

    package static func xml(_ suite: Suite, sets jobSets: [(job: String, set: SetTally)], problems: [String] = []) -> String {
        let sets = jobSets.map(\.set)
        let cutShort = !problems.isEmpty
        let failures = sets.filter { $0.unsuccessful > 0 }.count
        let skipped = sets.filter { isSkipped($0, cutShort: cutShort) }.count
        let errors = cutShort ? 1 : 0
        let tests = sets.count + errors
        let time = seconds(suite.durationSeconds)
        let job = XMLText.attribute(suite.job)
        var lines = [
            #"<?xml version="1.0" encoding="UTF-8"?>"#,
            #"<testsuites name="prefetchd" tests="\#(tests)" failures="\#(failures)" errors="\#(errors)" time="\#(time)">"#,
            #"  <testsuite name="\#(job)" tests="\#(tests)" failures="\#(failures)" errors="\#(errors)" skipped="\#(skipped)" "#
                + #"time="\#(time)" timestamp="\#(timestamp(suite.started))" hostname="\#(XMLText.attribute(suite.hostname))">"#,
        ]
        if cutShort {
            lines.append(#"    <testcase classname="\#(job)" name="run" time="\#(time)">"#)
            lines.append(#"      <error message="the run was cut short" type="prefetch">\#(XMLText.content(problems.joined(separator: "\n")))</error>"#)
            lines.append("    </testcase>")
        }
        for (setJob, set) in jobSets {
            lines.append(#"    <testcase classname="\#(XMLText.attribute(setJob))" name="\#(XMLText.attribute(set.name))" time="\#(seconds(set.seconds))">"#)
            if set.unsuccessful > 0 {
                lines.append(#"      <failure message="\#(failureMessage(set))" type="prefetch">\#(XMLText.content(listing(set)))</failure>"#)
            } else if isSkipped(set, cutShort: cutShort) {
                let message = set.skipped > 0 ? "\(counted(set.skipped, "URL")) not attempted"
                    : set.requested > 0 ? "\(counted(set.requested, "URL")) not reached" : "not reached"
                lines.append(#"      <skipped message="\#(message)"/>"#)
            }
            lines.append("      <system-out>\(counts(set))</system-out>")
            lines.append("    </testcase>")
        }
        lines.append("  </testsuite>")
        lines.append("</testsuites>")
        return lines.joined(separator: "\n") + "\n"
    }

    /// Nothing of the set succeeded, failed or was ledgered, and it had URLs, or the run was cut short
    /// or stopped before it asked for any (never reached).
    private static func isSkipped(_ set: SetTally, cutShort: Bool) -> Bool {
        set.unsuccessful == 0 && set.succeeded == 0 && (set.skipped > 0 || set.requested > 0 || cutShort)
    }

    /// The set's counts, the text of its `<system-out>`.
    static func counts(_ set: SetTally) -> String {
        "\(counted(set.requested, "URL")): \(set.succeeded) ok, \(set.failed) failed, \(set.ledgered) ledgered, \(set.skipped) skipped"
    }

    private static func failureMessage(_ set: SetTally) -> String {
        let ledgered = set.ledgered > 0 ? " (\(set.ledgered) ledgered: failed in an earlier run, not due again yet)" : ""
        return "\(set.unsuccessful) of \(counted(set.requested, "URL")) failed\(ledgered)"
    }

    /// One line per failure listed (the first ones), and how many more there were.
    private static func listing(_ set: SetTally) -> String {
        let listed = set.failures.map { failure in
            let status = failure.httpStatus.map { " (HTTP \($0))" } ?? ""
            let ledgered = failure.nextRetry.map { ", ledgered until \($0)" } ?? ""
            return "\(failure.url): \(failure.reason)\(status)\(ledgered)"
        }
        let more = set.unsuccessful > set.failures.count ? ["... and \(set.unsuccessful - set.failures.count) more"] : []
        return (listed + more).joined(separator: "\n")
    }

    private static func seconds(_ value: Double) -> String {
        String((value * 1000).rounded() / 1000)
    }

    /// The suite's `timestamp`: ISO 8601 in UTC without a zone, as Ant's JUnit schema has it.
    private static func timestamp(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss"
        return formatter.string(from: date)
    }
}
