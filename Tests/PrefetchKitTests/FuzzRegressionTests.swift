import Foundation
import Testing

/// Replays every saved fuzz input through its target's replayer (fuzz/README.md): the hand-made
/// seeds and each crash the fuzzers found (fuzz/crashes/<target>/), so a fixed crash stays fixed and
/// the targets' own checks hold on the seeds.
@Suite struct FuzzRegressionTests {
    /// fuzz/ at the package root: Tests/PrefetchKitTests/<this file> -> fuzz.
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("fuzz")

    static let targets = ["job-file", "url-pattern", "image", "http-headers"]

    @Test(arguments: targets)
    func savedInputsReplayCleanly(target: String) throws {
        let folders = ["seeds", "crashes"].map { Self.root.appendingPathComponent("\($0)/\(target)").path }
            .filter { FileManager.default.fileExists(atPath: $0) }
        let inputs = folders.flatMap { (try? FileManager.default.contentsOfDirectory(atPath: $0)) ?? [] }
            .filter { !$0.hasPrefix(".") }
        try #require(!inputs.isEmpty, "no saved inputs for fuzz-\(target)")

        let process = Process()
        process.executableURL = try Binary.executable("fuzz-\(target)")
        process.arguments = folders
        // A crash should end the replayer at once, not wait on the runtime's backtracer.
        process.environment = ProcessInfo.processInfo.environment.merging(["SWIFT_BACKTRACE": "enable=no"]) { $1 }
        let outcome = try Binary.outcome(of: process)
        // stderr names each input before it runs: the last one named is the one that crashed.
        let last = outcome.stderr.split(separator: "\n").suffix(3).joined(separator: "\n")
        #expect(outcome.status == 0, "fuzz-\(target) stopped (status \(outcome.status)):\n\(last)")
        #expect(outcome.stdout.contains("replayed \(inputs.count) input"), "\(outcome.stdout)")
    }
}
