import Foundation
import Testing
@testable import PrefetchKit

/// `prefetchd run --dry-run`: what it prints, and that it changes nothing.
@Suite(.timeLimit(.minutes(3)))
struct RunDryRunTests {
    @Test func dryRunPrintsWhatItWouldFetchAndCreatesNothing() throws {
        let harness = try RunHarness()
        let job = try harness.job(sets: [harness.set("images", ["/count/d1", "/count/d2"])])
        let scratch = harness.folder.file("tmpdir")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)

        let outcome = try Binary.run(["run", job, "--dry-run"], environment: ["TMPDIR": scratch.path])

        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stdout.split(separator: "\n") == [
            "fetch \(harness.url("/count/d1"))"[...], "fetch \(harness.url("/count/d2"))"[...],
        ])
        #expect(try harness.server.hits("d1") == 0)
        #expect(try harness.server.hits("d2") == 0)
        #expect(!FileManager.default.fileExists(atPath: harness.cachePath))
        let leftovers = try FileManager.default.subpathsOfDirectory(atPath: scratch.path)
        #expect(leftovers.isEmpty, "\(leftovers)")
    }

    @Test func dryRunAgainstACacheChangesNothing() throws {
        let harness = try RunHarness()
        let job = try harness.job(sets: [harness.set("images", ["/count/kept", "/count/new"])])
        let first = try harness.job("first", sets: [harness.set("images", ["/count/kept"])])
        try harness.run([first])
        let before = try indexState(harness.cachePath)

        let outcome = try Binary.run(["run", job, "--dry-run"])

        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stdout.split(separator: "\n") == ["fetch \(harness.url("/count/new"))"[...]])
        #expect(try harness.server.hits("new") == 0)
        #expect(try indexState(harness.cachePath) == before)
        try harness.expectCache(holds: [harness.url("/count/kept"): harness.png])
    }

    /// What the index says: its entries (with their last-use times), failures and last run.
    private func indexState(_ cache: String) throws -> ([CacheEntry], [FailureRecord], RunRecord?) {
        let index = try DiskCache.open(at: cache, layout: .native).index
        return (try index.allEntries(), try index.failures(), try index.lastRun())
    }
}
