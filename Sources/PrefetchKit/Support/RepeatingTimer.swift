import Foundation
import Synchronization

/// Calls `handler` every `interval` seconds on its own queue between `start()` and `stop()`.
final class RepeatingTimer: Sendable {
    private let queue: DispatchQueue
    private let interval: Double
    private let handler: @Sendable () -> Void
    /// Made by `start`, cancelled by `stop`; `running` orders the two and makes each happen once.
    /// (A dispatch source must not be released suspended, so it is only made when started.)
    private nonisolated(unsafe) var timer: DispatchSourceTimer?
    private let running = Atomic<Bool>(false)

    init(label: String, interval: Double, handler: @escaping @Sendable () -> Void) {
        self.queue = DispatchQueue(label: label)
        self.interval = interval
        self.handler = handler
    }

    func start() {
        guard running.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else {
            return
        }
        let source = DispatchSource.makeTimerSource(queue: queue)
        source.schedule(deadline: .now() + interval, repeating: interval)
        source.setEventHandler(handler: handler)
        timer = source
        source.resume()
    }

    /// Stops the ticks and waits for a tick under way to end; true when the timer was running.
    /// Not to be called from the handler.
    @discardableResult
    func stop() -> Bool {
        guard running.compareExchange(expected: true, desired: false, ordering: .acquiringAndReleasing).exchanged else {
            return false
        }
        timer?.cancel()
        queue.sync {}
        return true
    }
}
