import Foundation
internal import CCurl

/// Everything one network thread (a lane) owns: its multi handle, its easy handles and the transfers
/// it runs. Created and used on that thread only; what the lanes share (the queue, the retries, the
/// limits, their commands) is the `Admission`'s.
final class FetchLoop {
    private let lane: Int
    private let admission: Admission
    private let deliveries: Deliveries
    private let closer: BodyCloser
    private let multi: Multi
    private let shares: Shares
    private let concurrency: Int
    /// Reset-and-reuse pools, one per cookie setting, so a cookie jar never leaks into a request without cookies.
    private var idle: [Bool: [Easy]] = [false: [], true: []]
    private var active: [UnsafeMutableRawPointer: Attempt] = [:]

    init(lane: Int, admission: Admission, deliveries: Deliveries, closer: BodyCloser, shares: Shares,
         configuration: EngineConfiguration) throws(FetchError) {
        self.lane = lane
        self.admission = admission
        self.deliveries = deliveries
        self.closer = closer
        self.shares = shares
        multi = try Multi(concurrency: configuration.concurrency, perHost: configuration.perHost,
                          kept: admission.laneShare)
        concurrency = configuration.concurrency
    }

    /// The easy handles go first: curl_share_cleanup refuses (CURLSHE_IN_USE) a share that an easy
    /// handle still uses, which would leave the share and its cookie jar allocated for good.
    deinit {
        active.removeAll()
        idle.removeAll()
    }

    /// Runs until a `stop` command, which aborts the transfers in flight.
    func run() {
        admission.open(lane: lane, waker: MultiWaker(handle: multi.handle))
        defer { admission.close(lane: lane) }
        while apply(admission.pass(lane: lane, beforeSleep: false)) {
            step { () throws(FetchError) in try multi.perform() }
            collectFinished()
            let pass = admission.pass(lane: lane, beforeSleep: true)
            guard apply(pass) else { break }
            step { () throws(FetchError) in try multi.poll(timeout: pass.timeout) }
        }
    }

