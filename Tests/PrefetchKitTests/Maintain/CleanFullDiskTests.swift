import Foundation
import Testing
@testable import PrefetchKit

/// The nightly clean on a disk that is already full: what a cron job meets after a run filled it.
@Suite(.timeLimit(.minutes(5))) struct CleanFullDiskTests {
    /// A disk's mount point and the cache on it, and a run of three small URLs into that cache, which
    /// reports to a file beside the disk.
    struct World {
        let harness: RunHarness
        let disk: String
        let cache: String
        let report: String
        let run: [String]

        init() throws {
            let harness = try RunHarness()
            let disk = harness.folder.path + "/disk"
            let urls = (1...3).map { "\"\(harness.url("/bytes/2000/\($0)"))\"" }.joined(separator: ", ")
            let job = try harness.job(cache: disk + "/cache", set: "name: later, validate: none, urls: [\(urls)]")
            let report = harness.folder.file("report.json").path
            (self.harness, self.disk, cache, self.report) = (harness, disk, disk + "/cache", report)
            run = ["prefetchd", "run", job, "--report", report, "--progress", "never", "--quiet"]
        }
    }

    /// A cache of 10,000 entries on a disk of its own: URLs of about 40 characters, or with a query of
    /// 1,500 (signed URLs), whose rows a batch's commit must be able to delete without room to spare.
    struct Filled: CustomStringConvertible, Sendable {
        let queryLength: Int
        let megabytes: Int
        var description: String { "URLs with a query of \(queryLength) characters" }
    }

    @Test(arguments: [Filled(queryLength: 0, megabytes: 64), Filled(queryLength: 1500, megabytes: 160)])
    func aCleanFreesADiskFilledToTheLastByteAndTheNextRunHasRoom(_ filled: Filled) throws {
        // Given a cache of 10,000 entries on a disk of its own, the disk then filled to the last byte, so
        // that a run cannot store anything
        let world = try World()
        let (disk, cache, report, run) = (world.disk, world.cache, world.report, world.run)

        let steps = try SmallDisk.run(megabytes: filled.megabytes, at: disk, steps: [
            ["cache-filler", cache, "10000", "0", String(filled.queryLength)],
            SmallDisk.fill(disk),
            run,
            // When the nightly clean trims it to 1 MiB
            ["prefetchd", "clean", "--cache", cache, "--max-size", "1MiB"],
            ["prefetchd", "stats", "--cache", cache, "--format", "json"],
            ["stat", "-c", "%s %b %B", cache + "/tmp/" + SpaceReserve.name],
            ["prefetchd", "clean", "--cache", cache, "--dry-run"],
            run,
        ])
        let (filler, _, fullRun, clean, stats, reserve, dryRun, nextRun) = (steps[0], steps[1], steps[2], steps[3], steps[4], steps[5], steps[6], steps[7])
        #expect(filler.status == 0, "\(filler.stderr)")
        #expect(fullRun.status == 3 && fullRun.stderr.contains("No space left on device"), "\(fullRun.stderr)")

        // Then the clean succeeds, down to its low-water mark, with no journal left behind
        #expect(clean.status == 0, "\(clean.stderr)")
        #expect(!clean.stderr.contains("nothing held back"), "\(clean.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any], "\(stats.stderr)")
        let bytes = try #require(object["bytes"] as? Int)
        #expect(bytes > 0 && bytes <= (1 << 20) * 8 / 10, "\(bytes)")
        // and holds its reserve back again for the next full disk
        let reserveFields = reserve.stdout.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        #expect(reserveFields.count == 3 && reserveFields[0] == SpaceReserve.size && Int64(reserveFields[1] * reserveFields[2]) >= SpaceReserve.size,
                "\(reserve.stdout) \(reserve.stderr)")
        // (its own file, which a clean that does not free it, a dry run, does not count as foreign)
        let foreign = dryRun.stderr.split(separator: "\n").first { $0.contains("foreign, left alone") } ?? ""
        #expect(dryRun.status == 0 && foreign.hasSuffix(" 0 (0 B)"), "\(dryRun.stdout) \(dryRun.stderr)")
        // And the next run stores what it fetches
        #expect(nextRun.status == 0, "\(nextRun.stderr)")
        let written = try readReport(report)
        #expect(written.totals.fetched == 3)
    }

    @Test func aCleanFreesADiskOutOfInodes() throws {
        // Given a disk of 700 inodes, filled with a cache of small entries until no file can be made
        let world = try World()
        let (disk, cache, report, run) = (world.disk, world.cache, world.report, world.run)

        let steps = try SmallDisk.run(megabytes: 64, inodes: 700, at: disk, steps: [
            ["cache-filler", cache, "2000"],
            run,
            // When the nightly clean trims it
            ["prefetchd", "clean", "--cache", cache, "--max-size", "100KiB"],
            run,
        ])
        let (filler, fullRun, clean, nextRun) = (steps[0], steps[1], steps[2], steps[3])
        #expect(filler.stderr.contains("No space left on device"), "\(filler.stderr)")
        #expect(fullRun.status == 3, "\(fullRun.stderr)")

        // Then the clean succeeds and the next run stores what it fetches
        #expect(clean.status == 0, "\(clean.stderr)")
        #expect(nextRun.status == 0, "\(nextRun.stderr)")
        #expect(try readReport(report).totals.fetched == 3)
    }

    @Test func aRunHoldsBackAgainTheRoomAKilledCleanLetGo() throws {
        // Given a cache whose reserve a clean let go before it was killed, and a run over it
        let world = try World()
        let steps = try SmallDisk.run(megabytes: 16, at: world.disk, steps: [
            world.run,
            ["/bin/sh", "-c", "rm \"$0\"/tmp/clean.reserve*", world.cache],
            world.run,
            // When the disk then fills up, and the nightly clean runs
            SmallDisk.fill(world.disk),
            ["prefetchd", "clean", "--cache", world.cache, "--max-size", "1KiB"],
        ])
        #expect(steps[0].status == 0 && steps[1].status == 0 && steps[2].status == 0, "\(steps.map(\.stderr))")

        // Then the clean has its room
        #expect(steps[4].status == 0, "\(steps[4].stderr)")
    }

    @Test func aCleanStoppedBySIGTERMHoldsItsRoomBackAgain() throws {
        // Given a clean that has let its reserve go and waits for another clean's lock
        try TemporaryDirectory.withPath { folder in
            let cache = try DiskCache.open(at: folder, layout: .native)
            _ = try fillCache(cache, count: 3)
            try cache.flush()
            guard case .success(let held) = try CacheFolderLock.acquire(CacheCleaner(cache, policy: testPolicy()).lockPath, wait: 0) else {
                Issue.record("the lock was not free")
                return
            }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["--default-signal=TERM", Binary.url.path, "clean", "--cache", folder]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            let reserve = SpaceReserve.path(root: cache.root)
            let deadline = Date().addingTimeInterval(5)
            while FileManager.default.fileExists(atPath: reserve) && Date() < deadline { usleep(10_000) }
            #expect(!FileManager.default.fileExists(atPath: reserve), "the clean did not let its reserve go")

            // When it gets SIGTERM
            kill(process.processIdentifier, SIGTERM)
            process.waitUntilExit()
            withExtendedLifetime(held) {}

            // Then it exits 143 with its reserve whole again
            #expect(process.terminationReason == .exit && process.terminationStatus == 143)
            #expect(SpaceReserve.names.allSatisfy { FileManager.default.fileExists(atPath: SpaceReserve.path(root: cache.root, $0)) })
        }
    }

    @Test func aRunThatFillsTheDiskStopsAndSaysHowToFreeIt() throws {
        // Given a 4 MiB disk, half of it the new cache's reserve, and a run asking for a 3 MB body
        let harness = try RunHarness()
        let disk = harness.folder.path + "/disk"
        let job = try harness.job(cache: "\(disk)/cache", set: """
            name: large, validate: none, urls: ["\(harness.url("/bytes/3000000/1"))"]
            """)

        let steps = try SmallDisk.run(megabytes: 4, at: disk, steps: [["prefetchd", "run", job, "--progress", "never", "--quiet"]])

        // Then the run stops on the full disk, and its one line says what to do
        let run = steps[0]
        #expect(run.status == 3, "\(run.stderr)")
        let reason = run.stderr.split(separator: "\n").first { $0.contains("is unusable") } ?? ""
        #expect(reason.contains("No space left on device.") && reason.hasSuffix("`prefetchd clean` frees space on a full disk."),
                "\(run.stderr)")
    }

    @Test func aRunStoppedByAFullDiskLeavesNoFileWithoutItsRow() throws {
        // Given a 4 MiB disk, half of it the new cache's reserve, and a run asking for 80 bodies of 60 KB
        let harness = try RunHarness()
        let disk = harness.folder.path + "/disk"
        let urls = (1...80).map { "\"\(harness.url("/bytes/60000/\($0)"))\"" }.joined(separator: ", ")
        let job = try harness.job(cache: "\(disk)/cache", set: "name: many, validate: none, urls: [\(urls)]")
        let report = harness.folder.path + "/report.json"

        let steps = try SmallDisk.run(megabytes: 4, at: disk, steps: [
            ["prefetchd", "run", job, "--progress", "never", "--quiet", "--report", report],
            ["prefetchd", "fsck", "--cache", "\(disk)/cache"],
            ["prefetchd", "stats", "--cache", "\(disk)/cache", "--format", "json"],
        ])

        // Then the run stops on the full disk, fsck finds every body it left with its row, and the
        // report counts as fetched exactly the entries the cache holds
        #expect(steps[0].status == 3, "\(steps[0].stderr)")
        #expect(steps[1].status == 0, "\(steps[1].stdout) \(steps[1].stderr)")
        #expect(steps[1].stdout.isEmpty, "\(steps[1].stdout)")
        let written = try readReport(report)
        let stats = try #require(try? JSONSerialization.jsonObject(with: Data(steps[2].stdout.utf8)) as? [String: Any])
        #expect(stats["entries"] as? Int == written.totals.fetched, "\(steps[2].stdout)")
        #expect(written.totals.fetched + written.totals.failed + written.totals.skipped == written.totals.unique)
    }
}
