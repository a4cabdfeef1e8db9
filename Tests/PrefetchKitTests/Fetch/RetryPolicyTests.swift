import Foundation
import Testing
@testable import PrefetchKit

@Suite struct RetryPolicyTests {
    @Test(arguments: [408, 429, 500, 502, 503, 504])
    func transientStatusesAreRetried(status: Int) {
        #expect(RetryPolicy.isTransient(.http(status: status)))
        let decision = RetryPolicy(retries: 1, jitter: 0).decision(
            after: .http(status: status), attempt: 1, retryAfter: nil, now: Date(), randomUnit: 0)
        #expect(decision == .retry(after: .seconds(1)))
    }

    @Test(arguments: [400, 401, 403, 404, 410, 451, 501])
    func otherStatusesArePermanent(status: Int) {
        #expect(!RetryPolicy.isTransient(.http(status: status)))
        let decision = RetryPolicy(retries: 5).decision(
            after: .http(status: status), attempt: 1, retryAfter: "1", now: Date(), randomUnit: 0)
        #expect(decision == .giveUp)
    }

    @Test func transportFailuresAreClassified() {
        let transient: [FetchError] = [.timeout("t"), .connectFailed("c"), .dns("d"), .reset("r"), .truncatedBody("b")]
        let permanent: [FetchError] = [
            .tooLarge(limit: 1), .tooManyRedirects("r"), .blockedProtocol("p"), .tls("t"), .invalidRequest("i"),
            .destination(path: "/x", code: EIO), .curl(code: 2, message: "m"), .cancelled, .engineStopped,
        ]
        #expect(transient.allSatisfy(RetryPolicy.isTransient))
        #expect(!permanent.contains(where: RetryPolicy.isTransient))
    }

    @Test func onlyTheURLsOwnFailuresKeepLaterRunsAway() {
        let theURLs: [FetchError] = [
            .http(status: 404), .http(status: 410), .tooLarge(limit: 1), .tooManyRedirects("r"), .blockedProtocol("p"),
            .tls("t"), .blockedNetwork("n"), .invalidRequest("i"),
        ]
        // A full disk, an unknown libcurl error, a stop or a proxy's 407 (the job's credentials) are not
        // the URL's fault, nor are transient ones.
        let notTheURLs: [FetchError] = [
            .destination(path: "/x", code: ENOSPC), .curl(code: 2, message: "m"), .cancelled,
            .engineStopped, .timeout("t"), .reset("r"), .http(status: 503), .http(status: 407),
        ]
        #expect(theURLs.allSatisfy(RetryPolicy.isPermanent))
        #expect(!notTheURLs.contains(where: RetryPolicy.isPermanent))
    }

    @Test func backoffDoublesFromTheBaseUpToTheCap() {
        let policy = RetryPolicy(retries: 20, baseDelay: .seconds(1), maxDelay: .seconds(600), jitter: 0)
        let delays = (1...12).map { policy.backoff(afterAttempt: $0, randomUnit: 0.5) }
        #expect(delays.prefix(5) == [.seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(16)])
        #expect(delays[9] == .seconds(512))
        #expect(delays[10] == .seconds(600))
        #expect(delays[11] == .seconds(600))
    }

    @Test func jitterAddsUpToItsShare() {
        let policy = RetryPolicy(baseDelay: .seconds(4), jitter: 0.25)
        #expect(policy.backoff(afterAttempt: 1, randomUnit: 0) == .seconds(4))
        #expect(policy.backoff(afterAttempt: 1, randomUnit: 0.5) == .seconds(4.5))
        #expect(policy.backoff(afterAttempt: 1, randomUnit: 0.999_999) < .seconds(5))
        #expect(policy.backoff(afterAttempt: 1, randomUnit: 0.999_999) > .seconds(4.99))
    }

    @Test func givesUpAfterTheLastRetry() {
        let policy = RetryPolicy(retries: 2, jitter: 0)
        let error = FetchError.http(status: 503)
        #expect(policy.decision(after: error, attempt: 2, retryAfter: nil, now: Date(), randomUnit: 0) == .retry(after: .seconds(2)))
        #expect(policy.decision(after: error, attempt: 3, retryAfter: nil, now: Date(), randomUnit: 0) == .giveUp)
        #expect(RetryPolicy(retries: 0).decision(after: error, attempt: 1, retryAfter: nil, now: Date(), randomUnit: 0) == .giveUp)
    }

    @Test func retryAfterSecondsReplaceTheBackoffUpToTheCap() {
        let policy = RetryPolicy(retries: 1, maxRetryAfter: .seconds(30))
        let error = FetchError.http(status: 429)
        #expect(policy.decision(after: error, attempt: 1, retryAfter: "7", now: Date(), randomUnit: 0.9) == .retry(after: .seconds(7)))
        #expect(policy.decision(after: error, attempt: 1, retryAfter: "3600", now: Date(), randomUnit: 0) == .retry(after: .seconds(30)))
        // Longer than Int.max seconds (found by fuzz-http-headers): still capped, not read as no header.
        #expect(policy.decision(after: error, attempt: 1, retryAfter: "9223372036854775808", now: Date(), randomUnit: 0) == .retry(after: .seconds(30)))
    }

    @Test func retryAfterAcceptsAnHTTPDate() {
        let date = "Wed, 21 Oct 2015 07:28:00 GMT"
        let now = Date(timeIntervalSince1970: 1_445_412_480 - 90)
        #expect(RetryPolicy.delay(retryAfter: date, now: now) == .seconds(90))
        #expect(RetryPolicy.delay(retryAfter: date, now: now.addingTimeInterval(1000)) == .zero)
    }

    @Test func unreadableRetryAfterFallsBackToBackoff() {
        #expect(RetryPolicy.delay(retryAfter: "soon", now: Date()) == nil)
        #expect(RetryPolicy.delay(retryAfter: "-5", now: Date()) == nil)
        let policy = RetryPolicy(retries: 1, baseDelay: .milliseconds(10), jitter: 0)
        let decision = policy.decision(after: .http(status: 503), attempt: 1, retryAfter: "soon", now: Date(), randomUnit: 0)
        #expect(decision == .retry(after: .milliseconds(10)))
    }
}