    /// Starts the pass's requests, then applies its commands in order (a `cancel` may be for a request
    /// just started: it was taken again for a retry after the command was posted), then goes on with
    /// the paced transfers still running; false on `stop`.
    private func apply(_ pass: Admission.Pass) -> Bool {
        for start in pass.starts {
            self.start(start)
        }
        for command in pass.commands {
            switch command {
            case .cancel(let id): cancel(id)
            case .abort(let error, let group, let before): abortAll(error) { Admission.isCut($0, group: group, before: before) }
            case .stop:
                abortAll(.engineStopped) { _ in true }
                return false
            }
        }
        for attempt in pass.resumable where active[attempt.easy.handle] === attempt {
            attempt.resumePaced()
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

    private func start(_ start: Admission.Start) {
        var job = start.job
        job.firstStarted = job.firstStarted ?? .now
        let easy: Easy
        do throws(FetchError) {
            if let reused = idle[job.request.cookies]?.popLast() {
                easy = reused
            } else {
                easy = try Easy()
            }
        } catch {
            admission.finished(job, lane: lane)
            settle(job, job.result(.failure(error), timings: .zero))
            return
        }
        let attempt = Attempt(job: job, easy: easy, deliveries: deliveries,
                              pacer: start.pacesBytes ? BytePacer(admission: admission, lane: lane) : nil)
        deliveries.emit(.started(id: job.id, url: job.request.shownURL, attempt: job.attempt))
        do throws(FetchError) {
            try attempt.prepare(shares: shares)
            try multi.add(easy)
        } catch {
            attempt.discard()
            recycle(easy, cookies: job.request.cookies)
            admission.finished(job, lane: lane)
            settle(job, job.result(.failure(error), timings: .zero))
            return
        }
        active[easy.handle] = attempt
    }

    private func collectFinished() {
        while let done = multi.nextDone() {
            guard let attempt = active[done.easy] else { continue }
            let settled = attempt.settle(done.result)
            detach(attempt)
            conclude(attempt.job, settled)
        }
    }

    /// Hands the request's result over; the request is no longer this lane's.
    private func settle(_ job: PendingFetch, _ result: FetchResult) {
        admission.settled(job.id)
        deliveries.deliver(result, to: job.completion)
    }

    /// Delivers the attempt's outcome (a success once its body is all in the file), or schedules the
    /// next attempt when the retry policy says so.
    private func conclude(_ job: PendingFetch, _ settled: Attempt.Settled) {
        if settled.restartFromZero {
            // The resumed answer did not continue the body: ask for all of it, at once. Not a retry,
            // and it cannot happen twice, since that request has no Range.
            var next = job
            next.resume = nil
            return schedule(next, due: .now, failing: settled)
        }
        guard case .failure(let error) = settled.outcome else {
            guard let body = settled.body else {
                return settle(job, job.result(settled.outcome, timings: settled.timings))
            }
            admission.settled(job.id)
            let deliveries = deliveries
            closer.close(body) { failure in
                deliveries.deliverOnCloser(job.result(settled.outcome(afterClose: failure), timings: settled.timings), to: job.completion)
            }
            return
        }
        if case .http(let status) = error, status == 429 || status == 503 {
            let asked = settled.headers.retryAfter.flatMap { RetryPolicy.delay(retryAfter: $0, now: Date()) }
            admission.slowDown(job, retryAfter: asked.map { min($0, job.request.retry.maxRetryAfter) })
        }
        let decision = job.request.retry.decision(
            after: error, attempt: job.attempt, retryAfter: settled.headers.retryAfter,
            now: Date(), randomUnit: Double.random(in: 0..<1)
        )
        switch decision {
        case .retry(let delay):
            deliveries.emit(.retrying(id: job.id, error: error, attempt: job.attempt, delay: delay, elapsed: job.elapsed))
            var next = job
            next.attempt += 1
            next.resume = settled.resume
            schedule(next, due: .now.advanced(by: delay), failing: settled)
        case .giveUp:
            var last = job
            last.resume = settled.resume
            settle(job, last.failed(settled.outcome, timings: settled.timings))
        }
    }

    /// Queues the next attempt; when it may not run (the engine stopped, or the request was cancelled
    /// meanwhile), the request ends with that instead.
    private func schedule(_ job: PendingFetch, due: ContinuousClock.Instant, failing settled: Attempt.Settled) {
        guard let error = admission.schedule(job, due: due) else { return }
        deliveries.deliver(job.failed(.failure(error), timings: settled.timings), to: job.completion)
    }

    /// Stops the request when this lane runs it; otherwise it moved (to the retries, or to another
    /// lane) since the command was posted, and is looked for again there.
    private func cancel(_ id: FetchID) {
        if let attempt = active.values.first(where: { $0.job.id == id }) {
            abort(attempt, with: .cancelled)
        } else if let job = admission.cancel(id, asking: lane) {
            deliveries.deliver(job.failed(.failure(.cancelled), timings: .zero), to: job.completion)
        }
    }

    /// Ends every transfer in flight that `chosen` picks, removing its file.
    private func abortAll(_ error: FetchError, where chosen: (PendingFetch) -> Bool) {
        for attempt in Array(active.values) where chosen(attempt.job) {
            abort(attempt, with: error)
        }
    }

    private func abort(_ attempt: Attempt, with error: FetchError) {
        attempt.discard()
        detach(attempt)
        settle(attempt.job, attempt.job.result(.failure(error), timings: .zero))
    }

    /// Takes the attempt's easy handle out of the multi handle and back to its pool, and frees its slot.
    private func detach(_ attempt: Attempt) {
        admission.finished(attempt.job, lane: lane, attempt: attempt)
        active[attempt.easy.handle] = nil
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
