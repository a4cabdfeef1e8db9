import Testing
@testable import PrefetchKit

/// The rate limiter's arithmetic on instants given, so no test waits: token buckets, a host slowed by
/// 429s and given its rate back, a Retry-After holding it, and which `hosts:` rule a host gets.
@Suite struct RateLimitTests {
    let zero = ContinuousClock.now

    func at(_ seconds: Double) -> ContinuousClock.Instant {
        zero.advanced(by: .seconds(seconds))
    }

    @Test func aBucketLetsItsBurstGoAtOnceThenOneAtItsRate() {
        var bucket = TokenBucket(rate: 10, capacity: 3, now: zero)
        for _ in 0..<3 {
            #expect(bucket.due(1, now: zero) == zero)
            bucket.take(1, now: zero)
        }
        let next = bucket.due(1, now: zero)
        #expect(abs(zero.duration(to: next) / .seconds(1) - 0.1) < 1e-6)
        // A long quiet spell fills it to its capacity, no further.
        bucket.take(1, now: at(0.1))
        #expect(bucket.due(3, now: at(100)) == at(100))
        bucket.take(3, now: at(100))
        #expect(abs(at(100).duration(to: bucket.due(1, now: at(100))) / .seconds(1) - 0.1) < 1e-6)
    }

    @Test func bytesTakenPastTheBudgetAreDebtThatTheRatePaysBack() {
        var bucket = TokenBucket.forBytes(rate: 100_000, now: zero)
        #expect(bucket.capacity == 16_384)
        bucket.take(116_384, now: zero)
        // 100,000 bytes in debt at 100,000 a second: one second before anything more.
        let due = bucket.due(0, now: zero)
        #expect(abs(zero.duration(to: due) / .seconds(1) - 1) < 1e-6)
    }

    @Test func a429HalvesAConfiguredRateAndEachQuietTenSecondsGivesATenthBack() {
        var pace = HostPace(limit: RateLimit(requestsPerSecond: 20), now: zero)
        #expect(pace.rate == 20)
        pace.slowDown(now: at(1), retryAfter: nil)
        #expect(pace.rate == 10)
        pace.slowDown(now: at(2), retryAfter: nil)
        #expect(pace.rate == 5)
        _ = pace.due(now: at(11.9))
        #expect(pace.rate == 5, "less than 10 s since the last 429")
        _ = pace.due(now: at(12))
        #expect(abs((pace.rate ?? 0) - 7) < 1e-9, "a tenth of 20 back")
        _ = pace.due(now: at(42))
        #expect(abs((pace.rate ?? 0) - 13) < 1e-9)
        _ = pace.due(now: at(500))
        #expect(pace.rate == 20, "never more than the configured rate")
    }

    @Test func aHostWithoutALimitIsSlowedFromTheRateItWasAskedAtAndRunsFreeAgain() {
        var pace = HostPace(limit: nil, now: zero)
        #expect(pace.rate == nil)
        // 40 starts over 2 s: 20 a second.
        for index in 0..<40 { pace.start(now: at(Double(index) * 0.05)) }
        pace.slowDown(now: at(2), retryAfter: nil)
        #expect(abs((pace.rate ?? 0) - 10) < 1e-9)
        // The first request after the 429 waits a period of the halved rate.
        #expect(abs(at(2).duration(to: pace.due(now: at(2))) / .seconds(1) - 0.1) < 1e-6)
        _ = pace.due(now: at(2 + 50))
        #expect(pace.rate == nil, "all ten tenths back: no limit")
    }

    @Test func slowdownsStopAtASixtyFourthOfTheRate() {
        var pace = HostPace(limit: RateLimit(requestsPerSecond: 64), now: zero)
        for _ in 0..<20 { pace.slowDown(now: zero, retryAfter: nil) }
        #expect(pace.rate == 1)
    }

    @Test func aRetryAfterHoldsTheHostUntilItHasPassed() {
        var pace = HostPace(limit: nil, now: zero)
        pace.start(now: zero)
        pace.slowDown(now: at(1), retryAfter: .seconds(5))
        #expect(pace.due(now: at(2)) >= at(6))
        // A shorter Retry-After later does not shorten the hold.
        pace.slowDown(now: at(2), retryAfter: .seconds(1))
        #expect(pace.due(now: at(3)) >= at(6))
    }

    @Test func theMostSpecificHostRuleWinsAndRepeatsTakeTheStrictest() {
        var rules = HostRateRules([
            ("*", RateLimit(requestsPerSecond: 100)),
            ("*.example.com", RateLimit(requestsPerSecond: 50)),
            ("*.cdn.example.com", RateLimit(bytesPerSecond: 1_000)),
            ("img.example.com", RateLimit(requestsPerSecond: 5, burst: 4)),
        ])
        rules.add("IMG.example.com.", RateLimit(requestsPerSecond: 8, burst: 2, bytesPerSecond: 9_000))
        #expect(rules.limit(forHost: "img.example.com") == RateLimit(requestsPerSecond: 5, burst: 2, bytesPerSecond: 9_000))
        #expect(rules.limit(forHost: "a.example.com")?.requestsPerSecond == 50)
        #expect(rules.limit(forHost: "edge.cdn.example.com") == RateLimit(bytesPerSecond: 1_000))
        #expect(rules.limit(forHost: "example.com")?.requestsPerSecond == 100, "`*.example.com` is below the name only")
        #expect(rules.limit(forHost: "other.test")?.requestsPerSecond == 100)
        #expect(HostRateRules([("a.test", RateLimit(requestsPerSecond: 1))]).limit(forHost: "b.test") == nil)
    }

    /// A file that limits a host's bytes alone brings no burst: the burst another file gave the host's
    /// requests holds, whichever file comes first.
    @Test func aLimitOfBytesAloneKeepsTheOtherFilesBurst() {
        let requests = RateLimit(requestsPerSecond: 20, burst: 5)
        let bytes = RateLimit(bytesPerSecond: 10 << 20)
        let both = RateLimit(requestsPerSecond: 20, burst: 5, bytesPerSecond: 10 << 20)
        #expect(HostRateRules([("img.test", requests), ("img.test", bytes)]).limit(forHost: "img.test") == both)
        #expect(HostRateRules([("img.test", bytes), ("img.test", requests)]).limit(forHost: "img.test") == both)
        #expect(HostRateRules([("img.test", requests), ("img.test", RateLimit(requestsPerSecond: 30, burst: 2))])
            .limit(forHost: "img.test") == RateLimit(requestsPerSecond: 20, burst: 2))
    }
}
