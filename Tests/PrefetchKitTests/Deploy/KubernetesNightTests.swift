import Foundation
import Testing
@testable import PrefetchKit

/// The shell scripts of the rendered shard and merge Jobs, run here as their pods run them (the
/// volumes' paths mapped into a folder of the test's, the built binary on PATH), for two nights of a
/// job one of whose URLs fails: the merge waits for every shard's new copy, night after night, and a
/// failed URL does not fail the merge Job.
@Suite(.timeLimit(.minutes(3))) struct KubernetesNightTests {
    struct Pods {
        let folder: TemporaryDirectory
        let shard: String
        let wait: String
        let merge: String
        let shards: Int
        let job: String

        init(job: String, folder: TemporaryDirectory) throws {
            let documents = try KubernetesManifestTests.render(into: folder).documents
            func script(_ job: String, _ name: String) throws -> (script: String, shards: Int?) {
                let containers = KubernetesManifestTests.containers([try KubernetesManifestTests.resource(documents, kind: "Job", name: job)])
                let container = try #require(containers.first { $0["name"] as? String == name }, "\(job) has no container \(name)")
                let args = try #require(container["args"] as? [String])
                return (try #require(args.first), KubernetesManifestTests.environment(container, "PREFETCHD_SHARDS").flatMap { Int($0) })
            }
            let shard = try script("prefetchd-shard", "prefetchd")
            self.shard = shard.script
            shards = try #require(shard.shards)
            wait = try script("prefetchd-merge", "wait-for-shards").script
            merge = try script("prefetchd-merge", "prefetchd").script
            self.folder = folder
            self.job = job
        }

        /// `script` with the pod's volumes mapped into the test's folder (`/cache` is pod `index`'s own).
        func mapped(_ script: String, pod index: Int) -> String {
            script.replacingOccurrences(of: "/etc/prefetchd/job.yaml", with: job)
                .replacingOccurrences(of: "/data", with: folder.path + "/data")
                .replacingOccurrences(of: "/cache", with: folder.path + "/cache\(index)")
        }

        func process(_ script: String, pod index: Int = 0) -> Process {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", mapped(script, pod: index)]
            let path = Binary.url.deletingLastPathComponent().path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
            process.environment = ProcessInfo.processInfo.environment.merging(
                ["PATH": path, "JOB_COMPLETION_INDEX": "\(index)", "PREFETCHD_SHARDS": "\(shards)", "POLL_SECONDS": "0.1"]) { $1 }
            return process
        }

        /// Every shard pod, one after the other (each a fresh emptyDir, as a new pod has).
        func runShards() throws {
            for index in 0..<shards {
                try? FileManager.default.removeItem(atPath: folder.path + "/cache\(index)")
                try FileManager.default.createDirectory(atPath: folder.path + "/cache\(index)", withIntermediateDirectories: true)
                let outcome = try Binary.outcome(of: process(shard, pod: index))
                #expect(outcome.status == 0, "shard \(index): \(outcome.stderr)")
            }
        }

        /// Starts the merge Job's init container (`KubernetesNightTests.ended` says when it has finished).
        func startWaiting() throws -> Process {
            let waiting = process(wait)
            waiting.standardOutput = FileHandle.nullDevice
            waiting.standardError = FileHandle.nullDevice
            try waiting.run()
            return waiting
        }

        func runMerge() throws -> Binary.Outcome {
            try Binary.outcome(of: process(merge))
        }
    }

    static func ended(_ process: Process, within seconds: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        return !process.isRunning
    }

    @Test func theMergeWaitsForEveryShardsNewCopyAndAFailedURLDoesNotFailIt() throws {
        // Given a job of 30 images and one URL that is gone
        let harness = try RunHarness()
        let job = try harness.job(sets: [harness.set("catalog", (0..<30).map { "/count/night-\($0)" } + ["/missing/night-gone"])])
        let pods = try Pods(job: job, folder: try TemporaryDirectory())

        // When the first night's shards ship their copies
        let firstWait = try pods.startWaiting()
        defer { if firstWait.isRunning { firstWait.terminate() } }
        #expect(!Self.ended(firstWait, within: 1), "the merge did not wait for the shards")
        try pods.runShards()

        // Then the merge starts, and exports the 30 images though one URL failed
        #expect(Self.ended(firstWait, within: 10) && firstWait.terminationStatus == 0)
        let first = try pods.runMerge()
        #expect(first.status == 0, "\(first.stderr)")
        let export = pods.folder.path + "/data/export"
        #expect(try FileManager.default.contentsOfDirectory(atPath: export).count == 31, "30 images and the manifest")

        // When the next night's merge starts before its shards have shipped
        let secondWait = try pods.startWaiting()
        defer { if secondWait.isRunning { secondWait.terminate() } }

        // Then it waits for every one of them, not last night's copies
        #expect(!Self.ended(secondWait, within: 1), "the merge took last night's copies")
        try pods.runShards()
        #expect(Self.ended(secondWait, within: 10) && secondWait.terminationStatus == 0)
        let second = try pods.runMerge()
        #expect(second.status == 0, "\(second.stderr)")
    }
}
