import Foundation
import Testing
@testable import PrefetchKit

/// A set's `max_bytes` and `max_pixels` exactly at the size of what the server sends, and one below it.
@Suite(.timeLimit(.minutes(3)))
struct RunSetLimitTests {
    @Test func aBodyOfExactlyMaxBytesIsStoredAndOneByteMoreIsRefused() throws {
        // Given a set whose max_bytes is the size of the PNG it asks for, and one whose max_bytes is a byte less
        let harness = try RunHarness()
        let size = harness.png.count
        let job = try harness.job(sets: [
            harness.set("at", ["/ok/at-the-limit"], ["max_bytes: \(size)"]),
            harness.set("over", ["/ok/over-the-limit"], ["max_bytes: \(size - 1)"]),
        ])

        let result = try harness.run([job])

        // Then the first is stored, the second fails as too large
        #expect(result.report.totals == .expected(requested: 2, unique: 2, fetched: 1, failed: 1, bytes: size))
        #expect(result.report.failures.map(\.url) == [harness.url("/ok/over-the-limit")])
        #expect(result.report.failures.map(\.reason) == ["too_large"])
        try harness.expectCache(holds: [harness.url("/ok/at-the-limit"): harness.png],
                                without: [harness.url("/ok/over-the-limit")])
    }

    @Test func anImageOfExactlyMaxPixelsIsStoredAndOneMoreIsRefused() throws {
        // Given two 3x1 PNGs, one asked for by a set whose max_pixels is 3, the other by one whose max_pixels is 2
        let harness = try RunHarness()
        for name in ["at-the-limit", "over-the-limit"] { _ = try harness.server.get("/set-width/\(name)/3") }
        let body = try harness.server.get("/image/at-the-limit").body
        let job = try harness.job(sets: [
            harness.set("at", ["/image/at-the-limit"], ["max_pixels: 3"]),
            harness.set("over", ["/image/over-the-limit"], ["max_pixels: 2"]),
        ])

        let result = try harness.run([job])

        // Then the first is stored, the second fails with too many pixels
        #expect(result.report.totals == .expected(requested: 2, unique: 2, fetched: 1, failed: 1, bytes: body.count))
        #expect(result.report.failures.map(\.url) == [harness.url("/image/over-the-limit")])
        #expect(result.report.failures.map(\.reason) == ["too_many_pixels"])
        let entry = try #require(try DiskCache.open(at: harness.cachePath, layout: .native).lookup(key: harness.url("/image/at-the-limit")))
        #expect(entry.width == 3 && entry.height == 1)
        try harness.expectCache(holds: [harness.url("/image/at-the-limit"): body],
                                without: [harness.url("/image/over-the-limit")])
    }
}
