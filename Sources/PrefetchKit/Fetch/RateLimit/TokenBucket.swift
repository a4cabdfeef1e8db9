/// Tokens that fill at `rate` a second up to `capacity`; taking may run into debt, which the fill
/// pays back before anything more is there. Pure arithmetic on the instants given, so it is tested
/// without waiting.
struct TokenBucket {
    private(set) var rate: Double
    let capacity: Double
    private(set) var tokens: Double
    private var updated: ContinuousClock.Instant

    /// A full bucket.
    init(rate: Double, capacity: Double, now: ContinuousClock.Instant) {
        self.rate = max(rate, 1e-6)
        self.capacity = max(capacity, 1e-9)
        tokens = self.capacity
        updated = now
    }

    private mutating func fill(_ now: ContinuousClock.Instant) {
        guard now > updated else { return }
        tokens = min(capacity, tokens + (updated.duration(to: now) / .seconds(1)) * rate)
        updated = now
    }

    /// When `amount` tokens will be there; `now` or earlier when they are.
    mutating func due(_ amount: Double, now: ContinuousClock.Instant) -> ContinuousClock.Instant {
        fill(now)
        guard tokens < amount else { return now }
        return now.advanced(by: .seconds((amount - tokens) / rate))
    }

    mutating func take(_ amount: Double, now: ContinuousClock.Instant) {
        fill(now)
        tokens -= amount
    }

    /// Changes the fill rate from `now` on; what is there stays (at most the capacity).
    mutating func setRate(_ rate: Double, now: ContinuousClock.Instant) {
        fill(now)
        self.rate = max(rate, 1e-6)
    }

    /// Empties the bucket (keeping any debt), so the next token comes one fill period from `now`.
    mutating func empty(now: ContinuousClock.Instant) {
        fill(now)
        tokens = min(tokens, 0)
    }
}
