import Foundation
import Testing
@testable import PrefetchKit

@Suite(.timeLimit(.minutes(1)))
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
        #expect(!headers.contains("Accept-Encoding"))
    }

    @Test(arguments: [(404, "http_404"), (410, "http_410"), (403, "http_status")])
    func clientErrorsFailAtOnce(status: Int, reason: String) async throws {
        let harness = try FetchHarness()
        defer { harness.close() }
        let request = harness.request("/status/\(status)", retry: RetryPolicy(retries: 3, baseDelay: .milliseconds(1)))

        let result = await harness.engine.fetch(request)

        let error = try #require(result.error)
        #expect(error.reason == reason)
        #expect(error.httpStatus == status)
        #expect(result.attempts == 1)
        #expect(!harness.exists(request.destination))
    }

    /// No Range is sent, so a 206 is part of a body; a 304 to a GET without validators stores nothing.
    @Test(arguments: [206, 304])
    func aPartialBodyOrAnUnaskedNotModifiedFails(status: Int) async throws {
        let harness = try FetchHarness()
        defer { harness.close() }
        let request = harness.request("/status/\(status)", retry: RetryPolicy(retries: 3, baseDelay: .milliseconds(1)))

        let result = await harness.engine.fetch(request)

        let error = try #require(result.error)
        #expect(error.reason == "http_status")
        #expect(error.httpStatus == status)
        #expect(result.attempts == 1)
        #expect(!harness.exists(request.destination))
    }

    @Test func honoursRetryAfterOn429() async throws {
        let harness = try FetchHarness()
        defer { harness.close() }
        let policy = RetryPolicy(retries: 1, baseDelay: .milliseconds(1), maxRetryAfter: .seconds(30))
        let request = harness.request("/retry-after/429/1", retry: policy)

        let result = await harness.engine.fetch(request)

        #expect(result.error == .http(status: 429))
        #expect(result.attempts == 2)
        #expect(harness.events.retryDelays(of: result.id) == [.seconds(1)])
        #expect(!harness.exists(request.destination))
    }

    @Test func capsRetryAfterOn503() async throws {
        let harness = try FetchHarness()
        defer { harness.close() }
        let policy = RetryPolicy(retries: 2, baseDelay: .milliseconds(1), maxRetryAfter: .milliseconds(50))
        let request = harness.request("/retry-after/503/120", retry: policy)

        let result = await harness.engine.fetch(request)

        #expect(result.error == .http(status: 503))
        #expect(result.attempts == 3)
        #expect(harness.events.retryDelays(of: result.id) == [.milliseconds(50), .milliseconds(50)])
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

    @Test func aResetMidBodyFailsAsReset() async throws {
        let harness = try FetchHarness()
        defer { harness.close() }
        let request = harness.request("/reset")

        let result = await harness.engine.fetch(request)

        #expect(result.error?.reason == "reset")
        #expect(!harness.exists(request.destination))
    }

    @Test func aBodyShorterThanItsLengthIsTruncated() async throws {
        let harness = try FetchHarness()
        defer { harness.close() }
        let request = harness.request("/short")

        let result = await harness.engine.fetch(request)

        #expect(result.error?.reason == "truncated_body")
        #expect(!harness.exists(request.destination))
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

    @Test func anEndlessBodyIsCutAtMaxBytes() async throws {
        let harness = try FetchHarness()
        defer { harness.close() }
        var request = harness.request("/endless")
        request.maxBytes = 100_000

        let result = await harness.engine.fetch(request)

        #expect(result.error == .tooLarge(limit: 100_000))
        #expect(!harness.exists(request.destination))
    }

    @Test func aHugeDeclaredLengthIsRefused() async throws {
        let harness = try FetchHarness()
        defer { harness.close() }
        let request = harness.request("/huge")

        let result = await harness.engine.fetch(request)

        #expect(result.error?.reason == "too_large")
        #expect(!harness.exists(request.destination))
    }

    @Test func followsARedirect() async throws {
        let harness = try FetchHarness()
        defer { harness.close() }
        let request = harness.request("/redirect/b")

        let result = await harness.engine.fetch(request)

        #expect(result.response?.finalURL == harness.server.url("/ok/b"))
        #expect(harness.exists(request.destination))
    }

    @Test func aRedirectLoopStopsAfterFiveRedirects() async throws {
        let harness = try FetchHarness()
        defer { harness.close() }
        let request = harness.request("/redirect-loop")

        let result = await harness.engine.fetch(request)

        #expect(result.error?.reason == "too_many_redirects")
        #expect(!harness.exists(request.destination))
    }

    @Test func aRedirectToAFileURLIsBlocked() async throws {
        let harness = try FetchHarness()
        defer { harness.close() }
        let request = harness.request("/redirect-file")

        let result = await harness.engine.fetch(request)

        #expect(result.error?.reason == "blocked_protocol")
        #expect(!harness.exists(request.destination))
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
