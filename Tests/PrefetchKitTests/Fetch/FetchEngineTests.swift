import Foundation
import Testing
@testable import PrefetchKit

@Suite(.timeLimit(.minutes(3)))
struct FetchEngineTests {
    @Test func storesA200BodyInTheDestination() async throws {
        let harness = try FetchHarness()
        defer { harness.close() }
        let request = harness.request("/ok/a")

        let result = await harness.engine.fetch(request)

        let response = try #require(result.response)
        #expect(response.kind == .ok)
        #expect(response.status == 200)
        #expect(response.headers.contentType == "image/png")
        #expect(response.finalURL == request.url)
        #expect(result.attempts == 1)
        let body = try Data(contentsOf: URL(fileURLWithPath: request.destination))
        #expect(body.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        #expect(Int64(body.count) == response.bytes)
        #expect(result.timings.total >= result.timings.connect)
    }

    @Test func sendsTheDefaultHeaders() async throws {
        let harness = try FetchHarness()
        defer { harness.close() }

        let headers = try await harness.text("/echo-headers")

        #expect(headers.contains("Accept: image/*,*/*;q=0.8\n"))
        #expect(headers.contains("User-Agent: prefetchd/\(PrefetchVersion.string)\n"))
        #expect(headers.contains("Accept-Encoding: identity\n"))
    }

    /// A header value with a line break in any form is refused before anything is sent (it would add
    /// a header line of its own); "\r\n" counts, though Swift takes it for one Character.
    @Test(arguments: ["a\r\nX-Injected: 1", "a\nX-Injected: 1", "a\rX-Injected: 1"])
    func refusesAHeaderWithALineBreak(value: String) async throws {
        let harness = try FetchHarness()
        defer { harness.close() }
        var request = harness.request("/echo-headers")
        request.headers = ["X-Test": value]

        let result = await harness.engine.fetch(request)

        let error = try #require(result.error)
        guard case .invalidRequest(let message) = error else {
            Issue.record("expected invalidRequest, got \(error)")
            return
        }
        #expect(message.contains("X-Test"))
        #expect(!harness.exists(request.destination))
    }

    /// Client errors, and the statuses a GET never asked for: no Range is sent, so a 206 is part of a
    /// body (a response that cannot be read as the whole body: `bad_response`, as the README's failure
    /// reasons have it, with no HTTP status of its own); a 304 to a GET without validators stores
    /// nothing. Each fails at once, with no file.
    @Test(arguments: [(404, "http_404"), (410, "http_410"), (403, "http_status"), (206, "bad_response"), (304, "http_status")])
    func statusesThatFailAtOnce(status: Int, reason: String) async throws {
        let harness = try FetchHarness()
        defer { harness.close() }
        let request = harness.request("/status/\(status)", retry: RetryPolicy(retries: 3, baseDelay: .milliseconds(1)))

        let result = await harness.engine.fetch(request)

        let error = try #require(result.error)
        #expect(error.reason == reason)
        #expect(error.httpStatus == (reason == "bad_response" ? nil : status))
        #expect(result.attempts == 1)
        #expect(!harness.exists(request.destination))
    }

    /// A status with Retry-After, the retries allowed and the cap on its wait, and the waits the engine takes.
    struct RetryAfter: Sendable, CustomTestStringConvertible {
        let status: Int
        let seconds: Int
        let retries: Int
        let cap: Duration
        let attempts: Int
        let delays: [Duration]
        let testDescription: String

        static let all = [
            RetryAfter(status: 429, seconds: 1, retries: 1, cap: .seconds(30), attempts: 2, delays: [.seconds(1)],
                       testDescription: "429 asking for 1 s: honoured"),
            RetryAfter(status: 503, seconds: 120, retries: 2, cap: .milliseconds(50), attempts: 3,
                       delays: [.milliseconds(50), .milliseconds(50)], testDescription: "503 asking for 120 s: capped"),
        ]
    }

    @Test(arguments: RetryAfter.all)
    func retryAfterSetsTheWaitUpToTheCap(_ retryAfter: RetryAfter) async throws {
        let harness = try FetchHarness()
        defer { harness.close() }
        let policy = RetryPolicy(retries: retryAfter.retries, baseDelay: .milliseconds(1), maxRetryAfter: retryAfter.cap)
        let request = harness.request("/retry-after/\(retryAfter.status)/\(retryAfter.seconds)", retry: policy)

        let result = await harness.engine.fetch(request)

        #expect(result.error == .http(status: retryAfter.status))
        #expect(result.attempts == retryAfter.attempts)
        #expect(harness.events.retryDelays(of: result.id) == retryAfter.delays)
        #expect(!harness.exists(request.destination))
    }

    @Test func retriesA500UntilItSucceeds() async throws {
        let harness = try FetchHarness()
        defer { harness.close() }
        let policy = RetryPolicy(retries: 2, baseDelay: .milliseconds(5), jitter: 0)
        let request = harness.request("/flaky/\(UUID().uuidString)/1", retry: policy)

        let result = await harness.engine.fetch(request)

        #expect(result.response?.kind == .ok)
        #expect(result.attempts == 2)
        #expect(harness.events.retryDelays(of: result.id) == [.milliseconds(5)])
        #expect(harness.exists(request.destination))
    }

