import Foundation
import Testing
@testable import PrefetchKit

/// An index damaged deeper inside than opening it reads (its last pages zeroed: a table's or an
/// index's leaves) is found by `fsck`, which every other command sends the user to, and `fsck
/// --repair` makes it again from the files.
@Suite(.timeLimit(.minutes(3))) struct DamagedIndexTests {
    @Test func fsckFindsADamagedIndexAndRepairMakesItAgainFromTheFiles() throws {
        // Given a cache of 300 entries that a run stored, whose index's last three pages are zeroed
        let harness = try RunHarness()
        let paths = (1...300).map { "/ok/\($0)" }
        let job = try harness.job(sets: [harness.set("s", paths, ["validate: header"])])
        #expect(try Binary.run(["run", job, "--progress", "never", "--quiet"]).status == 0)
        let index = harness.cachePath + "/index.sqlite"
        #expect(!FileManager.default.fileExists(atPath: index + "-wal"), "the run's last close checkpoints the index")
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: index))
        let size = try handle.seekToEnd()
        try handle.seek(toOffset: size - 3 * 4096)
        try handle.write(contentsOf: Data(count: 3 * 4096))
        try handle.close()

        // When verify reads the rows, it fails and says what to do
        let verify = try Binary.run(["verify", job])
        #expect(verify.status == 3, "\(verify.stderr)")
        #expect(verify.stderr.contains("database disk image is malformed")
                && verify.stderr.hasSuffix("`prefetchd fsck --repair` sets the damaged index aside and makes it again from the files.\n"),
                "\(verify.stderr)")

        // And fsck reports the damage on one line, and nothing else, changing nothing
        let found = try Binary.run(["fsck", "--cache", harness.cachePath])
        #expect(found.status == 1, "\(found.stderr)")
        let lines = found.stdout.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].hasPrefix("index.sqlite: damaged ("), "\(found.stdout)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: harness.cachePath).allSatisfy { !$0.contains(".corrupt-") })

        // Then fsck --repair sets it aside and makes it again from the files, every entry kept
        let repaired = try Binary.run(["fsck", "--cache", harness.cachePath, "--repair"])
        #expect(repaired.status == 1 && repaired.stderr.contains("1 problem found and repaired"), "\(repaired.stderr)")
        #expect(repaired.stderr.contains("it is kept as \(index).corrupt-"), "\(repaired.stderr)")
        let after = try Binary.run(["fsck", "--cache", harness.cachePath])
        #expect(after.status == 0 && after.stdout.isEmpty, "\(after.stdout)\(after.stderr)")
        let stats = try Binary.run(["stats", "--cache", harness.cachePath, "--format", "json"])
        let totals = try #require(try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any])
        #expect(totals["entries"] as? Int == 300, "\(stats.stdout)")
        // and a run of the job finds every body where it was, fetching nothing
        let rerun = try Binary.run(["run", job, "--progress", "never"])
        #expect(rerun.status == 0 && rerun.stderr.contains("0 fetched, 300 cached"), "\(rerun.stderr)")
    }
}
