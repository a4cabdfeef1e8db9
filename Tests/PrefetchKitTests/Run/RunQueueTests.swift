import Foundation
import Testing
@testable import PrefetchKit

/// `run a.yaml b.yaml` as one queue: every high set of every file first, while each job keeps its
/// own cache, ledger, counts and report section.
@Suite(.timeLimit(.minutes(1))) struct RunQueueTests {
    /// A job file `name.yaml` with its own cache `name-cache`, one transfer at a time, and sets.
    static func job(_ harness: RunHarness, _ name: String, sets: [String]) throws -> String {
        try harness.folder.write("\(name).yaml", """
            version: 1
            name: \(name)
            cache: { path: "\(harness.folder.path)/\(name)-cache" }
            defaults: { concurrency: 1, per_host: 1, retries: 0, timeout: 5s }
            sets:
            \(sets.joined(separator: "\n"))

            """).path
    }

    @Test func everyHighSetOfEveryFileGoesBeforeAnyLowOne() throws {
        let harness = try RunHarness()
        let a = try Self.job(harness, "a", sets: [
            harness.set("a-low", ["/ok/a-low-1", "/ok/a-low-2"], ["priority: low"]),
            harness.set("a-high", ["/ok/a-high-1", "/ok/a-high-2"], ["priority: high"]),
        ])
        let b = try Self.job(harness, "b", sets: [
            harness.set("b-normal", ["/ok/b-normal-1"]),
            harness.set("b-low", ["/ok/b-low-1", "/missing/b-low-2"], ["priority: low"]),
            harness.set("b-high", ["/ok/b-high-1", "/ok/b-high-2"], ["priority: high"]),
        ])
        let result = try harness.run([a, b])

        // Given the server's own log: high of a, high of b, normal, then low of a and of b.
        let asked = try harness.server.requestLog().map(\.path).filter { $0.contains("-high-") || $0.contains("-low-") || $0.contains("-normal-") }
        #expect(asked == ["/ok/a-high-1", "/ok/a-high-2", "/ok/b-high-1", "/ok/b-high-2", "/ok/b-normal-1",
                          "/ok/a-low-1", "/ok/a-low-2", "/ok/b-low-1", "/missing/b-low-2"])
        // Each job's sets, counted as that job's, in each file's order.
        #expect(result.setJobs == ["a", "a", "b", "b", "b"])
        #expect(result.sets.map(\.name) == ["a-high", "a-low", "b-high", "b-normal", "b-low"])
        #expect(result.sets.map(\.failed) == [0, 0, 0, 0, 1])
        #expect(result.report.job == "a, b")
        #expect(result.report.totals.fetched == 8 && result.report.totals.failed == 1)
        // Each cache holds its own job's bodies, and the 404 is in b's ledger only.
        let aCache = try DiskCache.open(at: harness.folder.path + "/a-cache", layout: .native)
        let bCache = try DiskCache.open(at: harness.folder.path + "/b-cache", layout: .native)
        #expect(Set(try aCache.index.allEntries().compactMap(\.key).map { $0.components(separatedBy: "/").last! })
            == ["a-high-1", "a-high-2", "a-low-1", "a-low-2"])
        #expect(try bCache.index.allEntries().count == 4)
        let missing = harness.url("/missing/b-low-2")
        #expect(try bCache.index.failure(forKey: missing)?.httpStatus == 404)
        #expect(try aCache.index.failure(forKey: missing) == nil)
        // Each cache records its own job's run.
        #expect(try aCache.index.lastRun()?.job == "a")
        #expect(try bCache.index.lastRun()?.job == "b")
    }

    @Test func jobsOnOneCacheShareItAndTheSecondFindsTheFirstsBodies() throws {
        let harness = try RunHarness()
        let first = try harness.job("first", sets: [harness.set("x", ["/count/shared", "/count/one"])])
        let second = try harness.job("second", sets: [harness.set("y", ["/count/shared"], ["priority: low"])])
        let result = try harness.run([first, second])
        #expect(result.report.totals.fetched == 2 && result.report.totals.cached == 1)
        #expect(try harness.server.get("/hits/shared").body == Data("1".utf8))
        try harness.expectCache(holds: [harness.url("/count/shared"): harness.png, harness.url("/count/one"): harness.png])
    }

    @Test func aJobAskingAnotherLayoutOfASharedCacheFailsAsItWouldAlone() throws {
        // Given a native job and, on the same cache folder, one asking for the SDWebImage layout
        let harness = try RunHarness()
        let native = try harness.job("native", sets: [harness.set("x", ["/ok/native"])])
        let flat = try harness.folder.write("flat.yaml", """
            version: 1
            name: flat
            cache: { path: "\(harness.cachePath)", layout: sdwebimage }
            network: { allow_private: true }
            sets:
            \(harness.set("y", ["/ok/flat.png"], ["priority: low"]))

            """).path

        // When both run in one queue
        let result = try harness.run([native, flat])

        // Then the first is stored, and the second fails on the cache's layout, storing nothing
        #expect(result.problems.contains { $0.contains("uses the native layout, not sdwebimage") }, "\(result.problems)")
        #expect(result.report.totals.fetched == 1, "\(result.report.totals)")
        try harness.expectCache(holds: [harness.url("/ok/native"): harness.png])
        #expect(try harness.server.requestLog().map(\.path).contains("/ok/flat.png") == false)
    }

    @Test func aKeyTheFirstJobFailsIsLedgeredForTheSecondOnTheSameCache() throws {
        let harness = try RunHarness()
        let first = try harness.job("first", sets: [harness.set("x", ["/missing/gone", "/slow/300?n=1"])])
        let second = try harness.job("second", sets: [harness.set("y", ["/missing/gone"], ["priority: low"])])
        let result = try harness.run([first, second])
        // Asked once: the second job waited for the first's 404 and found it in the ledger.
        #expect(try harness.server.get("/hits/gone").body == Data("1".utf8))
        #expect(result.report.totals.failed == 1 && result.report.totals.ledgered == 1, "\(result.report.totals)")
        #expect(result.sets.map(\.unsuccessful) == [1, 1])
    }
}
