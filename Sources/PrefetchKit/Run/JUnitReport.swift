/// `--junit FILE.xml`: one test case per set, so CI dashboards show a warm-cache step per set.
/// A set with failed URLs is a failed case listing them; a set with nothing but skips is skipped.
/// A run cut short (`problems`: a URL file not read to its end, a cache that stopped taking writes)
/// adds a case `run` in error, so the step is never green while work was left undone.
public enum JUnitReport {
    public static func xml(job: String, sets: [SetTally], durationSeconds: Double, problems: [String] = []) -> String {
        let failures = sets.filter { $0.failed > 0 }.count
        let skipped = sets.filter { $0.failed == 0 && $0.skipped > 0 && $0.succeeded == 0 }.count
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
        for set in sets {
            let name = "\(set.name) (\(set.requested) URLs: \(set.succeeded) ok, \(set.failed) failed, \(set.skipped) skipped)"
            lines.append(#"    <testcase classname="\#(escape(job))" name="\#(escape(name))">"#)
            if set.failed > 0 {
                let listed = set.failures.map { "\($0.url): \($0.reason)\($0.httpStatus.map { " (HTTP \($0))" } ?? "")" }
                let more = set.failed > set.failures.count ? ["... and \(set.failed - set.failures.count) more"] : []
                lines.append(#"      <failure message="\#(set.failed) of \#(set.requested) URLs failed" type="prefetch">\#(escape((listed + more).joined(separator: "\n")))</failure>"#)
            } else if set.skipped > 0 && set.succeeded == 0 {
                lines.append(#"      <skipped message="\#(set.skipped) URLs not attempted"/>"#)
            }
            lines.append("    </testcase>")
        }
        lines.append("  </testsuite>")
        lines.append("</testsuites>")
        return lines.joined(separator: "\n") + "\n"
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
