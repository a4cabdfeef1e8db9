
/// What other threads ask of the network thread, in the order they asked.
enum Command: Sendable {
    case submit(PendingFetch)
    case cancel(FetchID)
    case cancelAll
    case cancelGroup(Int)
    case stop
}

/// The meeting point of the engine's callers and its network thread: a locked inbox of commands that
/// wakes the thread, and a serial delivery thread for events and completions, so the network thread
/// never waits on a consumer.
final class Mailbox: Sendable {
    private struct Inbox {
        var commands: [Command] = []
        var waker: MultiWaker?
        var closed = false
        var startFailure: FetchError?
        var lastID: UInt64 = 0
    }

    private let inbox = Locked(Inbox())
    private let deliveries = WorkerPool(name: "prefetchd.fetch.deliveries", width: 1)
    private let onEvent: (@Sendable (FetchEvent) -> Void)?

    init(onEvent: (@Sendable (FetchEvent) -> Void)?) {
        self.onEvent = onEvent
    }

    func newID() -> FetchID {
        inbox.withLock { inbox in
            inbox.lastID += 1
            return FetchID(rawValue: inbox.lastID)
        }
    }

    /// Queues a command and wakes the network thread; false once the thread has stopped. Only the
    /// first command after a `take` wakes it: the rest are taken with that one.
    func post(_ command: Command) -> Bool {
        inbox.withLock { inbox in
            guard !inbox.closed else { return false }
            if inbox.commands.isEmpty {
                inbox.waker?.wake()
            }
            inbox.commands.append(command)
            return true
        }
    }

    /// Network thread: its multi handle is ready to be woken.
    func open(waker: MultiWaker) {
        inbox.withLock { $0.waker = waker }
    }

    /// Network thread: every command posted since the last call.
    func take() -> [Command] {
        inbox.withLock { inbox in
            defer { inbox.commands.removeAll() }
            return inbox.commands
        }
    }

    /// Network thread, on its way out: no more commands; returns those never taken.
    func close(failure: FetchError? = nil) -> [Command] {
        inbox.withLock { inbox in
            inbox.closed = true
            inbox.waker = nil
            inbox.startFailure = failure
            defer { inbox.commands.removeAll() }
            return inbox.commands
        }
    }

    /// Why the network thread could not start, if it could not.
    var startFailure: FetchError? {
        inbox.withLock { $0.startFailure }
    }

    /// Queues the event for the listener; with nobody listening the event is not even built.
    func emit(_ event: @autoclosure () -> FetchEvent) {
        guard let onEvent else { return }
        let event = event()
        deliveries.submit { onEvent(event) }
    }

    /// Reports the `finished` event, then calls the completion, on the delivery thread.
    func deliver(_ result: FetchResult, to completion: @escaping @Sendable (FetchResult) -> Void) {
        let onEvent = onEvent
        deliveries.submit {
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
    func drainDeliveries() {
        guard !deliveries.isCurrentThreadWorker else { return }
        deliveries.waitUntilIdle()
    }
}
