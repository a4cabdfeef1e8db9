/// `--junit FILE.xml`: one test case per set, so CI dashboards show a warm-cache step per set; its class
/// is the set's job, so sets of the same name in two job files stay apart.
/// A set with failed URLs is a failed case listing them; a set with nothing but skips, or with nothing
/// done at all (its job's cache could not be used, or the run stopped before it), is skipped.
/// A run cut short (`problems`: a URL file not read to its end, a cache that stopped taking writes)
/// adds a case `run` in error, so the step is never green while work was left undone.
package enum JUnitReport {
    package static func xml(job: String, sets jobSets: [(job: String, set: SetTally)], durationSeconds: Double,
                           problems: [String] = []) -> String {
        let sets = jobSets.map(\.set)
        let failures = sets.filter { $0.failed > 0 }.count
        let skipped = sets.filter { isSkipped($0, cutShort: !problems.isEmpty) }.count
        let errors = problems.isEmpty ? 0 : 1
        let tests = sets.count + errors
        let time = seconds(durationSeconds)
        var lines = [
            #"<?xml version="1.0" encoding="UTF-8"?>"#,
            #"<testsuites name="prefetchd" tests="\#(tests)" failures="\#(failures)" errors="\#(errors)" time="\#(time)">"#,
            #"  <testsuite name="\#(escape(job))" tests="\#(tests)" failures="\#(failures)" errors="\#(errors)" skipped="\#(skipped)" time="\#(time)">"#,
        ]
        if !problems.isEmpty {
            lines.append(#"    <testcase classname="\#(escape(job))" name="run">"#)
            lines.append(#"      <error message="the run was cut short" type="prefetch">\#(escape(problems.joined(separator: "\n")))</error>"#)
            lines.append("    </testcase>")
        }
        for (setJob, set) in jobSets {
            let name = "\(set.name) (\(counted(set.requested, "URL")): \(set.succeeded) ok, \(set.failed) failed, \(set.skipped) skipped)"
            lines.append(#"    <testcase classname="\#(escape(setJob))" name="\#(escape(name))">"#)
            if set.failed > 0 {
                let listed = set.failures.map { "\($0.url): \($0.reason)\($0.httpStatus.map { " (HTTP \($0))" } ?? "")" }
                let more = set.failed > set.failures.count ? ["... and \(set.failed - set.failures.count) more"] : []
                lines.append(#"      <failure message="\#(set.failed) of \#(counted(set.requested, "URL")) failed" type="prefetch">\#(escape((listed + more).joined(separator: "\n")))</failure>"#)
            } else if isSkipped(set, cutShort: !problems.isEmpty) {
                let message = set.skipped > 0 ? "\(counted(set.skipped, "URL")) not attempted"
                    : set.requested > 0 ? "\(counted(set.requested, "URL")) not reached" : "not reached"
                lines.append(#"      <skipped message="\#(message)"/>"#)
            }
            lines.append("    </testcase>")
        }
        lines.append("  </testsuite>")
        lines.append("</testsuites>")
        return lines.joined(separator: "\n") + "\n"
    }

    /// Nothing of the set succeeded or failed, and it had URLs, or the run was cut short or stopped
    /// before it asked for any (never reached).
    private static func isSkipped(_ set: SetTally, cutShort: Bool) -> Bool {
        set.failed == 0 && set.succeeded == 0 && (set.skipped > 0 || set.requested > 0 || cutShort)
    }

    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default: out.append(character)
            }
        }
        return out
    }

    private static func seconds(_ value: Double) -> String {
        String((value * 1000).rounded() / 1000)
    }
}
