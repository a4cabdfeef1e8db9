import Foundation
import Testing
@testable import PrefetchKit

/// One way a URL fails, and what the run must make of it.
struct FailureCase: Sendable, CustomTestStringConvertible {
    let path: String
    /// Job defaults for this case (retries, timeout, max_bytes).
    let defaults: [String: String]
    let reason: String
    let status: Int?
    let attempts: Int
    /// Permanent failures wait a day in the ledger; transient ones are due again at the next run.
    let permanent: Bool
    let testDescription: String

    static let all = [
        FailureCase(path: "/status/404", defaults: [:], reason: "http_404", status: 404, attempts: 1,
                    permanent: true, testDescription: "404"),
        FailureCase(path: "/status/410", defaults: [:], reason: "http_410", status: 410, attempts: 1,
                    permanent: true, testDescription: "410"),
        // Retry-After asks for 30 s; RunSettings.retryMaxDelay (50 ms in the harness) caps every wait.
        FailureCase(path: "/retry-after/429/30", defaults: ["retries": "2"], reason: "http_status", status: 429,
                    attempts: 3, permanent: false, testDescription: "429 with Retry-After, retried"),
        FailureCase(path: "/retry-after/503/30", defaults: ["retries": "2"], reason: "http_status", status: 503,
                    attempts: 3, permanent: false, testDescription: "503 with Retry-After, retried"),
        FailureCase(path: "/reset", defaults: ["retries": "1"], reason: "reset", status: nil, attempts: 2,
                    permanent: false, testDescription: "connection reset mid-body"),
        FailureCase(path: "/short", defaults: ["retries": "1"], reason: "truncated_body", status: nil, attempts: 2,
                    permanent: false, testDescription: "body shorter than Content-Length"),
        FailureCase(path: "/hang", defaults: ["timeout": "1s"], reason: "timeout", status: nil, attempts: 1,
                    permanent: false, testDescription: "server that never answers"),
        FailureCase(path: "/endless", defaults: ["max_bytes": "64KiB"], reason: "too_large", status: nil,
                    attempts: 1, permanent: true, testDescription: "endless chunked body cut at max_bytes"),
        FailureCase(path: "/huge", defaults: [:], reason: "too_large", status: nil, attempts: 1,
                    permanent: true, testDescription: "10 GB Content-Length"),
        FailureCase(path: "/redirect-loop", defaults: [:], reason: "too_many_redirects", status: nil, attempts: 1,
                    permanent: true, testDescription: "redirect loop"),
        FailureCase(path: "/redirect-file", defaults: [:], reason: "blocked_protocol", status: nil, attempts: 1,
                    permanent: true, testDescription: "redirect to file:///etc/passwd"),
        FailureCase(path: "/html-as-jpeg", defaults: [:], reason: "not_image", status: 200, attempts: 1,
                    permanent: true, testDescription: "HTML served as image/jpeg"),
        // A mismatch says this body was wrong, not the URL: not retried now, tried again by the next run.
        FailureCase(path: "/digest/digest-sha256/wrong", defaults: ["retries": "2"], reason: "digest_mismatch", status: nil,
                    attempts: 1, permanent: false, testDescription: "body that does not match its Digest header"),
        FailureCase(path: "/encoded/gzip/decoded", defaults: [:], reason: "digest_mismatch", status: nil, attempts: 1,
                    permanent: false, testDescription: "gzip body whose Repr-Digest is of the decoded bytes"),
        FailureCase(path: "/encoded/zstd", defaults: ["retries": "2"], reason: "unsupported_encoding", status: nil,
                    attempts: 1, permanent: true, testDescription: "body in a coding not decoded (zstd)"),
        FailureCase(path: "/encoded/corrupt-gzip", defaults: [:], reason: "bad_encoding", status: nil, attempts: 1,
                    permanent: true, testDescription: "corrupt gzip body"),
        FailureCase(path: "/gzip-bomb/1024", defaults: ["max_bytes": "1MiB"], reason: "too_large", status: nil,
                    attempts: 1, permanent: true, testDescription: "gzip bomb cut at max_bytes of decoded bytes"),
        // An error's body is not the image: its status decides, whatever its size.
        FailureCase(path: "/status-body/500/3000000", defaults: ["retries": "2", "max_bytes": "64KiB"],
                    reason: "http_status", status: 500, attempts: 3, permanent: false,
                    testDescription: "500 whose Content-Length is over max_bytes"),
        FailureCase(path: "/status-body/503/300000/chunked", defaults: ["retries": "2", "max_bytes": "64KiB"],
                    reason: "http_status", status: 503, attempts: 3, permanent: false,
                    testDescription: "503 whose chunked body is over max_bytes"),
        FailureCase(path: "/status-body/404/3000000", defaults: ["max_bytes": "64KiB"], reason: "http_404", status: 404,
                    attempts: 1, permanent: true, testDescription: "404 whose body is over max_bytes"),
        FailureCase(path: "/status/206", defaults: ["retries": "2"], reason: "bad_response", status: nil,
                    attempts: 1, permanent: true, testDescription: "a 206 to a request that asked for no range"),
        FailureCase(path: "/big-headers/400000", defaults: ["retries": "2"], reason: "bad_response", status: nil,
                    attempts: 1, permanent: true, testDescription: "400 KB of response headers"),
        FailureCase(path: "/big-headers/1000000/line", defaults: ["retries": "2"], reason: "bad_response", status: nil,
                    attempts: 1, permanent: true, testDescription: "one 1 MB header line"),
    ]
}

