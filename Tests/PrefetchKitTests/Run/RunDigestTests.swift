import Foundation
import Testing
@testable import PrefetchKit

/// A run whose URL file gives digests: each body is checked as stored (decoded), a mismatch is a
/// `digest_mismatch` failure with no file that the next run tries again, and comments still work.
@Suite(.timeLimit(.minutes(3)))
struct RunDigestTests {
    @Test func aURLFilesDigestsAreCheckedOverTheStoredBodies() throws {
        let harness = try RunHarness()
        let sha256 = DigestHeaderTests.hex(harness.png, "sha256")
        let sha512 = DigestHeaderTests.hex(harness.png, "sha512")
        let wrong = DigestHeaderTests.hex(harness.png + [0], "sha256")
        try harness.folder.write("urls.txt", """
            # digests of the PNG the server sends
            \(harness.url("/ok/right")) sha256:\(sha256)

            \(harness.url("/encoded/gzip"))\tsha512:\(sha512.uppercased())
            \(harness.url("/ok/wrong")) sha256:\(wrong)
            \(harness.url("/ok/none"))

            """)
        let job = try harness.job(sets: ["  - name: listed\n    url_file: urls.txt"])

        let result = try harness.run([job])

        #expect(result.report.totals == .expected(requested: 4, unique: 4, fetched: 3, failed: 1, bytes: 3 * harness.png.count))
        let failure = try #require(result.report.failures.first)
        #expect(failure.url == harness.url("/ok/wrong"))
        #expect(failure.reason == "digest_mismatch")
        #expect(failure.attempts == 1)
        #expect(failure.message.contains("the url_file line gives sha256 \(wrong), the body has \(sha256)"), "\(failure.message)")
        // Not the URL's own for good: the next run tries it again.
        let ledger = try #require(try harness.ledger(forKey: harness.url("/ok/wrong")))
        #expect(try #require(ledger.nextRetryAt) <= Date())
        try harness.expectCache(holds: [harness.url("/ok/right"): harness.png, harness.url("/encoded/gzip"): harness.png,
                                        harness.url("/ok/none"): harness.png],
                                without: [harness.url("/ok/wrong")])
    }

    /// A server's digest header is checked over the bytes as sent; a cache hit is not checked again.
    @Test func aServersDigestIsCheckedOnTransfersOnly() throws {
        let harness = try RunHarness()
        let paths = ["/digest/repr-sha512/right", "/encoded/br/encoded", "/digest/content-md5/wrong"]
        let job = try harness.job(sets: [harness.set("images", paths)])

        let first = try harness.run([job])
        let second = try harness.run([job])

        #expect(first.report.totals == .expected(requested: 3, unique: 3, fetched: 2, failed: 1, bytes: 2 * harness.png.count))
        #expect(first.report.failures.map(\.reason) == ["digest_mismatch"])
        #expect(second.report.totals == .expected(requested: 3, unique: 3, cached: 2, failed: 1))
        try harness.expectCache(holds: [harness.url(paths[0]): harness.png, harness.url(paths[1]): harness.png],
                                without: [harness.url(paths[2])])
    }
}
