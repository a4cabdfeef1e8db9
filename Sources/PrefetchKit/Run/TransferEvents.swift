import Foundation
import Synchronization

/// Turns the engine's events (by fetch id) into run events (by URL and set) for the log.
/// The prefetcher registers each transfer right after submitting it; the engine's `response` and
/// `retrying` events come a network round trip later, so they find it.
final class TransferEvents: Sendable {
    private let transfers = Mutex<[FetchID: (url: String, set: String, started: Date)]>([:])
    private let log: RunLog

    init(log: RunLog) {
        self.log = log
    }

    func register(_ id: FetchID, url: String, set: String) {
        transfers.withLock { $0[id] = (url, set, Date()) }
    }

    func unregister(_ id: FetchID) {
        _ = transfers.withLock { $0.removeValue(forKey: id) }
    }

    /// The engine's event hook.
    func handle(_ event: FetchEvent) {
        switch event {
        case .response(let id, let status, _):
            guard let transfer = transfers.withLock({ $0[id] }) else { return }
            log.record(RunEvent(.response, url: transfer.url, set: transfer.set, status: status,
                                elapsedMs: Date().timeIntervalSince(transfer.started) * 1000))
        case .retrying(let id, let error, let attempt, _, _):
            guard let transfer = transfers.withLock({ $0[id] }) else { return }
            log.record(RunEvent(.retrying, url: transfer.url, set: transfer.set, status: error.httpStatus,
                                reason: error.reason, attempt: attempt))
        case .started, .finished:
            // The prefetcher logs these itself, with the set and the validation outcome.
            break
        }
    }
}
