import Foundation
import Testing
@testable import PrefetchKit

/// A Kubernetes Indexed Job of N pods, simulated: N `prefetchd run` processes of the built binary,
/// each given `JOB_COMPLETION_INDEX` 0..N-1 and `PREFETCHD_SHARDS=N` and a cache of its own, against
/// one fixture server that logs every request; then their caches merged into one.
@Suite(.timeLimit(.minutes(5)))
struct FleetSimulationTests {
    /// 300 URLs, some of them listed twice (one key, fetched once).
    private static let paths = (0..<300).map { "/count/fleet-\($0)" }

    @Test(arguments: [1, 3, 8])
    func aFleetTransfersEveryURLOnceAndItsMergedCacheVerifies(pods: Int) throws {
        // Given a job of 300 unique URLs (with 20 of them twice)
        let harness = try RunHarness()
        let job = try harness.job(defaults: ["concurrency": "8", "per_host": "8"],
                                  sets: [harness.set("catalog", Self.paths), harness.set("again", Array(Self.paths.prefix(20)))])
        let caches = (0..<pods).map { harness.folder.path + "/pod\($0)" }

        // When N pods run it at once, each with its completion index and a cache of its own
        let processes = try (0..<pods).map { index -> (Process, Pipe) in
            let process = Process()
            process.executableURL = Binary.url
            process.arguments = ["run", job, "--cache", caches[index], "--progress", "never",
                                 "--report", harness.folder.path + "/report\(index).json"]
            process.environment = ProcessInfo.processInfo.environment.merging(
                ["JOB_COMPLETION_INDEX": "\(index)", "PREFETCHD_SHARDS": "\(pods)"]) { $1 }
            let errors = Pipe()
            process.standardError = errors
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            return (process, errors)
        }
        for (index, (process, errors)) in processes.enumerated() {
            let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "pod \(index): \(stderr)")
        }

        // Then every URL was transferred exactly once in all
        let requested = try harness.server.requestLog().map(\.path).filter { $0.hasPrefix("/count/fleet-") }
        #expect(requested.count == Self.paths.count && Set(requested) == Set(Self.paths), "\(requested.count) requests")
        // and the pods' shares are pairwise disjoint and cover the job, each the shard its index names
        var covered = Set<String>()
        for (index, cache) in caches.enumerated() {
            let keys = try cacheKeys(cache).keys
            #expect(covered.isDisjoint(with: keys), "pod \(index) overlaps another")
            covered.formUnion(keys)
            let shard = try #require(Shard(index: index + 1, count: pods))
            #expect(keys.allSatisfy(shard.contains(key:)))
            let report = try readReport(harness.folder.path + "/report\(index).json")
            #expect(report.shard.text == (pods == 1 ? "1/1" : shard.label))
            #expect(report.totals.fetched == keys.count && report.totals.failed == 0)
        }
        #expect(covered == Set(Self.paths.map(harness.url)))

        // When the pods' caches are merged into one
        let merged = harness.folder.path + "/merged"
        let merge = try Binary.run(["merge"] + caches + ["--into", merged])
        #expect(merge.status == 0, "\(merge.stderr)")

        // Then verify of the job on it passes, fsck finds nothing, and it holds the job's unique keys
        let verify = try Binary.run(["verify", job, "--cache", merged])
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
        let fsck = try Binary.run(["fsck", "--cache", merged])
        #expect(fsck.status == 0, "\(fsck.stdout)\(fsck.stderr)")
        let (keys, rows) = try cacheKeys(merged)
        #expect(rows == Self.paths.count && keys == covered)

        // When the merged cache is exported as an SDImageCache folder
        let bundle = harness.folder.path + "/bundle"
        let export = try Binary.run(["export", bundle, "--layout", "sdwebimage", job, "--cache", merged])
        #expect(export.status == 0, "\(export.stdout)\(export.stderr)")

        // Then it holds one file a key, each named by SDDiskCacheFileNameForKey's rule (the MD5 of the
        // key, from Python's hashlib; these URLs have no extension), and the manifest
        let digests = try ExportTests.md5(covered.sorted())
        #expect(try ExportTests.files(in: bundle) == Set(digests.values).union(["manifest.json"]))
        let listed = try ExportTests.entries(in: bundle)
        #expect(Set(listed.keys) == covered)
        #expect(listed.allSatisfy { key, entry in entry["file"] as? String == digests[key] })
    }
}
