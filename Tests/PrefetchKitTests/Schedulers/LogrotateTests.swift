import Foundation
import Testing

/// `logrotate -d` (a dry run) on `cron/prefetchd.logrotate`, its `/var/log/...` path below a
/// temporary root and its user the test's own. The tool comes from Debian's `logrotate` package
/// (scripts/test installs it); without it this fails.
@Suite(.timeLimit(.minutes(1))) struct LogrotateTests {
    @Test func theLogrotateFileRotatesTheCrontabsLogs() throws {
        let tool = "/usr/sbin/logrotate"
        try #require(FileManager.default.isExecutableFile(atPath: tool), "\(tool) is missing: apt-get install logrotate")
        try TemporaryDirectory.withPath { root in
            let schedule = ShippedSchedule(root: root)
            let user = ProcessInfo.processInfo.environment["USER"] ?? NSUserName()
            let text = schedule.substituted(try ShippedSchedule.text("prefetchd.logrotate"))
                .replacingOccurrences(of: "prefetchd prefetchd", with: "\(user) \(user)")
            try FileManager.default.createDirectory(atPath: schedule.path("/var/log/prefetchd"), withIntermediateDirectories: true)
            for log in Crontab(try ShippedSchedule.text("prefetchd.crontab")).commands.flatMap(logs) {
                try "a line\n".write(toFile: schedule.path(log), atomically: true, encoding: .utf8)
            }
            try text.write(toFile: root + "/prefetchd.logrotate", atomically: true, encoding: .utf8)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: tool)
            process.arguments = ["-d", "-s", root + "/state", root + "/prefetchd.logrotate"]
            let outcome = try Binary.outcome(of: process)
            let said = outcome.stdout + outcome.stderr
            #expect(outcome.status == 0, "\(said)")
            #expect(!said.lowercased().contains("error"), "\(said)")
            for log in ["run.log", "clean.log"] {
                #expect(said.contains("considering log \(schedule.path("/var/log/prefetchd/" + log))"), "\(said)")
            }
        }
    }

    /// The files a crontab command appends its output to.
    private func logs(_ command: String) -> [String] {
        command.split(separator: " ").filter { $0.hasPrefix(">>") }.map { String($0.dropFirst(2)) }
    }
}
