/// The schedule the engine's network threads (its lanes, one `FetchLoop` each) share: the requests
/// waiting for a slot, the retries waiting for their time, the transfers in flight per lane and per
/// host, the rate limits, which lane runs each request, and the commands for each lane. One lock
/// guards all of it; a lane takes it a few times per pass of its loop, never while libcurl runs.
///
/// Every lane starts requests from the one queue, oldest first, within limits that count every lane's
/// transfers: `concurrency` in all, `perHost` to a host, each request's own, and the rate limits. A
/// lane takes a request only while it has no more transfers than any other lane, so the transfers
/// spread over the lanes even when a per-host limit allows fewer than `concurrency`; a lane that holds
/// back wakes the least busy lane if that one sleeps. So no lane ever runs more than `laneShare`
/// (what `Multi` keeps connections for). The lane that frees a slot is then usually the least busy
/// one, and takes the next request itself. A lane asleep in `curl_multi_poll` is woken when a request
/// or a command comes for it.
final class Admission: Sendable {
    /// What a caller asks of a lane, for the transfers that lane runs.
    enum Command {
        /// Stop the request if the lane runs it; else look for it again (it moved).
        case cancel(FetchID)
        /// Stop every transfer of `group` (nil: any) submitted before `generation`.
        case abort(FetchError, group: Int?, before: UInt64)
        /// Abort everything and leave the loop.
        case stop
    }

    /// What a lane is to do after one look at the schedule.
    struct Pass {
        var commands: [Command] = []
        /// Requests to start now, their tokens taken and their slots counted.
        var starts: [Start] = []
        /// The lane's transfers paused for their bytes that may go on.
        var resumable: [Attempt] = []
        /// How long the lane may sleep in `curl_multi_poll`.
        var timeout = Duration.seconds(1)
    }

    struct Start {
        let job: PendingFetch
        /// Whether its body's bytes are paced (`BytePacer`).
        let pacesBytes: Bool
    }

    private struct Lane {
        var active = 0
        var asleep = false
        var commands: [Command] = []
        var waker: MultiWaker?
    }

    private struct State {
        var waiting: [PendingFetch] = []
        /// Retries ordered by when they are due, earliest first.
        var delayed: [(due: ContinuousClock.Instant, job: PendingFetch)] = []
        var lanes: [Lane]
        var total = 0
        var perHost: [String: Int] = [:]
        /// The lane of each request taken and not settled yet (running, or being concluded).
        var owners: [FetchID: Int] = [:]
        var lastID: UInt64 = 0
        /// Counts `cancelAll` and `cancel(group:)`; a request keeps the one it was submitted in.
        var generation: UInt64 = 0
        /// The generation each `cancel(group:)` began (nil key: `cancelAll`): requests of the group
        /// submitted before it were cancelled.
        var cutoffs: [Int?: UInt64] = [:]
        var stopped = false
        /// The earliest time a request held by a rate limit at the last pass may start.
        var nextRateDue: ContinuousClock.Instant?
        let limiter: RateLimiter
    }

    private let state: Locked<State>
    private let concurrency: Int
    private let perHost: Int
    /// The network threads, at least one.
    let lanes: Int
    /// The most transfers one lane runs at once: `concurrency` divided by the lanes, rounded up.
    let laneShare: Int

    init(configuration: EngineConfiguration, waits: RateWaits) {
        concurrency = configuration.concurrency
        perHost = configuration.perHost
        lanes = max(configuration.lanes, 1)
        laneShare = (concurrency + lanes - 1) / lanes
        state = Locked(State(lanes: Array(repeating: Lane(), count: lanes),
                             limiter: RateLimiter(rules: configuration.hostRateLimits, waits: waits)))
    }

    func newID() -> FetchID {
        state.withLock { state in
            state.lastID += 1
            return FetchID(rawValue: state.lastID)
        }
    }

    // MARK: Callers