    @Test func aServerThatNeverAnswersTimesOut() async throws {
        let harness = try FetchHarness()
        defer { harness.close() }
        var request = harness.request("/hang")
        request.timeout = .seconds(1)

        let result = await harness.engine.fetch(request)

        #expect(result.error?.reason == "timeout")
        #expect(!harness.exists(request.destination))
    }

    /// A transfer that goes wrong, and the reason it fails with.
    struct BrokenTransfer: Sendable, CustomTestStringConvertible {
        let path: String
        let reason: String
        let testDescription: String

        static let all = [
            BrokenTransfer(path: "/reset", reason: "reset", testDescription: "a reset mid-body"),
            BrokenTransfer(path: "/short", reason: "truncated_body", testDescription: "a body shorter than its length"),
            BrokenTransfer(path: "/huge", reason: "too_large", testDescription: "a 10 GB declared length"),
            BrokenTransfer(path: "/redirect-loop", reason: "too_many_redirects", testDescription: "a redirect loop, stopped after five"),
            BrokenTransfer(path: "/redirect-file", reason: "blocked_protocol", testDescription: "a redirect to a file: URL"),
            BrokenTransfer(path: "/garbled/status", reason: "bad_response", testDescription: "a status line that is not HTTP's"),
            BrokenTransfer(path: "/garbled/http09", reason: "bad_response", testDescription: "a body with no status line"),
            BrokenTransfer(path: "/garbled/colon", reason: "bad_response", testDescription: "a header line without a colon"),
            BrokenTransfer(path: "/garbled/chunk", reason: "bad_response", testDescription: "a chunk size that is not hex"),
        ]
    }

    @Test(arguments: BrokenTransfer.all)
    func aBrokenTransferFailsWithItsReasonAndLeavesNoFile(_ broken: BrokenTransfer) async throws {
        let harness = try FetchHarness()
        defer { harness.close() }
        let request = harness.request(broken.path)

        let result = await harness.engine.fetch(request)

        #expect(result.error?.reason == broken.reason)
        #expect(!harness.exists(request.destination))
    }

    /// An empty `Content-Encoding:` names no coding (RFC 9110 §5.6.1): the body is taken as it came.
    @Test func anEmptyContentEncodingIsNoCoding() async throws {
        let harness = try FetchHarness()
        defer { harness.close() }
        let request = harness.request("/garbled/empty-coding")

        let result = await harness.engine.fetch(request)

        #expect(result.response?.kind == .ok, "\(String(describing: result.error))")
        let stored = try Data(contentsOf: URL(fileURLWithPath: request.destination))
        #expect(stored.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
    }

    @Test func anEndlessBodyIsCutAtMaxBytes() async throws {
        let harness = try FetchHarness()
        defer { harness.close() }
        var request = harness.request("/endless")
        request.maxBytes = 100_000

        let result = await harness.engine.fetch(request)

        #expect(result.error == .tooLarge(limit: 100_000))
        #expect(!harness.exists(request.destination))
    }

    /// A request's `maxBytes` is the largest body it takes: exactly that many bytes are fetched, one
    /// byte more is refused, with no file.
    @Test func aBodyOfExactlyMaxBytesIsFetchedAndOneByteMoreIsRefused() async throws {
        let harness = try FetchHarness()
        defer { harness.close() }
        var atTheLimit = harness.request("/bytes/1000/3")
        atTheLimit.maxBytes = 1_000
        var overTheLimit = harness.request("/bytes/1000/4")
        overTheLimit.maxBytes = 999

        let fetched = await harness.engine.fetch(atTheLimit)
        let refused = await harness.engine.fetch(overTheLimit)

        #expect(fetched.response?.kind == .ok)
        #expect(fetched.response?.bytes == 1_000)
        #expect(try Data(contentsOf: URL(fileURLWithPath: atTheLimit.destination)).count == 1_000)
        #expect(refused.error == .tooLarge(limit: 999))
        #expect(!harness.exists(overTheLimit.destination))
    }

    @Test func followsARedirect() async throws {
        let harness = try FetchHarness()
        defer { harness.close() }
        let request = harness.request("/redirect/b")

        let result = await harness.engine.fetch(request)

        #expect(result.response?.finalURL == harness.server.url("/ok/b"))
        #expect(harness.exists(request.destination))
    }

    @Test func aNonHTTPURLIsBlocked() async throws {
        let harness = try FetchHarness()
        defer { harness.close() }
        let request = FetchRequest(url: "file:///etc/passwd", destination: harness.destination())

        let result = await harness.engine.fetch(request)

        #expect(result.error?.reason == "blocked_protocol")
        #expect(!harness.exists(request.destination))
    }

    @Test func theEngineDoesNotJudgeContent() async throws {
        let harness = try FetchHarness()
        defer { harness.close() }
        let request = harness.request("/html-as-jpeg")

        let result = await harness.engine.fetch(request)

        #expect(result.response?.headers.contentType == "image/jpeg")
        #expect(try String(contentsOfFile: request.destination, encoding: .utf8).hasPrefix("<!doctype html>"))
    }
}
