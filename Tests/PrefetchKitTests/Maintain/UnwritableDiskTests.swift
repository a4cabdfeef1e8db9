import Foundation
import Testing
@testable import PrefetchKit

/// The commands that only read a cache, on a disk that cannot take a write: mounted read-only (a cache
/// shipped in an image, a CI cache restored read-only) or full to the last byte.
@Suite(.timeLimit(.minutes(5))) struct UnwritableDiskTests {
    struct Disk: CustomStringConvertible, Sendable {
        let description: String
        /// The step that makes the disk at the path unwritable.
        let spoil: @Sendable (String) -> [String]
        /// What `clean` then ends with, and what its error says.
        let cleanStatus: Int32
        let cleanSays: String

        static let readOnly = Disk(description: "mounted read-only", spoil: { ["mount", "-o", "remount,ro", $0] },
                                   cleanStatus: 3, cleanSays: "Read-only file system")
        static let full = Disk(description: "full to the last byte", spoil: SmallDisk.fill, cleanStatus: 0,
                               cleanSays: "clean: nothing held back for the next clean on a full disk: Could not allocate 2.0 MiB for ")
    }

    @Test(arguments: [Disk.readOnly, .full])
    func theCommandsThatOnlyReadStillAnswer(_ disk: Disk) throws {
        // Given a cache of three entries a run stored, on a disk then made unwritable
        let harness = try RunHarness()
        let mountPoint = harness.folder.path + "/disk"
        let cache = mountPoint + "/cache"
        let urls = (1...3).map { harness.url("/bytes/2000/\($0)") }
        let job = try harness.job(cache: cache, set: """
            name: kept, validate: none, urls: [\(urls.map { "\"\($0)\"" }.joined(separator: ", "))]
            """)

        let steps = try SmallDisk.run(megabytes: 16, at: mountPoint, steps: [
            ["prefetchd", "run", job, "--progress", "never", "--quiet"],
            disk.spoil(mountPoint),
            // When the commands that only read are asked about it
            ["prefetchd", "stats", "--cache", cache, "--format", "json"],
            ["prefetchd", "verify", job],
            ["prefetchd", "path", urls[0], "--cache", cache],
            ["prefetchd", "fsck", "--cache", cache],
            ["prefetchd", "clean", "--cache", cache, "--dry-run"],
            ["prefetchd", "clean", "--cache", cache],
        ])
        #expect(steps[0].status == 0, "\(steps[0].stderr)")
        #expect(steps[1].status == 0, "\(steps[1].stderr)")
        let (stats, verify, path, fsck, dryRun, clean) = (steps[2], steps[3], steps[4], steps[5], steps[6], steps[7])

        // Then they answer from the index as the disk holds it
        #expect(stats.status == 0, "\(stats.stderr)")
        let object = try #require(try? JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any], "\(stats.stderr)")
        #expect(object["entries"] as? Int == 3)
        #expect(object["bytes"] as? Int == 6000)
        #expect(verify.status == 0, "\(verify.stdout) \(verify.stderr)")
        #expect(path.status == 0 && path.stdout.hasPrefix(cache + "/"), "\(path.stdout) \(path.stderr)")
        #expect(path.stderr.hasPrefix("prefetchd path: the use was not recorded: "), "\(path.stderr)")
        #expect(fsck.status == 0, "\(fsck.stdout) \(fsck.stderr)")
        #expect(dryRun.status == 0, "\(dryRun.stderr)")
        // and a clean, which must write, either works (a full disk, where it says it could not hold its
        // reserve back again, having freed nothing) or says why it cannot
        #expect(clean.status == disk.cleanStatus, "\(clean.stderr)")
        #expect(clean.stderr.contains(disk.cleanSays), "\(clean.stderr)")
    }

    @Test func aCacheOfAKilledRunIsReadWithItsLastCommitsOnAReadOnlyMount() throws {
        // Given a run killed part way (a run stopped by a full disk removes what its index could not
        // record, and the index then takes its -wal in), which leaves its last commits in the index's
        // -wal file, the disk then mounted read-only
        let harness = try RunHarness()
        let mountPoint = harness.folder.path + "/disk"
        let cache = mountPoint + "/cache"
        let job = try harness.job(cache: cache, set: """
            name: large, validate: none, concurrency: 1, url_pattern: "\(harness.url("/slow/100/[1-300]"))"
            """)

        let steps = try SmallDisk.run(megabytes: 8, at: mountPoint, steps: [
            ["timeout", "-s", "KILL", "3", Binary.url.path, "run", job, "--progress", "never", "--quiet"],
            ["stat", "-c", "%s", cache + "/index.sqlite-wal"],
            ["mount", "-o", "remount,ro", mountPoint],
            // When stats and verify are asked about it
            ["prefetchd", "stats", "--cache", cache, "--format", "json"],
            ["prefetchd", "verify", job],
        ])
        let (run, wal, stats, verify) = (steps[0], steps[1], steps[3], steps[4])
        #expect(run.status == 137, "\(run.stderr)")
        #expect((Int(wal.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) > 0, "\(wal.stdout) \(wal.stderr)")

        // Then they see the entries the run committed, and agree
        #expect(stats.status == 0, "\(stats.stderr)")
        let object = try #require(try? JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any], "\(stats.stderr)")
        let entries = try #require(object["entries"] as? Int)
        #expect(entries > 0 && entries < 300, "\(stats.stdout)")
        #expect(verify.status == 1, "\(verify.stderr)")
        #expect(verify.stdout.split(separator: "\n").filter { $0.hasPrefix("missing ") }.count == 300 - entries, "\(verify.stdout)")
    }

    @Test func anIndexOfAPreReleaseSchemaIsRefusedOnAReadOnlyMountToo() throws {
        // Given a cache of three entries whose index a pre-release prefetchd wrote (schema 7), on a
        // disk then mounted read-only
        let harness = try RunHarness()
        let mountPoint = harness.folder.path + "/disk"
        let cache = mountPoint + "/cache"
        let urls = (1...3).map { "\"\(harness.url("/bytes/2000/\($0)"))\"" }.joined(separator: ", ")
        let job = try harness.job(cache: cache, set: "name: kept, validate: none, urls: [\(urls)]")
        let downgrade = "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
            + "c.execute(\"UPDATE meta SET value = '7' WHERE key = 'schema_version'\"); c.commit()"

        let steps = try SmallDisk.run(megabytes: 16, at: mountPoint, steps: [
            ["prefetchd", "run", job, "--progress", "never", "--quiet"],
            ["python3", "-c", downgrade, cache + "/index.sqlite"],
            ["mount", "-o", "remount,ro", mountPoint],
            // When stats is asked about it
            ["prefetchd", "stats", "--cache", cache, "--format", "json"],
        ])
        #expect(steps[0].status == 0 && steps[1].status == 0, "\(steps[0].stderr) \(steps[1].stderr)")

        // Then it says which version it found and what to do, as on a writable disk
        let stats = steps[3]
        #expect(stats.status == 3, "\(stats.stderr)")
        #expect(stats.stderr.contains("has schema version 7, written by a pre-release prefetchd"), "\(stats.stderr)")
    }
}