    /// Queues a request; false once the engine has stopped.
    func submit(_ submitted: PendingFetch) -> Bool {
        state.withLock { state in
            guard !state.stopped else { return false }
            var job = submitted
            job.generation = state.generation
            state.waiting.append(job)
            // The least busy lane takes it; wake that one if it sleeps (an awake one looks anyway).
            if let lane = state.lanes.indices.min(by: { state.lanes[$0].active < state.lanes[$1].active }) {
                Self.wake(lane, &state)
            }
            return true
        }
    }

    /// Takes a request out of the queue or the retries, for the caller to complete as cancelled; when a
    /// lane runs it, that lane is told (unless it is `asking`, which looked already).
    func cancel(_ id: FetchID, asking: Int? = nil) -> PendingFetch? {
        state.withLock { state in
            if let index = state.waiting.firstIndex(where: { $0.id == id }) {
                return state.waiting.remove(at: index)
            }
            if let index = state.delayed.firstIndex(where: { $0.job.id == id }) {
                return state.delayed.remove(at: index).job
            }
            if let lane = state.owners[id], lane != asking {
                Self.post(.cancel(id), to: lane, &state)
            }
            return nil
        }
    }

    /// Takes every request of `group` (nil: all) submitted so far out of the queue and the retries,
    /// for the caller to complete with `error`, and tells every lane to abort those it runs; a retry
    /// of one concluded meanwhile is refused (`schedule`).
    func cancelAll(_ error: FetchError, group: Int?) -> [PendingFetch] {
        state.withLock { state in
            state.generation += 1
            let generation = state.generation
            state.cutoffs[group] = generation
            let chosen = { (job: PendingFetch) in group == nil || job.request.group == group }
            let taken = state.waiting.filter(chosen) + state.delayed.map(\.job).filter(chosen)
            state.waiting.removeAll(where: chosen)
            state.delayed.removeAll { chosen($0.job) }
            for lane in state.lanes.indices {
                Self.post(.abort(error, group: group, before: generation), to: lane, &state)
            }
            return taken
        }
    }

    /// Refuses requests from now on, tells every lane to stop, and returns what was queued, for the
    /// caller to complete as stopped.
    func stop() -> [PendingFetch] {
        state.withLock { state in
            state.stopped = true
            let taken = state.waiting + state.delayed.map(\.job)
            state.waiting.removeAll()
            state.delayed.removeAll()
            for lane in state.lanes.indices {
                Self.post(.stop, to: lane, &state)
            }
            return taken
        }
    }

    // MARK: Lanes

    /// The lane's multi handle is ready to be woken.
    func open(lane: Int, waker: MultiWaker) {
        state.withLock { $0.lanes[lane].waker = waker }
    }

    /// The lane is leaving: nobody wakes its multi handle any more.
    func close(lane: Int) {
        state.withLock { $0.lanes[lane].waker = nil }
    }

    /// The lane's commands, the requests it is to start now and its paused transfers that may go on.
    /// With `beforeSleep` the lane is counted asleep from here until woken or its next pass, and the
    /// pass says how long it may sleep.
    func pass(lane: Int, beforeSleep: Bool) -> Pass {
        state.withLock { state in
            var pass = Pass()
            state.lanes[lane].asleep = false
            pass.commands = state.lanes[lane].commands
            state.lanes[lane].commands.removeAll()
            let now = ContinuousClock.now
            while let next = state.delayed.first, next.due <= now {
                state.delayed.removeFirst()
                state.waiting.append(next.job)
            }
            pass.resumable = state.limiter.resumable(now: now, lane: lane)
            pass.starts = takeStartable(lane: lane, now: now, &state)
            if beforeSleep {
                state.lanes[lane].asleep = true
                let dues = [state.delayed.first?.due, state.nextRateDue, state.limiter.nextResume(lane: lane)]
                if let next = dues.compactMap({ $0 }).min() {
                    pass.timeout = min(max(now.duration(to: next), .zero), pass.timeout)
                }
            }
            return pass
        }
    }

    /// The request's transfer has ended, or did not start (no `attempt`): its slot is free. The request
    /// stays the lane's until `settled` or `schedule`.
    func finished(_ job: PendingFetch, lane: Int, attempt: Attempt? = nil) {
        state.withLock { state in
            if let attempt { state.limiter.forget(attempt) }
            state.lanes[lane].active -= 1
            state.total -= 1
            state.perHost[job.host, default: 1] -= 1
        }
    }

