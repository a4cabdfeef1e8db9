import Foundation
import Testing
@testable import PrefetchKit

/// `stall:` against a server that stops sending, judged by the server's own clock: from the last byte
/// it sent to the moment it saw the client close.
@Suite(.timeLimit(.minutes(3)))
struct FetchStallTests {
    /// A body that stops dead after 64 KiB is given up on at the limit's time after its last byte (not
    /// five seconds later, as libcurl's own five-second average would), and not before it.
    @Test(arguments: [2, 4])
    func aBodyThatStopsIsAbortedAtTheStallTime(seconds: Int) async throws {
        let harness = try FetchHarness()
        defer { harness.close() }
        let request = Self.request(harness, "/stall/dead-\(seconds)/65536", StallLimit(bytesPerSecond: 1024, time: .seconds(seconds)))

        let result = await harness.engine.fetch(request)

        #expect(result.error?.reason == "timeout")
        #expect(result.error?.description.contains("under 1024 bytes/s for \(seconds) s") == true, "\(String(describing: result.error))")
        let waited = try Self.record(harness.server, "dead-\(seconds)")
        #expect(waited >= Double(seconds) - 0.25, "aborted \(waited) s after the last byte")
        #expect(waited <= Double(seconds) + 2, "aborted \(waited) s after the last byte")
        #expect(!harness.exists(request.destination))
    }

    /// A body that keeps coming, but slower than the limit, is aborted once a whole window of it is
    /// too slow; one that comes faster is fetched whole though it takes twice the window.
    @Test func aTrickleBelowTheLimitIsAbortedAndOneAboveItIsNot() async throws {
        let harness = try FetchHarness()
        defer { harness.close() }
        let slow = Self.request(harness, "/trickle/slow/200/100000", StallLimit(bytesPerSecond: 1024, time: .seconds(2)))
        let fast = Self.request(harness, "/trickle/fast/8192/32768", StallLimit(bytesPerSecond: 1024, time: .seconds(2)))

        let results = await harness.fetchAll([slow, fast])

        let slowResult = try #require(results.first { $0.url == slow.url })
        let fastResult = try #require(results.first { $0.url == fast.url })
        #expect(slowResult.error?.reason == "timeout")
        #expect(fastResult.response?.bytes == 32768, "\(String(describing: fastResult.error))")
        let slowWaited = try Self.record(harness.server, "slow")
        #expect(slowWaited >= 1.75 && slowWaited <= 4, "the slow body was aborted after \(slowWaited) s")
        let fastTook = try Self.record(harness.server, "fast")
        #expect(fastTook >= 3, "the fast body took \(fastTook) s")
    }

    /// With `low_speed_limit: 0` there is no stall limit: only the timeout ends a body that stops.
    @Test func aZeroLimitLeavesOnlyTheTimeout() async throws {
        let harness = try FetchHarness()
        defer { harness.close() }
        let request = Self.request(harness, "/stall/off/1000", StallLimit(bytesPerSecond: 0, time: .seconds(1)), timeout: .seconds(3))

        let result = await harness.engine.fetch(request)

        #expect(result.error?.reason == "timeout")
        #expect(result.error?.description.contains("stall") == false, "\(String(describing: result.error))")
        let waited = try Self.record(harness.server, "off")
        #expect(waited >= 2.5, "aborted \(waited) s after the last byte, before the 3 s timeout")
    }

    /// A request for `path` with `stall` and a timeout far beyond it unless given.
    static func request(_ harness: FetchHarness, _ path: String, _ stall: StallLimit, timeout: Duration = .seconds(40)) -> FetchRequest {
        var request = harness.request(path)
        request.timeout = timeout
        request.stall = stall
        return request
    }

    /// The server's record of a stall: seconds from its last byte (or its headers, for a trickle) to the
    /// client's close, polled until the server has seen the close.
    static func record(_ server: FixtureServer, _ name: String) throws -> Double {
        for _ in 0..<100 {
            let text = String(decoding: try server.get("/stalled/\(name)").body, as: UTF8.self)
            if let seconds = Double(text) { return seconds }
            usleep(50_000)
        }
        throw FixtureServer.GetError(description: "the server never saw the client close \(name)")
    }
}