@Suite(.timeLimit(.minutes(3)))
struct RunFailureTests {
    @Test(arguments: FailureCase.all)
    func failureIsReportedLedgeredAndLeavesNoFile(_ failure: FailureCase) throws {
        let harness = try RunHarness()
        let job = try harness.job(defaults: failure.defaults, sets: [harness.set("images", [failure.path])])
        let key = harness.url(failure.path)

        let result = try harness.run([job])

        #expect(result.report.outcome == "completed")
        #expect(result.report.totals == .expected(requested: 1, unique: 1, failed: 1))
        #expect(result.report.failures.count == 1)
        let reported = try #require(result.report.failures.first)
        #expect(reported.url == key)
        #expect(reported.set == "images")
        #expect(reported.reason == failure.reason)
        #expect(reported.httpStatus == failure.status)
        #expect(reported.attempts == failure.attempts)
        #expect(result.sets.map { [$0.requested, $0.succeeded, $0.failed, $0.skipped] } == [[1, 0, 1, 0]])

        let ledger = try #require(try harness.ledger(forKey: key))
        #expect(ledger.reason == failure.reason)
        #expect(ledger.httpStatus == failure.status)
        #expect(ledger.attempts == failure.attempts)
        let due = try #require(ledger.nextRetryAt)
        if failure.permanent {
            #expect(due > Date().addingTimeInterval(23 * 3600))
        } else {
            #expect(due <= Date())
        }
        try harness.expectCache(holds: [:], without: [key])
    }

    @Test func failuresAndSuccessesOfOneJobAddUp() throws {
        let harness = try RunHarness()
        let failing = ["/status/404", "/short", "/html-as-jpeg", "/redirect-file"]
        let job = try harness.job(sets: [harness.set("mixed", ["/ok/a"] + failing + ["/ok/b"])])

        let result = try harness.run([job])

        #expect(result.report.totals == .expected(requested: 6, unique: 6, fetched: 2, failed: 4, bytes: 2 * harness.png.count))
        #expect(Set(result.report.failures.map(\.reason)) == ["http_404", "truncated_body", "not_image", "blocked_protocol"], "\(result.report.failures)")
        try harness.expectCache(holds: [harness.url("/ok/a"): harness.png, harness.url("/ok/b"): harness.png],
                                without: failing.map(harness.url))
    }

    @Test func aFailureSharedBySetsIsOneTransferAndFailsEachSet() throws {
        let harness = try RunHarness()
        let job = try harness.job(sets: [
            harness.set("hero", ["/missing/both"], ["priority: high"]),
            harness.set("catalog", ["/missing/both"]),
        ])
        let junit = harness.folder.file("junit.xml").path

        let result = try harness.run([job]) { $0.junitPath = junit }

        #expect(result.report.totals == .expected(requested: 2, unique: 1, failed: 1))
        #expect(result.report.failures.map(\.reason) == ["http_404"])
        #expect(try harness.server.hits("both") == 1)
        #expect(result.sets.map { [$0.requested, $0.succeeded, $0.failed] } == [[1, 0, 1], [1, 0, 1]])
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(xml.contains(#"failures="2""#))
        #expect(xml.components(separatedBy: "<failure ").count == 3)
        try harness.expectCache(holds: [:], without: [harness.url("/missing/both")])
    }

    @Test func aLedgeredFailureIsSkippedUntilRetryFailed() throws {
        let harness = try RunHarness()
        let job = try harness.job(sets: [harness.set("images", ["/missing/gone"])])
        let key = harness.url("/missing/gone")

        let first = try harness.run([job])
        #expect(first.report.totals == .expected(requested: 1, unique: 1, failed: 1))
        #expect(try harness.server.hits("gone") == 1)

        // The ledger says: failed for good, not due for a day. No transfer, and it counts as ledgered,
        // listed with its reason and when it is due.
        let second = try harness.run([job])
        #expect(second.report.totals == .expected(requested: 1, unique: 1, ledgered: 1))
        let ledgered = try #require(second.report.failures.first)
        #expect(second.report.failures.count == 1)
        #expect([ledgered.url, ledgered.reason] == [key, "http_404"] && ledgered.httpStatus == 404 && ledgered.attempts == 0)
        #expect(ledgered.ledgered == true)
        let due = try #require(try harness.ledger(forKey: key)?.nextRetryAt)
        #expect(ledgered.nextRetry == Timestamp.iso8601(due))
        #expect(second.sets.map { [$0.ledgered, $0.skipped] } == [[1, 0]])
        #expect(try harness.server.hits("gone") == 1)

        // retry_failed ignores the ledger; the second permanent failure waits twice as long.
        let retrying = try harness.job(defaults: ["retry_failed": "true"], sets: [harness.set("images", ["/missing/gone"])])
        let third = try harness.run([retrying])
        #expect(third.report.totals == .expected(requested: 1, unique: 1, failed: 1))
        #expect(third.report.failures.map(\.reason) == ["http_404"])
        #expect(try harness.server.hits("gone") == 2)
        let ledger = try #require(try harness.ledger(forKey: key))
        #expect(ledger.attempts == 2)
        #expect(try #require(ledger.nextRetryAt) > Date().addingTimeInterval(47 * 3600))
        try harness.expectCache(holds: [:], without: [key])
    }
}