    /// The request is done with (delivered, or completed by the lane).
    func settled(_ id: FetchID) {
        state.withLock { _ = $0.owners.removeValue(forKey: id) }
    }

    /// Queues the request's next attempt for `due`; the request is no longer the lane's. Returns why
    /// it may not run instead (the engine stopped, or the request was cancelled meanwhile), for the
    /// caller to complete it with.
    func schedule(_ job: PendingFetch, due: ContinuousClock.Instant) -> FetchError? {
        state.withLock { state in
            state.owners[job.id] = nil
            if state.stopped { return .engineStopped }
            let cutoff = max(state.cutoffs[nil] ?? 0, state.cutoffs[job.request.group] ?? 0)
            if job.generation < cutoff { return .cancelled }
            let index = state.delayed.firstIndex { $0.due > due } ?? state.delayed.endIndex
            state.delayed.insert((due, job), at: index)
            return nil
        }
    }

    /// A 429 or 503 from the job's host.
    func slowDown(_ job: PendingFetch, retryAfter: Duration?) {
        state.withLock { $0.limiter.slowDown(job, retryAfter: retryAfter, now: .now) }
    }

    /// Inside a write callback: whether the bytes may be taken now (`RateLimiter.admitBytes`).
    func admitBytes(_ count: Int, for attempt: Attempt, lane: Int) -> Bool {
        state.withLock { $0.limiter.admitBytes(count, for: attempt, lane: lane, now: .now) }
    }

    /// Takes waiting requests, oldest first, while every limit leaves room and the lane is among the
    /// least busy; counts them as the lane's.
    private func takeStartable(lane: Int, now: ContinuousClock.Instant, _ state: inout State) -> [Start] {
        var starts: [Start] = []
        var index = 0
        var held: Set<Int> = []
        state.nextRateDue = nil
        while state.total < concurrency, index < state.waiting.count {
            let job = state.waiting[index]
            let sameHost = state.perHost[job.host, default: 0]
            guard state.total < job.request.concurrency, sameHost < perHost, sameHost < job.request.perHost else {
                index += 1
                continue
            }
            let due = state.limiter.due(job, now: now)
            guard due <= now else {
                held.insert(job.request.group)
                state.nextRateDue = min(state.nextRateDue ?? due, due)
                index += 1
                continue
            }
            let idlest = state.lanes.indices.min { state.lanes[$0].active < state.lanes[$1].active } ?? lane
            if state.lanes[idlest].active < state.lanes[lane].active {
                // Another lane is less busy: it takes this one (woken if it sleeps).
                Self.wake(idlest, &state)
                break
            }
            state.limiter.start(job, now: now)
            state.waiting.remove(at: index)
            state.lanes[lane].active += 1
            state.total += 1
            state.perHost[job.host, default: 0] += 1
            state.owners[job.id] = lane
            starts.append(Start(job: job, pacesBytes: state.limiter.pacesBytes(job, now: now)))
        }
        state.limiter.notePass(held: held, now: now)
        return starts
    }

    /// Whether an `abort` command for `group` (nil: any) and generation `before` stops the request.
    static func isCut(_ job: PendingFetch, group: Int?, before: UInt64) -> Bool {
        (group == nil || job.request.group == group) && job.generation < before
    }

    private static func post(_ command: Command, to lane: Int, _ state: inout State) {
        state.lanes[lane].commands.append(command)
        wake(lane, &state)
    }

    private static func wake(_ lane: Int, _ state: inout State) {
        guard state.lanes[lane].asleep else { return }
        state.lanes[lane].asleep = false
        state.lanes[lane].waker?.wake()
    }
}

/// Paces a transfer's body bytes against the rate limits, for the lane that runs it.
struct BytePacer {
    let admission: Admission
    let lane: Int

    func admit(_ count: Int, for attempt: Attempt) -> Bool {
        admission.admitBytes(count, for: attempt, lane: lane)
    }
}
