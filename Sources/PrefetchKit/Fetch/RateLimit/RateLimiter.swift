/// The rate limits of one engine, shared by its network threads under the `Admission` lock: a bucket
/// per set that has a `rate_limit`, a `HostPace` per host, the transfers paused for their bytes (each
/// resumed by the thread that runs it), and the time the run waited on them.
///
/// Requests a second are held before an attempt starts (every attempt, retries included, takes a
/// token from its set's bucket and its host's). Bytes a second are paced inside the transfer: body
/// bytes are charged to the set's and the host's byte buckets as libcurl hands them over, and while
/// either is in debt the transfer is paused (`CURL_WRITEFUNC_PAUSE`, then `curl_easy_pause` to go
/// on), so every transfer to a host draws on one shared budget however many run at once. (A
/// per-transfer `CURLOPT_MAX_RECV_SPEED_LARGE` could not be shared: it would have to be split and
/// set again as transfers come and go, which libcurl does not take part way through a transfer.)
final class RateLimiter {
    private let rules: HostRateRules
    private var hosts: [String: HostPace] = [:]
    private var sets: [Int: SetPace] = [:]
    /// Transfers paused for their bytes, with when their buckets are out of debt and the network
    /// thread (lane) that runs them.
    private var paused: [ObjectIdentifier: (attempt: Attempt, due: ContinuousClock.Instant, lane: Int)] = [:]
    private let waits: RateWaits
    /// The groups held by a limit at the last pass, and when that pass was.
    private var held: Set<Int> = []
    private var lastPass: ContinuousClock.Instant?

    private struct SetPace {
        var requests: TokenBucket?
        var bytes: TokenBucket?
    }

    init(rules: HostRateRules, waits: RateWaits) {
        self.rules = rules
        self.waits = waits
    }

    /// Runs `body` on the host's pace in place (no copy of its counters per attempt), made on first use.
    private func withHost<Value>(_ name: String, now: ContinuousClock.Instant, _ body: (inout HostPace) -> Value) -> Value {
        let index = hosts.index(forKey: name) ?? {
            hosts[name] = HostPace(limit: rules.limit(forHost: name), now: now)
            return hosts.index(forKey: name)!
        }()
        return body(&hosts.values[index])
    }

    private func set(of job: PendingFetch, now: ContinuousClock.Instant) -> SetPace? {
        guard let limit = job.request.rateLimit else { return nil }
        let scope = job.request.rateLimitScope
        if let pace = sets[scope] { return pace }
        let pace = SetPace(
            requests: limit.requestsPerSecond.map { TokenBucket(rate: $0, capacity: Double(limit.burst), now: now) },
            bytes: limit.bytesPerSecond.map { TokenBucket.forBytes(rate: $0, now: now) })
        sets[scope] = pace
        return pace
    }

    /// When the job's next attempt may start, as its set's and host's request limits see it.
    func due(_ job: PendingFetch, now: ContinuousClock.Instant) -> ContinuousClock.Instant {
        var due = withHost(job.host, now: now) { $0.due(now: now) }
        if var set = set(of: job, now: now), set.requests != nil {
            due = max(due, set.requests!.due(1, now: now))
            sets[job.request.rateLimitScope] = set
        }
        return due
    }

    /// The job's attempt starts: it takes its tokens.
    func start(_ job: PendingFetch, now: ContinuousClock.Instant) {
        withHost(job.host, now: now) { $0.start(now: now) }
        if job.request.rateLimit?.requestsPerSecond != nil {
            sets[job.request.rateLimitScope]?.requests?.take(1, now: now)
        }
    }

    /// A 429 or 503 from the job's host.
    func slowDown(_ job: PendingFetch, retryAfter: Duration?, now: ContinuousClock.Instant) {
        withHost(job.host, now: now) { $0.slowDown(now: now, retryAfter: retryAfter) }
    }

    /// Whether the job's body bytes are paced (its set or host has `bytes_per_second`).
    func pacesBytes(_ job: PendingFetch, now: ContinuousClock.Instant) -> Bool {
        job.request.rateLimit?.bytesPerSecond != nil || withHost(job.host, now: now) { $0.bytes != nil }
    }

    /// Inside the write callback: whether the bytes may be taken now; when not, the attempt is paused
    /// until its buckets are out of debt. Bytes taken are charged to both buckets.
    func admitBytes(_ count: Int, for attempt: Attempt, lane: Int, now: ContinuousClock.Instant) -> Bool {
        let job = attempt.job
        var due = now
        if var bucket = hosts[job.host]?.bytes {
            due = max(due, bucket.due(0, now: now))
            hosts[job.host]?.bytes = bucket
        }
        if var bucket = sets[job.request.rateLimitScope]?.bytes, job.request.rateLimit?.bytesPerSecond != nil {
            due = max(due, bucket.due(0, now: now))
            sets[job.request.rateLimitScope]?.bytes = bucket
        }
        guard due <= now else {
            paused[ObjectIdentifier(attempt)] = (attempt, due, lane)
            return false
        }
        hosts[job.host]?.bytes?.take(Double(count), now: now)
        if job.request.rateLimit?.bytesPerSecond != nil {
            sets[job.request.rateLimitScope]?.bytes?.take(Double(count), now: now)
        }
        return true
    }

    /// The lane's paused transfers whose buckets are out of debt by `now`; they are no longer counted paused.
    func resumable(now: ContinuousClock.Instant, lane: Int) -> [Attempt] {
        guard !paused.isEmpty else { return [] }
        let due = paused.values.filter { $0.lane == lane && $0.due <= now }.map(\.attempt)
        for attempt in due { paused[ObjectIdentifier(attempt)] = nil }
        return due
    }

    /// The attempt has ended; it is paused no more.
    func forget(_ attempt: Attempt) {
        paused[ObjectIdentifier(attempt)] = nil
    }

    /// The earliest time one of the lane's paused transfers may go on.
    func nextResume(lane: Int) -> ContinuousClock.Instant? {
        paused.values.filter { $0.lane == lane }.map(\.due).min()
    }

    /// After a pass over the waiting requests (by any lane): `waiting` are the groups with a request
    /// held by a limit (with room to start otherwise); groups with a paused transfer are added. The
    /// time since the last pass counts for the groups held then.
    func notePass(held waiting: Set<Int>, now: ContinuousClock.Instant) {
        if let lastPass, !held.isEmpty {
            waits.add(lastPass.duration(to: now), to: held)
        }
        // Without a paused transfer (always, when no set paces its bytes) the groups held are the
        // waiting ones as they are: this runs twice per pass of each network loop.
        held = paused.isEmpty ? waiting : waiting.union(paused.values.map(\.attempt.job.request.group))
        lastPass = now
    }
}

/// The time each group's requests (a job's, in a run of several) waited on rate limits: wall time
/// during which at least one of them was held by a limit while it had room to start otherwise, or
/// paused for its bytes; and the same for all groups together. Written by the network threads,
/// read by anyone.
package final class RateWaits: Sendable {
    private struct State {
        var groups: [Int: Duration] = [:]
        var any = Duration.zero
    }

    private let state = Locked(State())

    package init() {}

    func add(_ span: Duration, to groups: Set<Int>) {
        state.withLock { state in
            for group in groups { state.groups[group, default: .zero] += span }
            state.any += span
        }
    }

    /// The waits of `group`, or of the whole engine when nil.
    package func waited(group: Int?) -> Duration {
        state.withLock { state in group.map { state.groups[$0] ?? .zero } ?? state.any }
    }
}
