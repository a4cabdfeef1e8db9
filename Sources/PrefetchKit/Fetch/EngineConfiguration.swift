import Foundation

/// How the engine as a whole behaves; per-request options live in `FetchRequest`.
package struct EngineConfiguration: Sendable {
    /// Transfers in flight at once, over all hosts.
    package var concurrency: Int
    /// Transfers in flight at once to one host.
    package var perHost: Int
    /// Told of every state change, in order, on the engine's delivery queue (never on the network
    /// thread). It should return quickly: completions wait behind it.
    package var onEvent: (@Sendable (FetchEvent) -> Void)?
    /// The `rate_limit` of each host, shared by every request to it.
    package var hostRateLimits = HostRateRules()
    /// Network threads, each with its own libcurl multi handle, sharing the limits above: two where
    /// the machine has two cores or more (a thread that receives, hashes and writes bodies is the
    /// bottleneck of a fetch on one), one otherwise.
    package var lanes = min(ProcessInfo.processInfo.activeProcessorCount, 2)

    package init(concurrency: Int = 16, perHost: Int = 6, onEvent: (@Sendable (FetchEvent) -> Void)? = nil) {
        self.concurrency = max(concurrency, 1)
        self.perHost = max(perHost, 1)
        self.onEvent = onEvent
    }
}
