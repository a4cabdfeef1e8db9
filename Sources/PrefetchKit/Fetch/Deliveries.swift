/// Where the network threads hand over what callers hear: a serial delivery thread for events and
/// completions, so a network thread never waits on a consumer, and every request's events and result
/// arrive in the order they happened whichever thread ran its attempts.
final class Deliveries: Sendable {
    private let thread = WorkerPool(name: "prefetchd.fetch.deliveries", width: 1)
    private let onEvent: (@Sendable (FetchEvent) -> Void)?

    init(onEvent: (@Sendable (FetchEvent) -> Void)?) {
        self.onEvent = onEvent
    }

    /// Queues the event for the listener; with nobody listening the event is not even built.
    func emit(_ event: @autoclosure () -> FetchEvent) {
        guard let onEvent else { return }
        let event = event()
        thread.submit { onEvent(event) }
    }

    /// Reports the `finished` event, then calls the completion, on the delivery thread.
    func deliver(_ result: FetchResult, to completion: @escaping @Sendable (FetchResult) -> Void) {
        let onEvent = onEvent
        thread.submit {
            onEvent?(.finished(result))
            completion(result)
        }
    }

    /// On a closer thread, for a body it has just closed: with nobody listening to events, calls the
    /// completion here (a thread hand-off less per body); otherwise as `deliver`, behind the events.
    func deliverOnCloser(_ result: FetchResult, to completion: @escaping @Sendable (FetchResult) -> Void) {
        guard onEvent == nil else { return deliver(result, to: completion) }
        completion(result)
    }

    /// Waits until every delivery queued so far has run, unless called from a delivery itself.
    func drain() {
        guard !thread.isCurrentThreadWorker else { return }
        thread.waitUntilIdle()
    }
}
