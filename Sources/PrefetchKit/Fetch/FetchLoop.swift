import Foundation
internal import CCurl

/// Everything the network thread owns: the multi handle, the easy handles, the transfers in flight, the
/// requests waiting for a slot and the retries waiting for their time. Created and used on that thread only.
final class FetchLoop {
    private let mailbox: Mailbox
    private let closer: BodyCloser
    private let multi: Multi
    private let shares: Shares
    private let concurrency: Int
    private let perHost: Int
    /// Reset-and-reuse pools, one per cookie setting, so a cookie jar never leaks into a request without cookies.
    private var idle: [Bool: [Easy]] = [false: [], true: []]
    private var active: [UnsafeMutableRawPointer: Attempt] = [:]
    private var activePerHost: [String: Int] = [:]
    private var waiting: [PendingFetch] = []
    /// Retries ordered by when they are due, earliest first.
    private var delayed: [(due: ContinuousClock.Instant, job: PendingFetch)] = []
    private let clock = ContinuousClock()
    private let limiter: RateLimiter
    /// The earliest time a request held by a rate limit at the last pass may start.
    private var nextRateDue: ContinuousClock.Instant?

    init(mailbox: Mailbox, closer: BodyCloser, configuration: EngineConfiguration, waits: RateWaits) throws(FetchError) {
        self.mailbox = mailbox
        self.closer = closer
        multi = try Multi(concurrency: configuration.concurrency, perHost: configuration.perHost)
        shares = try Shares()
        concurrency = configuration.concurrency
        perHost = configuration.perHost
        limiter = RateLimiter(rules: configuration.hostRateLimits, waits: waits)
    }

    /// The easy handles go first: curl_share_cleanup refuses (CURLSHE_IN_USE) a share that an easy
    /// handle still uses, which would leave the share and its cookie jar allocated for good.
    deinit {
        active.removeAll()
        idle.removeAll()
    }

    /// Runs until a `stop` command; then fails whatever is left with `engineStopped`.
    func run() {
        mailbox.open(waker: MultiWaker(handle: multi.handle))
        while handle(mailbox.take()) {
            promoteDueRetries()
            resumePaced()
            startWaiting()
            step { () throws(FetchError) in try multi.perform() }
            collectFinished()
            startWaiting()
            step { () throws(FetchError) in try multi.poll(timeout: pollTimeout()) }
        }
        abortAll(.engineStopped)
        for case .submit(let job) in mailbox.close() {
            mailbox.deliver(job.result(.failure(.engineStopped), timings: .zero), to: job.completion)
        }
    }

    /// Applies commands in order; false on `stop`.
    private func handle(_ commands: [Command]) -> Bool {
        for command in commands {
            switch command {
            case .submit(let job): waiting.append(job)
            case .cancel(let id): cancel(id)
            case .cancelAll: abortAll(.cancelled)
            case .cancelGroup(let group): abortAll(.cancelled, group: group)
            case .stop: return false
            }
        }
        return true
    }

    /// A multi-handle failure fails every transfer in flight; the loop itself carries on.
    private func step(_ body: () throws(FetchError) -> Void) {
        do {
            try body()
        } catch {
            for attempt in Array(active.values) {
                abort(attempt, with: error)
            }
        }
    }

    private func pollTimeout() -> Duration {
        let longest = Duration.seconds(1)
        let dues = [delayed.first?.due, nextRateDue, limiter.nextResume].compactMap { $0 }
        guard let next = dues.min() else { return longest }
        return min(max(clock.now.duration(to: next), .zero), longest)
    }

    /// Lets transfers paused for their bytes go on once their buckets allow.
    private func resumePaced() {
        for attempt in limiter.resumable(now: clock.now) {
            attempt.resumePaced()
        }
    }

    private func promoteDueRetries() {
        let now = clock.now
        while let next = delayed.first, next.due <= now {
            delayed.removeFirst()
            waiting.append(next.job)
        }
    }

    /// Starts waiting jobs, oldest first, while the total and per-host limits and the rate limits allow.
    private func startWaiting() {
        var index = 0
        let now = clock.now
        var held: Set<Int> = []
        nextRateDue = nil
        while active.count < concurrency, index < waiting.count {
            let job = waiting[index]
            guard mayStart(job) else {
                index += 1
                continue
            }
            let due = limiter.due(job, now: now)
            guard due <= now else {
                held.insert(job.request.group)
                nextRateDue = min(nextRateDue ?? due, due)
                index += 1
                continue
            }
            limiter.start(job, now: now)
            start(waiting.remove(at: index))
        }
        limiter.notePass(held: held, now: now)
    }

    /// Whether the engine's limits and the request's own leave room for it.
    private func mayStart(_ job: PendingFetch) -> Bool {
        let sameHost = activePerHost[job.host, default: 0]
        return active.count < job.request.concurrency && sameHost < perHost && sameHost < job.request.perHost
    }

