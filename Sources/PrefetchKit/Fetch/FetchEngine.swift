import Foundation
internal import CCurl

/// Downloads files over HTTP(S) with libcurl's multi interface on dedicated network threads (lanes,
/// `EngineConfiguration.lanes`), each with its own multi handle and doing its bodies end to end.
///
/// Any thread may submit requests; results arrive on the engine's serial delivery thread, in order
/// with the events of `EngineConfiguration.onEvent`; without an event handler, the result of a body
/// arrives on the closer thread that closed its file instead (`BodyCloser`). At most `concurrency` transfers (and
/// `perHost` per host, and fewer where a request's own limits say so) run at once over all lanes; the rest wait,
/// oldest first, and start on a network thread as soon as the limits allow (`Admission`). Transient failures are retried per
/// the request's `RetryPolicy` without holding a slot or a thread while waiting.
///
/// The destination file of a request exists after its result only when the outcome is a success of kind
/// `.ok`; the engine removes it in every other case, cancellation and shutdown included. A file handed
/// over as `destinationDescriptor` stays the caller's to keep or drop.
package final class FetchEngine: Sendable {
    private let admission: Admission
    private let deliveries: Deliveries
    private let closer: BodyCloser
    private let exited = DispatchGroup()
    private let waits = RateWaits()

    package init(configuration: EngineConfiguration = EngineConfiguration()) throws(FetchError) {
        try initializeCurl()
        let admission = Admission(configuration: configuration, waits: waits)
        self.admission = admission
        let deliveries = Deliveries(onEvent: configuration.onEvent)
        self.deliveries = deliveries
        // Made here, not on a network thread, so that its threads keep the caller's scheduling policy.
        let closer = BodyCloser(threads: 2)
        self.closer = closer
        let shares = try Shares()
        let failures = Locked<FetchError?>(nil)
        let started = DispatchGroup()
        for lane in 0..<admission.lanes {
            started.enter()
            exited.enter()
            let thread = Thread { [exited] in
                defer { exited.leave() }
                ProcessTuning.preferCallingThread()
                let loop: FetchLoop
                do throws(FetchError) {
                    loop = try FetchLoop(lane: lane, admission: admission, deliveries: deliveries, closer: closer,
                                         shares: shares, configuration: configuration)
                } catch {
                    failures.withLock { $0 = $0 ?? error }
                    started.leave()
                    return
                }
                started.leave()
                loop.run()
            }
            thread.name = "prefetchd.fetch.\(lane)"
            thread.start()
        }
        started.wait()
        if let failure = failures.withLock({ $0 }) {
            shutdown()
            throw failure
        }
    }

    deinit {
        shutdown()
    }

    /// Queues a request; `completion` runs once, on the delivery thread (or a closer thread, see above),
    /// with its result. `register` is given the request's id before it is queued, so whatever it files
    /// the id with is there for the request's first event.
    @discardableResult
    package func submit(_ request: FetchRequest, register: (FetchID) -> Void = { _ in },
                       completion: @escaping @Sendable (FetchResult) -> Void) -> FetchID {
        let job = PendingFetch(id: admission.newID(), request: request, completion: completion)
        register(job.id)
        if !admission.submit(job) {
            deliveries.deliver(job.result(.failure(.engineStopped), timings: .zero), to: completion)
        }
        return job.id
    }

    /// Fetches and waits for the result. Cancelling the task cancels the transfer.
    package func fetch(_ request: FetchRequest) async -> FetchResult {
        let pending = PendingCancellation()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let id = submit(request) { continuation.resume(returning: $0) }
                if pending.submitted(id) {
                    cancel(id)
                }
            }
        } onCancel: {
            if let id = pending.cancelled() {
                cancel(id)
            }
        }
    }

    /// Stops one request: in flight (its file removed), waiting, or between retries. It completes with
    /// `cancelled`; a request already settled is not affected.
    package func cancel(_ id: FetchID) {
        if let job = admission.cancel(id) {
            deliveries.deliver(job.failed(.failure(.cancelled), timings: .zero), to: job.completion)
        }
    }

    /// Stops every request submitted so far (for SIGINT): transfers in flight are aborted and their files
    /// removed, and all complete with `cancelled`. The engine stays usable.
    package func cancelAll() {
        fail(admission.cancelAll(.cancelled, group: nil), with: .cancelled)
    }

    /// Stops every request of `group` submitted so far, as `cancelAll` does the whole engine's.
    package func cancel(group: Int) {
        fail(admission.cancelAll(.cancelled, group: group), with: .cancelled)
    }

    /// How long requests of `group` (nil: any) were held by rate limits so far (`RateWaits`).
    package func rateWait(group: Int?) -> Duration {
        waits.waited(group: group)
    }

    /// Stops the network threads after failing everything left with `engineStopped` and removing the
    /// files of transfers in flight. Returns once the threads have exited and, unless called from a
    /// completion, once every completion has run. Later submissions complete with `engineStopped`.
    package func shutdown() {
        fail(admission.stop(), with: .engineStopped)
        exited.wait()
        if !closer.isCurrentThreadCloser {
            closer.waitUntilIdle()
        }
        deliveries.drain()
    }

    /// Completes requests taken out of the queue and the retries.
    private func fail(_ jobs: [PendingFetch], with error: FetchError) {
        for job in jobs {
            deliveries.deliver(job.failed(.failure(error), timings: .zero), to: job.completion)
        }
    }
}

/// Lets `fetch` cancel a request whose id the cancellation handler may see before or after submission.
private final class PendingCancellation: Sendable {
    private let state = Locked<(id: FetchID?, cancelled: Bool)>((nil, false))

    /// Records the id; true when cancellation already happened.
    func submitted(_ id: FetchID) -> Bool {
        state.withLock { state in
            state.id = id
            return state.cancelled
        }
    }

    /// Records cancellation; the id when already submitted.
    func cancelled() -> FetchID? {
        state.withLock { state in
            state.cancelled = true
            return state.id
        }
    }
}

/// libcurl's global initialisation, once per process, before any handle exists.
private let curlGlobalInitialization: CURLcode = curl_global_init(Int(CURL_GLOBAL_ALL))

private func initializeCurl() throws(FetchError) {
    let code = curlGlobalInitialization
    guard code == CURLE_OK else {
        throw .curl(code: Int(code.rawValue), message: "curl_global_init: \(String(cString: curl_easy_strerror(code)))")
    }
}
