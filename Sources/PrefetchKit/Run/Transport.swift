/// What the scheduler needs of a fetch engine: the seam where scheduler tests put a transport of
/// their own, so coalescing, ordering and ledger decisions are tested without a network.
protocol Transport: Sendable {
    /// Queues a request; `completion` runs once, off the calling thread, with its result. `register`
    /// is given the request's id before its first event.
    @discardableResult
    func submit(_ request: FetchRequest, register: (FetchID) -> Void,
                completion: @escaping @Sendable (FetchResult) -> Void) -> FetchID
    /// Stops every request submitted so far; each completes with `cancelled`.
    func cancelAll()
    /// Stops every request of one group (`FetchRequest.group`, a job of the run) submitted so far.
    func cancel(group: Int)
    /// How long requests of `group` (nil: any) were held by rate limits so far.
    func rateWait(group: Int?) -> Duration
    /// Fails everything left and returns once every completion has run.
    func shutdown()
}

extension FetchEngine: Transport {}
