import Foundation
import Testing
@testable import PrefetchKit

/// `rate_limit` and `hosts:` against the misbehaving server, judged by the server's own request and
/// write times, with the 25 % margins a loaded 2-core machine keeps.
@Suite(.timeLimit(.minutes(2))) struct RunRateLimitTests {
    /// A job with the harness's cache and defaults, `hosts:` for 127.0.0.1 when given, and `sets`.
    static func job(_ harness: RunHarness, name: String = "job", defaults: [String: String] = [:],
                    host: String? = nil, sets: [String]) throws -> String {
        let merged = RunHarness.baseDefaults.merging(defaults) { $1 }
        let hosts = host.map { "hosts:\n  \"127.0.0.1\": { rate_limit: \($0) }\n" } ?? ""
        return try harness.folder.write("\(name).yaml", """
            version: 1
            name: \(name)
            cache: { path: "\(harness.cachePath)" }
            defaults:
            \(merged.keys.sorted().map { "  \($0): \(merged[$0]!)" }.joined(separator: "\n"))
            \(hosts)sets:
            \(sets.joined(separator: "\n"))

            """).path
    }

    @Test func aSetsRequestRateHoldsOverFiveSeconds() throws {
        let harness = try RunHarness()
        let paths = (0..<70).map { "/ok/r\($0)" }
        let job = try Self.job(harness, sets: [harness.set("s", paths, ["rate_limit: { requests_per_second: 10 }"])])
        let result = try harness.run([job])
        #expect(result.report.totals.fetched == 70)

        let log = try harness.server.requestLog().filter { $0.path.hasPrefix("/ok/r") }
        let first = try #require(log.first).time
        let window = requests(log, from: first, seconds: 5)
        // 10 a second, one at once: 50 (51 with the first) in any 5 s.
        #expect((38...62).contains(window.count), "\(window.count) requests in 5 s at 10/s")
        // The whole run went at that pace, and the report says it waited.
        #expect(try #require(log.last).time - first >= 0.75 * 6.9)
        #expect(result.report.rateWaitSeconds >= 3 && result.report.rateWaitSeconds <= result.report.durationSeconds)
    }

    @Test func twoSetsOnOneHostShareTheHostsLimit() throws {
        let harness = try RunHarness()
        // Wide enough that both sets wait at the engine at once: apart, each would go at 4 a second.
        let first = harness.set("first", (0..<16).map { "/ok/a\($0)" })
        let second = harness.set("second", (0..<40).map { "/ok/b\($0)" })
        let job = try Self.job(harness, defaults: ["concurrency": "16"], host: "{ requests_per_second: 4 }",
                               sets: [first, second])
        let result = try harness.run([job])
        #expect(result.report.totals.fetched == 56)

        let log = try harness.server.requestLog().filter { $0.path.hasPrefix("/ok/a") || $0.path.hasPrefix("/ok/b") }
        let start = try #require(log.first).time
        let window = requests(log, from: start, seconds: 5)
        #expect(window.contains { $0.path.hasPrefix("/ok/b") }, "the sets overlap")
        // 4 a second over both sets: 20 (21) in 5 s; a bucket per set would let about 36 through.
        #expect((15...25).contains(window.count), "\(window.count) requests in 5 s at 4/s shared")
        #expect(result.report.rateWaitSeconds > 5)
    }

    @Test func aHostsLimitInOneJobFileHoldsEveryFilesRequests() throws {
        let harness = try RunHarness()
        let limited = try Self.job(harness, name: "limited", host: "{ requests_per_second: 4 }",
                                   sets: [harness.set("mine", (0..<4).map { "/ok/m\($0)" })])
        let other = try Self.job(harness, name: "other", sets: [harness.set("theirs", (0..<10).map { "/ok/t\($0)" })])
        let result = try harness.run([limited, other])
        #expect(result.report.totals.fetched == 14)

        // The file without `hosts:` goes at the other's 4 a second too, on the one engine.
        let theirs = try harness.server.requestLog().filter { $0.path.hasPrefix("/ok/t") }.map(\.time)
        #expect(theirs.count == 10)
        let gap = median(gaps(theirs))
        #expect(gap >= 0.75 * 0.25, "median gap \(gap) s at 4/s")
    }

    @Test(arguments: [true, false])
    func a429WithRetryAfterHoldsAndSlowsTheHost(configured: Bool) throws {
        let harness = try RunHarness()
        let before = (0..<10).map { "/ok/p\($0)" }
        let after = (0..<10).map { "/ok/q\($0)" }
        let job = try Self.job(harness, defaults: ["concurrency": "1", "per_host": "1", "retries": "2"],
                               host: configured ? "{ requests_per_second: 10 }" : nil,
                               sets: [harness.set("s", before + ["/retry-after-once/x/429/2"] + after)])
        let result = try harness.run([job]) { $0.settings.retryMaxDelay = .seconds(10) }
        #expect(result.report.totals.fetched == 21)

        let log = try harness.server.requestLog().filter {
            $0.path.hasPrefix("/ok/p") || $0.path.hasPrefix("/ok/q") || $0.path.hasPrefix("/retry-after-once/")
        }
        let refused = try #require(log.firstIndex { $0.path.hasPrefix("/retry-after-once/") })
        #expect(log.count == 22 && refused == 10)
        // Nothing goes to the host for the 2 s the 429 asked for.
        let held = log[refused + 1].time - log[refused].time
        #expect(held >= 0.75 * 2, "the next request came \(held) s after the 429")
        guard configured else { return }
        // Then at half the rate: 5 a second, against 10 before.
        let paced = median(gaps(log[..<refused].map(\.time)))
        let slowed = median(gaps(log[(refused + 1)...].map(\.time)))
        #expect(slowed >= 0.75 * 0.2, "median gap \(slowed) s after the 429")
        #expect(slowed >= 1.5 * paced, "median gap \(slowed) s after the 429, \(paced) s before")
        #expect(result.report.rateWaitSeconds > 2)
    }

    @Test func aHostsByteRateHoldsOverBothSets() throws {
        let harness = try RunHarness()
        let limit = 512 << 10
        // 3 MiB in 128 KiB bodies, four at a time, over two sets: about 6 s at 512 KiB/s.
        let first = harness.set("first", (0..<12).map { "/paced/131072/\($0)" })
        let second = harness.set("second", (12..<24).map { "/paced/131072/\($0)" })
        let job = try Self.job(harness, defaults: ["validate": "none", "timeout": "30s"],
                               host: "{ bytes_per_second: 512KiB }", sets: [first, second])
        let result = try harness.run([job])
        #expect(result.report.totals.fetched == 24)
        #expect(result.report.totals.bytes == 24 * 131_072)

        let chunks = try harness.server.chunkLog()
        let start = try #require(chunks.first).time
        // The middle of the run, where the socket buffers are as full at the end as at the start.
        let middle = chunks.filter { $0.time >= start + 1 && $0.time < start + 5 }.reduce(0) { $0 + $1.bytes }
        let rate = Double(middle) / 4
        #expect(rate >= 0.75 * Double(limit) && rate <= 1.25 * Double(limit), "\(Int(rate)) bytes/s against \(limit)")
        #expect(result.report.rateWaitSeconds > 2)
    }

    @Test func aTransferPausedForItsBytesIsNotAStall() throws {
        let harness = try RunHarness()
        // Each piece libcurl hands over (up to 100 KiB) is paid for by pauses of up to 3 s at 32 KiB/s,
        // far past a 1 s stall limit; the pauses are the limit's own doing, not the server's.
        let job = try Self.job(harness, defaults: ["validate": "none", "timeout": "30s",
                                                   "stall": "{ low_speed_limit: 1, low_speed_time: 1s }"],
                               host: "{ bytes_per_second: 32KiB }",
                               sets: [harness.set("s", ["/paced/196608/1", "/paced/196608/2"])])
        let result = try harness.run([job])
        #expect(result.report.totals.fetched == 2, "\(result.report.failures)")
        #expect(result.report.durationSeconds >= 0.75 * 12 - 1)
    }

    @Test func theReportGivesTheWaitAndNoLimitWaitsNothing() throws {
        let harness = try RunHarness()
        let job = try Self.job(harness, sets: [harness.set("s", (0..<5).map { "/ok/n\($0)" })])
        let reportPath = harness.folder.path + "/report.json"
        let result = try harness.run([job]) { $0.reportPath = reportPath }
        #expect(result.report.rateWaitSeconds == 0)
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: reportPath))) as? [String: Any]
        #expect(json?["rate_wait_s"] as? Double == 0)
        #expect(!result.report.summary.contains("rate limits"))
    }
}
