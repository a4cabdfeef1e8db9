import Foundation
import Testing
@testable import PrefetchKit

/// A run records its job's `cache:` limits in the index; `clean --cache DIR` and `stats --cache DIR`
/// apply them, under a job file and flags given to the command.
@Suite(.timeLimit(.minutes(3))) struct RecordedLimitsTests {
    private let loose = CacheLimits(maxSize: 2 << 20, maxAge: 86_400, expireBy: .access, trimTo: 0.8)
    private let tight = CacheLimits(maxSize: 1 << 20, maxAge: 0, expireBy: .creation, trimTo: 0.5)

    @Test func twoJobsCombineToTheTighterOfEachLimitAndTheLaterExpiryClock() {
        let combined = loose.combined(with: tight)
        #expect(combined == CacheLimits(maxSize: 1 << 20, maxAge: 86_400, expireBy: .creation, trimTo: 0.5))
        #expect(tight.combined(with: loose) == CacheLimits(maxSize: 1 << 20, maxAge: 86_400, expireBy: .access, trimTo: 0.5))
        let unlimited = CacheLimits(maxSize: 0, maxAge: 0, expireBy: .access, trimTo: 1)
        #expect(unlimited.combined(with: unlimited) == unlimited)
    }

    @Test func aFlagOutranksAJobFileWhichOutranksTheRecordedLimits() {
        let defaults = ResolvedLimits(recorded: nil)
        #expect(defaults.limits == .defaults)
        #expect(CacheLimits.Field.allCases.allSatisfy { defaults.source($0) == .default })

        let recorded = ResolvedLimits(recorded: tight)
        #expect(recorded.limits == tight)
        #expect(recorded.summary == "max_size 1MiB (recorded), max_age 0 (recorded), expire_by creation (recorded), trim_to 0.5 (recorded)")

        let overridden = ResolvedLimits(recorded: tight, overrides: LimitOverrides(jobFile: loose, maxSize: 5_000))
        #expect(overridden.limits == CacheLimits(maxSize: 5_000, maxAge: 86_400, expireBy: .access, trimTo: 0.8))
        #expect(overridden.summary == "max_size 5000 (flag), max_age 1d (job file), expire_by access (job file), trim_to 0.8 (job file)")
    }

    @Test func eachJobKeepsOneRecordAndACacheWithoutAnyHasNone() throws {
        try TemporaryDirectory.withPath { folder in
            let cache = try DiskCache.open(at: folder, layout: .native)
            #expect(try cache.index.recordedLimits() == nil)
            try cache.index.recordLimits(loose, job: "a", at: Date(timeIntervalSince1970: 1))
            try cache.index.recordLimits(tight, job: "b", at: Date(timeIntervalSince1970: 2))
            #expect(try cache.index.recordedLimits() == loose.combined(with: tight))
            // Job b's next run, looser, replaces its own record; a's limits still hold.
            try cache.index.recordLimits(loose, job: "b", at: Date(timeIntervalSince1970: 3))
            #expect(try cache.index.recordedLimits() == loose)
        }
    }

    @Test func cleanAndStatsOnTheCacheFolderUseTheLimitsTheRunRecorded() throws {
        try withJobs(["capped": ["max_size: 4000", "trim_to: 0.5"]]) { cache, files in
            let job = files[0]
            let run = try Binary.run(["run", job])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(warnings(run).isEmpty, "a first run has nothing to disagree with: \(run.stderr)")

            let text = try Binary.run(["stats", "--cache", cache])
            #expect(text.stdout.contains("max size   3.9 KiB (250.0% used)"), "\(text.stdout)")
            #expect(text.stdout.contains("limits     max_size 4000 (recorded), max_age 7d (recorded), expire_by access (recorded), trim_to 0.5 (recorded)"),
                    "\(text.stdout)")
            let json = try statsJSON(["--cache", cache])
            #expect(json["max_size"] as? Int == 4000)
            let limits = try #require(json["limits"] as? [String: [String: Any]])
            #expect(limits["max_size"]?["value"] as? Int == 4000)
            #expect(limits["max_size"]?["source"] as? String == "recorded")
            #expect(limits["max_age"]?["value"] as? Int == 604_800)
            #expect(limits["trim_to"]?["value"] as? Double == 0.5)

            let clean = try Binary.run(["clean", "--cache", cache])
            #expect(clean.status == 0, "\(clean.stderr)")
            #expect(clean.unstampedStderr.hasPrefix("clean: limits max_size 4000 (recorded), "), "\(clean.stderr)")
            #expect(try DiskCache.open(at: cache, layout: .native).index.totalBytes() <= 2_000)
        }
    }

    @Test func aJobFileGivenToTheCommandAndItsFlagsOverrideTheRecordedLimits() throws {
        try withJobs(["capped": ["max_size: 4000"], "other": ["max_size: 6000"]]) { cache, files in
            let (job, other) = (files[0], files[1])
            #expect(try Binary.run(["run", job]).status == 0)

            let byJob = try #require(try statsJSON([other])["limits"] as? [String: [String: Any]])
            #expect(byJob["max_size"]?["value"] as? Int == 6000)
            #expect(byJob["max_size"]?["source"] as? String == "job file")
            let byFlag = try Binary.run(["clean", other, "--max-size", "8000", "--dry-run"])
            #expect(byFlag.unstampedStderr.hasPrefix("clean: limits max_size 8000 (flag), max_age 7d (job file), "), "\(byFlag.stderr)")
            // 10 x 1000 bytes trimmed to 0.8 x 8000.
            #expect(byFlag.stdout.split(separator: "\n").filter { $0.hasPrefix("would remove trimmed ") }.count == 4, "\(byFlag.stdout)")
        }
    }

    @Test func aRunWarnsWhenItsLimitsDisagreeWithTheRecordedOnes() throws {
        try withJobs(["first": ["max_size: 1MiB", "max_age: 2d"], "second": ["max_size: 2MiB", "max_age: 0"]]) { cache, files in
            let (first, second) = (files[0], files[1])
            #expect(warnings(try Binary.run(["run", first])).isEmpty)

            let run = try Binary.run(["run", second])
            #expect(run.status == 0)
            #expect(warnings(run) == ["prefetchd: cache \(cache): job second has max_size 2MiB, max_age 0 where earlier runs recorded "
                              + "max_size 1MiB, max_age 2d; a clean without a job file now applies max_size 1MiB, max_age 2d"])
            #expect(warnings(try Binary.run(["run", first])).isEmpty, "the tighter job agrees with what applies")
            let limits = try #require(try statsJSON(["--cache", cache])["limits"] as? [String: [String: Any]])
            #expect(limits["max_size"]?["value"] as? Int == 1 << 20)
            #expect(limits["max_age"]?["value"] as? Int == 2 * 86_400)
        }
    }

    @Test func aCacheWithoutRecordedLimitsIsCleanedWithTheDefaults() throws {
        try TemporaryDirectory.withPath { folder in
            let cache = try DiskCache.open(at: folder, layout: .native)
            _ = try fillCache(cache, count: 10)
            try cache.flush()
            let stats = try Binary.run(["stats", "--cache", folder])
            #expect(stats.stdout.contains("max size   none\n"), "\(stats.stdout)")
            #expect(stats.stdout.contains("limits     max_size 0 (default), max_age 7d (default), expire_by access (default), trim_to 0.8 (default)"))
            let clean = try Binary.run(["clean", "--cache", folder])
            #expect(clean.status == 0)
            #expect(try cache.index.totals("all").first?.entries == 10)
        }
    }

    /// The lines of a run's standard error that are not its summary.
    private func warnings(_ run: Binary.Outcome) -> [Substring] {
        run.unstampedStderr.split(separator: "\n").filter { !$0.contains(" requested, ") }
    }

    /// Writes `<name>.yaml` for each of `jobs` (a name and its `cache:` limit lines), all on one
    /// cache, and runs `body` with the cache folder and the files, in order.
    private func withJobs(_ jobs: KeyValuePairs<String, [String]>, _ body: (_ cache: String, _ files: [String]) throws -> Void) throws {
        let server = try FixtureServer()
        try TemporaryDirectory.withPath { folder in
            let cache = folder + "/cache"
            let files = try jobs.map { name, limits in
                let path = folder + "/\(name).yaml"
                try sizedBodiesJob(name, cache: cache, limits: limits, server: server).write(toFile: path, atomically: true, encoding: .utf8)
                return path
            }
            try body(cache, files)
        }
    }

    private func statsJSON(_ arguments: [String]) throws -> [String: Any] {
        let stats = try Binary.run(["stats", "--format", "json"] + arguments)
        #expect(stats.status == 0, "\(stats.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any])
    }
}
