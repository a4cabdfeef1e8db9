/// A submitted request as the network thread tracks it, across its attempts.
struct PendingFetch: Sendable {
    let id: FetchID
    let request: FetchRequest
    let completion: @Sendable (FetchResult) -> Void
    /// The host per-host limits count against.
    let host: String
    /// The number of the attempt to run next (1 for the first).
    var attempt = 1
    /// When the first attempt began; nil while the request waits for a slot.
    var firstStarted: ContinuousClock.Instant?

    init(id: FetchID, request: FetchRequest, completion: @escaping @Sendable (FetchResult) -> Void) {
        self.id = id
        self.request = request
        self.completion = completion
        host = request.hostKey
    }

    /// Time since the first attempt began (zero before it has).
    var elapsed: Duration {
        firstStarted.map { $0.duration(to: .now) } ?? .zero
    }

    func result(_ outcome: Result<FetchResponse, FetchError>, timings: FetchTimings) -> FetchResult {
        FetchResult(id: id, url: request.shownURL, outcome: outcome, attempts: attempt, timings: timings,
                    elapsed: elapsed)
    }
}
