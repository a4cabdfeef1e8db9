import Foundation
import Testing
@testable import PrefetchKit

/// The shipped crontab's lines and the units' `ExecStart=` lines, run as written against a cache a
/// job with `max_size` filled: the crontab's in `env -i` with cron's `PATH=/usr/bin:/bin` and its own
/// variables, the units' with only their `Environment=` lines. The one change is the documented
/// install location: `/usr/local/bin/prefetchd` is the built binary and `/var/...`, `/etc/...` lie
/// below a temporary root (`ShippedSchedule.substituted`).
@Suite(.timeLimit(.minutes(3))) struct ShippedSchedulerTests {
    /// 10 bodies of 1000 bytes against a cap of 4000.
    private static let cap: Int64 = 4000

    @Test func theCrontabRunsTheJobThenCleansTheCacheToItsRecordedCap() throws {
        let server = try FixtureServer()
        try TemporaryDirectory.withPath { root in
            let schedule = ShippedSchedule(root: root)
            let crontab = Crontab(schedule.substituted(try ShippedSchedule.text("prefetchd.crontab")))
            // The folders its install comments make (owned by prefetchd there; the test's own user here).
            let folders = crontab.installSteps.filter { $0.hasPrefix("install -d ") }
            #expect(folders.count == 3)
            for step in folders {
                let words = step.replacingOccurrences(of: "-o prefetchd -g prefetchd ", with: "").split(separator: " ").map(String.init)
                #expect(try ShippedSchedule.runIsolated(["/usr/bin/" + words[0]] + words.dropFirst(), variables: []).status == 0, "\(step)")
            }
            try writeJob(schedule, server: server)

            #expect(crontab.commands.count == 2)
            for command in crontab.commands {
                let outcome = try ShippedSchedule.runIsolated(["/bin/sh", "-c", command], variables: [("PATH", "/usr/bin:/bin")] + crontab.variables)
                #expect(outcome.status == 0, "\(command): \(outcome.stdout) \(outcome.stderr)")
            }
            try expectCapped(schedule)
            let cleanLog = try String(contentsOfFile: schedule.path("/var/log/prefetchd/clean.log"), encoding: .utf8)
            // (every line of it starts with the time, as a cron log needs)
            #expect(cleanLog.split(separator: "\n").allSatisfy { $0.prefixMatch(of: Binary.Outcome.stamp()) != nil }, "\(cleanLog)")
            #expect(cleanLog.replacing(Binary.Outcome.stamp(), with: "", maxReplacements: 1).hasPrefix("clean: limits max_size 4000 (recorded), "), "\(cleanLog)")
            let runLog = try String(contentsOfFile: schedule.path("/var/log/prefetchd/run.log"), encoding: .utf8)
            #expect(runLog.contains("catalog: 10 requested, 10 unique: 10 fetched"), "\(runLog)")
        }
    }

    @Test func theRunAndCleanUnitsDoTheSame() throws {
        let server = try FixtureServer()
        try TemporaryDirectory.withPath { root in
            let schedule = ShippedSchedule(root: root)
            let run = SystemdUnit(schedule.substituted(try ShippedSchedule.text("prefetchd-run@.service")))
            let clean = SystemdUnit(schedule.substituted(try ShippedSchedule.text("prefetchd-clean.service")))
            // What systemd makes for them: CacheDirectory= below /var/cache, StateDirectory= below /var/lib.
            for unit in [run, clean] {
                for name in unit.values("CacheDirectory") { try makeFolder(schedule.path("/var/cache/" + name)) }
                for name in unit.values("StateDirectory") { try makeFolder(schedule.path("/var/lib/" + name)) }
            }
            try makeFolder(schedule.path("/etc/prefetchd"))
            try writeJob(schedule, server: server)

            for unit in [run, clean] {
                let writable = unit.values("ReadWritePaths").flatMap { $0.split(separator: " ").map(String.init) }
                for command in unit.commands(instance: "catalog") {
                    for written in writtenPaths(command) {
                        #expect(writable.contains { written == $0 || written.hasPrefix($0 + "/") }, "\(written) is not in ReadWritePaths=")
                    }
                    let outcome = try ShippedSchedule.runIsolated(command, variables: unit.environment)
                    #expect(outcome.status == 0, "\(command): \(outcome.stdout) \(outcome.stderr)")
                }
            }
            try expectCapped(schedule)
        }
    }

    /// `/etc/prefetchd/catalog.yaml`: the install comments' "your job file", here one whose 10,000
    /// bytes are over its cap.
    private func writeJob(_ schedule: ShippedSchedule, server: FixtureServer) throws {
        let text = sizedBodiesJob("catalog", cache: schedule.path("/var/cache/prefetchd"), limits: ["max_size: \(Self.cap)"], server: server)
        try text.write(toFile: schedule.path("/etc/prefetchd/catalog.yaml"), atomically: true, encoding: .utf8)
    }

    private func makeFolder(_ path: String) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// The folders a command writes: its `--cache` and the folder of its `--output`.
    private func writtenPaths(_ command: [String]) -> [String] {
        zip(command, command.dropFirst()).compactMap { option, value in
            switch option {
            case "--cache": value
            case "--output": URL(fileURLWithPath: value).deletingLastPathComponent().path
            default: nil
            }
        }
    }

    /// The cache was filled past its cap and cleaned to it, and the export names the cap.
    private func expectCapped(_ schedule: ShippedSchedule) throws {
        let cache = try DiskCache.open(at: schedule.path("/var/cache/prefetchd"), layout: .native)
        let bytes = try cache.index.totalBytes()
        #expect(bytes > 0 && bytes <= Self.cap, "\(bytes) bytes after the clean")
        let export = try String(contentsOfFile: schedule.path("/var/lib/prefetchd/prefetchd.prom"), encoding: .utf8)
        #expect(export.contains("prefetchd_cache_max_size_bytes{cache=\"\(cache.root)\"} \(Self.cap)\n"), "\(export)")
    }
}
