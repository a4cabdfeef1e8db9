import Foundation
internal import CCurl

/// Everything the network thread owns: the multi handle, the easy handles, the transfers in flight, the
/// requests waiting for a slot and the retries waiting for their time. Created and used on that thread only.
final class FetchLoop {
    private let mailbox: Mailbox
    private let writer: BodyWriter
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

    init(mailbox: Mailbox, writer: BodyWriter, configuration: EngineConfiguration) throws(FetchError) {
        self.mailbox = mailbox
        self.writer = writer
        multi = try Multi(concurrency: configuration.concurrency, perHost: configuration.perHost)
        shares = try Shares()
        concurrency = configuration.concurrency
        perHost = configuration.perHost
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
        guard let next = delayed.first else { return longest }
        return min(max(clock.now.duration(to: next.due), .zero), longest)
    }

    private func promoteDueRetries() {
        let now = clock.now
        while let next = delayed.first, next.due <= now {
            delayed.removeFirst()
            waiting.append(next.job)
        }
    }

    /// Starts waiting jobs, oldest first, while the total and per-host limits allow.
    private func startWaiting() {
        var index = 0
        while active.count < concurrency, index < waiting.count {
            if mayStart(waiting[index]) {
                start(waiting.remove(at: index))
            } else {
                index += 1
            }
        }
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
        let attempt = Attempt(job: job, easy: easy, mailbox: mailbox, writer: writer)
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
        guard case .failure(let error) = settled.outcome else {
            guard let body = settled.body else {
                return mailbox.deliver(job.result(settled.outcome, timings: settled.timings), to: job.completion)
            }
            let mailbox = mailbox
            writer.close(body, after: settled.lastChunk, hashes: settled.hashes) { failure in
                mailbox.deliverOnWriter(job.result(settled.outcome(afterWrites: failure), timings: settled.timings), to: job.completion)
            }
            return
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
            schedule(next, due: clock.now.advanced(by: delay))
        case .giveUp:
            mailbox.deliver(job.result(settled.outcome, timings: settled.timings), to: job.completion)
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
            mailbox.deliver(job.result(.failure(.cancelled), timings: .zero), to: job.completion)
        } else if let index = delayed.firstIndex(where: { $0.job.id == id }) {
            let job = delayed.remove(at: index).job
            mailbox.deliver(job.result(.failure(.cancelled), timings: .zero), to: job.completion)
        }
    }

    /// Ends every transfer in flight (removing its file), and every waiting request and pending retry.
    private func abortAll(_ error: FetchError) {
        for attempt in Array(active.values) {
            abort(attempt, with: error)
        }
        let pending = waiting + delayed.map(\.job)
        waiting.removeAll()
        delayed.removeAll()
        for job in pending {
            mailbox.deliver(job.result(.failure(error), timings: .zero), to: job.completion)
        }
    }

    private func abort(_ attempt: Attempt, with error: FetchError) {
        attempt.discard()
        detach(attempt)
        mailbox.deliver(attempt.job.result(.failure(error), timings: .zero), to: attempt.job.completion)
    }

    /// Takes the attempt's easy handle out of the multi handle and back to its pool.
    private func detach(_ attempt: Attempt) {
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