    private func start(_ waitingJob: PendingFetch) {
        var job = waitingJob
        job.firstStarted = job.firstStarted ?? clock.now
        let easy: Easy
        do throws(FetchError) {
            if let reused = idle[job.request.cookies]?.popLast() {
                easy = reused
            } else {
                easy = try Easy()
            }
        } catch {
            mailbox.deliver(job.result(.failure(error), timings: .zero), to: job.completion)
            return
        }
        let attempt = Attempt(job: job, easy: easy, mailbox: mailbox,
                              limiter: limiter.pacesBytes(job, now: clock.now) ? limiter : nil)
        mailbox.emit(.started(id: job.id, url: job.request.shownURL, attempt: job.attempt))
        do throws(FetchError) {
            try attempt.prepare(shares: shares)
            try multi.add(easy)
        } catch {
            attempt.discard()
            recycle(easy, cookies: job.request.cookies)
            mailbox.deliver(job.result(.failure(error), timings: .zero), to: job.completion)
            return
        }
        active[easy.handle] = attempt
        activePerHost[job.host, default: 0] += 1
    }

    private func collectFinished() {
        while let done = multi.nextDone() {
            guard let attempt = active[done.easy] else { continue }
            let settled = attempt.settle(done.result)
            detach(attempt)
            conclude(attempt.job, settled)
        }
    }

    /// Delivers the attempt's outcome (a success once its body is all in the file), or schedules the
    /// next attempt when the retry policy says so.
    private func conclude(_ job: PendingFetch, _ settled: Attempt.Settled) {
        if settled.restartFromZero {
            // The resumed answer did not continue the body: ask for all of it, at once. Not a retry,
            // and it cannot happen twice, since that request has no Range.
            var next = job
            next.resume = nil
            return schedule(next, due: clock.now)
        }
        guard case .failure(let error) = settled.outcome else {
            guard let body = settled.body else {
                return mailbox.deliver(job.result(settled.outcome, timings: settled.timings), to: job.completion)
            }
            let mailbox = mailbox
            closer.close(body) { failure in
                mailbox.deliverOnCloser(job.result(settled.outcome(afterClose: failure), timings: settled.timings), to: job.completion)
            }
            return
        }
        if case .http(let status) = error, status == 429 || status == 503 {
            let asked = settled.headers.retryAfter.flatMap { RetryPolicy.delay(retryAfter: $0, now: Date()) }
            limiter.slowDown(job, retryAfter: asked.map { min($0, job.request.retry.maxRetryAfter) }, now: clock.now)
        }
        let decision = job.request.retry.decision(
            after: error, attempt: job.attempt, retryAfter: settled.headers.retryAfter,
            now: Date(), randomUnit: Double.random(in: 0..<1)
        )
        switch decision {
        case .retry(let delay):
            mailbox.emit(.retrying(id: job.id, error: error, attempt: job.attempt, delay: delay, elapsed: job.elapsed))
            var next = job
            next.attempt += 1
            next.resume = settled.resume
            schedule(next, due: clock.now.advanced(by: delay))
        case .giveUp:
            var last = job
            last.resume = settled.resume
            mailbox.deliver(last.failed(settled.outcome, timings: settled.timings), to: job.completion)
        }
    }

    private func schedule(_ job: PendingFetch, due: ContinuousClock.Instant) {
        let index = delayed.firstIndex { $0.due > due } ?? delayed.endIndex
        delayed.insert((due, job), at: index)
    }

    private func cancel(_ id: FetchID) {
        if let attempt = active.values.first(where: { $0.job.id == id }) {
            abort(attempt, with: .cancelled)
        } else if let index = waiting.firstIndex(where: { $0.id == id }) {
            let job = waiting.remove(at: index)
            mailbox.deliver(job.failed(.failure(.cancelled), timings: .zero), to: job.completion)
        } else if let index = delayed.firstIndex(where: { $0.job.id == id }) {
            let job = delayed.remove(at: index).job
            mailbox.deliver(job.failed(.failure(.cancelled), timings: .zero), to: job.completion)
        }
    }

    /// Ends every transfer in flight (removing its file), and every waiting request and pending retry;
    /// of one group only when `group` is given.
    private func abortAll(_ error: FetchError, group: Int? = nil) {
        let chosen = { (job: PendingFetch) in group == nil || job.request.group == group }
        for attempt in Array(active.values) where chosen(attempt.job) {
            abort(attempt, with: error)
        }
        let pending = waiting.filter(chosen) + delayed.map(\.job).filter(chosen)
        waiting.removeAll(where: chosen)
        delayed.removeAll { chosen($0.job) }
        for job in pending {
            mailbox.deliver(job.failed(.failure(error), timings: .zero), to: job.completion)
        }
    }

    private func abort(_ attempt: Attempt, with error: FetchError) {
        attempt.discard()
        detach(attempt)
        mailbox.deliver(attempt.job.result(.failure(error), timings: .zero), to: attempt.job.completion)
    }

    /// Takes the attempt's easy handle out of the multi handle and back to its pool.
    private func detach(_ attempt: Attempt) {
        limiter.forget(attempt)
        active[attempt.easy.handle] = nil
        activePerHost[attempt.job.host, default: 1] -= 1
        do throws(FetchError) {
            try multi.remove(attempt.easy)
            recycle(attempt.easy, cookies: attempt.job.request.cookies)
        } catch {
            // A handle the multi would not release is dropped; its deinit cleans it up.
        }
    }

    private func recycle(_ easy: Easy, cookies: Bool) {
        if idle[cookies, default: []].count < concurrency {
            idle[cookies, default: []].append(easy)
        }
    }
}

@available(*, unavailable) extension FetchLoop: Sendable {}
