import Foundation

/// Turns the engine's events (by fetch id) into run events (by URL and set) for the log.
/// The prefetcher registers each transfer as it submits it, before the engine can tell of it.
final class TransferEvents: Sendable {
    private struct Transfer {
        let url: String
        let set: String
    }

    private let transfers = Locked<[FetchID: Transfer]>([:])
    private let log: RunLog

    init(log: RunLog) {
        self.log = log
    }

    func register(_ id: FetchID, url: String, set: String) {
        transfers.withLock { $0[id] = Transfer(url: url, set: set) }
    }

    func unregister(_ id: FetchID) {
        _ = transfers.withLock { $0.removeValue(forKey: id) }
    }

    /// The engine's event hook.
    func handle(_ event: FetchEvent) {
        switch event {
        case .started(let id, _, let attempt) where attempt == 1:
            guard let transfer = transfers.withLock({ $0[id] }) else { return }
            log.record(RunEvent(.started, url: transfer.url, set: transfer.set))
        case .response(let id, let status, _, let elapsed):
            guard let transfer = transfers.withLock({ $0[id] }) else { return }
            // Measured on the network thread, as the finished event's time is: never more than it.
            log.record(RunEvent(.response, url: transfer.url, set: transfer.set, status: status,
                                elapsedMs: elapsed.seconds * 1000))
        case .retrying(let id, let error, let attempt, let delay, let elapsed):
            guard let transfer = transfers.withLock({ $0[id] }) else { return }
            log.record(RunEvent(.retrying, url: transfer.url, set: transfer.set, status: error.httpStatus,
                                elapsedMs: elapsed.seconds * 1000, reason: error.reason, attempt: attempt,
                                delayMs: delay.seconds * 1000))
        case .started:
            // A retry: `retrying` told of it.
            break
        case .finished:
            // The prefetcher logs the outcome itself, once the body is validated and stored.
            break
        }
    }
}
