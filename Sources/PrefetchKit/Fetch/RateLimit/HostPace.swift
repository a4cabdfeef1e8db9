/// How fast the run may ask one host: its `hosts:` limit, how far 429s and 503s have slowed it, and
/// until when a `Retry-After` holds it. Every set of every job file that reaches the host shares it.
///
/// A 429 or 503 halves the host's request rate for the rest of the run (never below 1/64 of it), and
/// each 10 s without one gives back a tenth, up to the whole. A host with a `requests_per_second`
/// is slowed from that rate; one without is slowed from the rate it was asked at over the last 10 s
/// (at least one request a second), and runs free again once the tenths are all back. A
/// `Retry-After` on such a response holds every request to the host until it has passed.
struct HostPace {
    static let period = Duration.seconds(10)
    static let restoreStep = 0.1
    static let smallestFactor = 1.0 / 64
    /// The least measured rate a slowdown starts from, requests a second.
    static let leastMeasuredRate = 1.0

    let limit: RateLimit?
    private(set) var requests: TokenBucket?
    var bytes: TokenBucket?
    private(set) var heldUntil: ContinuousClock.Instant?
    /// The share of `base` the host is held to, in (0, 1].
    private(set) var factor = 1.0
    /// The requests a second `factor` scales, once a slowdown has begun.
    private var base: Double?
    private var lastChange: ContinuousClock.Instant?
    private var starts: StartCounter

    init(limit: RateLimit?, now: ContinuousClock.Instant) {
        self.limit = limit
        if let rate = limit?.requestsPerSecond {
            requests = TokenBucket(rate: rate, capacity: Double(limit?.burst ?? 1), now: now)
        }
        if let rate = limit?.bytesPerSecond {
            bytes = TokenBucket.forBytes(rate: rate, now: now)
        }
        starts = StartCounter(origin: now)
    }

    /// The requests a second the host is held to now; nil when it runs free.
    var rate: Double? { requests?.rate }

    /// When the next attempt may start: `now` or earlier when it may.
    mutating func due(now: ContinuousClock.Instant) -> ContinuousClock.Instant {
        restore(now: now)
        var due = heldUntil ?? now
        if var bucket = requests {
            due = max(due, bucket.due(1, now: now))
            requests = bucket
        }
        return due
    }

    mutating func start(now: ContinuousClock.Instant) {
        requests?.take(1, now: now)
        starts.count(now)
    }

    /// A 429 or 503: halve the rate, and hold the host for `retryAfter` when the response gave one.
    mutating func slowDown(now: ContinuousClock.Instant, retryAfter: Duration?) {
        restore(now: now)
        if let retryAfter {
            let until = now.advanced(by: retryAfter)
            heldUntil = max(heldUntil ?? until, until)
        }
        let base = self.base ?? limit?.requestsPerSecond ?? max(starts.rate(now: now), Self.leastMeasuredRate)
        self.base = base
        factor = max(factor / 2, Self.smallestFactor)
        lastChange = now
        if requests == nil {
            requests = TokenBucket(rate: base * factor, capacity: 1, now: now)
            requests?.empty(now: now)
        } else {
            requests?.setRate(base * factor, now: now)
        }
    }

    /// Gives back a tenth of the rate for each 10 s since the last change without a slowdown.
    private mutating func restore(now: ContinuousClock.Instant) {
        guard factor < 1, let base, var last = lastChange else { return }
        while factor < 1, last.duration(to: now) >= Self.period {
            factor = min(1, factor + Self.restoreStep)
            last = last.advanced(by: Self.period)
        }
        lastChange = last
        if factor >= 1 - 1e-9 {
            factor = 1
            self.base = nil
            lastChange = nil
            if limit?.requestsPerSecond == nil {
                requests = nil
                return
            }
        }
        requests?.setRate(base * factor, now: now)
    }
}

extension TokenBucket {
    /// A byte bucket: a tenth of a second's bytes, at least 16 KiB, may come at once.
    static func forBytes(rate: Int64, now: ContinuousClock.Instant) -> TokenBucket {
        TokenBucket(rate: Double(rate), capacity: max(Double(rate) / 10, 16_384), now: now)
    }
}

/// Attempts started in each of the last ten seconds, for the rate a host was asked at.
struct StartCounter {
    private let origin: ContinuousClock.Instant
    private var slots = [Int](repeating: 0, count: 10)
    private var second = 0
    private var first: ContinuousClock.Instant?

    init(origin: ContinuousClock.Instant) {
        self.origin = origin
    }

    private mutating func advance(to now: ContinuousClock.Instant) {
        let current = Int(origin.duration(to: now) / .seconds(1))
        if current - second >= slots.count {
            slots = [Int](repeating: 0, count: slots.count)
        } else if current > second {
            for slot in (second + 1)...current { slots[slot % slots.count] = 0 }
        }
        second = max(second, current)
    }

    mutating func count(_ now: ContinuousClock.Instant) {
        advance(to: now)
        first = first ?? now
        slots[second % slots.count] += 1
    }

    /// Starts a second over the last ten seconds, or since the first start when that is sooner
    /// (but over at least one second).
    mutating func rate(now: ContinuousClock.Instant) -> Double {
        advance(to: now)
        guard let first else { return 0 }
        let window = min(max(first.duration(to: now) / .seconds(1), 1), Double(slots.count))
        return Double(slots.reduce(0, +)) / window
    }
}
