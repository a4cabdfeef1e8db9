internal import Glibc

/// A submitted request as the network threads track it, across its attempts.
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
    /// Where the body a cut attempt left in the destination stands, for the next attempt to resume.
    var resume: ResumePoint?
    /// How many `cancelAll`s and `cancel(group:)`s came before the request was queued (`Admission`).
    var generation: UInt64 = 0

    init(id: FetchID, request: FetchRequest, completion: @escaping @Sendable (FetchResult) -> Void) {
        self.id = id
        self.request = request
        self.completion = completion
        host = request.hostKey
        resume = request.resume
    }

    /// Time since the first attempt began (zero before it has).
    var elapsed: Duration {
        firstStarted.map { $0.duration(to: .now) } ?? .zero
    }

    func result(_ outcome: Result<FetchResponse, FetchError>, timings: FetchTimings) -> FetchResult {
        FetchResult(id: id, url: request.shownURL, outcome: outcome, attempts: attempt, timings: timings,
                    elapsed: elapsed)
    }

    /// A failure's result. A cut body left in a file the caller owns is reported as `kept`, for it
    /// to keep for a later run; one in a file the engine made is removed, as every failed body is.
    func failed(_ outcome: Result<FetchResponse, FetchError>, timings: FetchTimings) -> FetchResult {
        var result = result(outcome, timings: timings)
        if let resume {
            if request.destinationDescriptor == nil {
                unlink(request.destination)
            } else {
                result.kept = resume
            }
        }
        return result
    }
}
