/// The uses of entries (their last-access times) recorded and not yet written, by relative path, behind
/// a lock of their own rather than the connection's: recording a use never waits for a write under
/// way. The next commit of the connection writes them all (`take`).
final class IndexPendingUses: Sendable {
    private struct State {
        var times: [String: Double] = [:]
        /// A write of the uses is queued beside the thread recording them and has not ended yet.
        var writeQueued = false
        /// Why the last write beside failed, for the next `record` to throw.
        var failure: CacheError?
    }

    /// What the caller of `record` does next.
    enum Next {
        /// Nothing: the uses wait for a commit.
        case wait
        /// Queue a write beside: `due` uses wait, and none is queued.
        case writeBeside
        /// Write them now, on this thread: twice `due` wait, the write queued beside has not kept up.
        case writeHere
    }

    private let state = Locked(State())
    /// How many uses wait before a write is asked for.
    let due: Int

    init(due: Int) {
        self.due = due
    }

    /// Records a use of the entry at `relativePath` at `time` (seconds since 1970), the latest kept;
    /// throws the failure of a write beside since the last call.
    func record(_ relativePath: String, at time: Double) throws(CacheError) -> Next {
        try state.withLock { state throws(CacheError) -> Next in
            if let failure = state.failure {
                state.failure = nil
                throw failure
            }
            state.times[relativePath] = max(state.times[relativePath] ?? time, time)
            if state.times.count >= 2 * due { return .writeHere }
            guard state.times.count >= due, !state.writeQueued else { return .wait }
            state.writeQueued = true
            return .writeBeside
        }
    }

    /// Every use recorded, taken to be written; a queued write that comes after finds none.
    func take() -> [String: Double] {
        state.withLock { state in
            defer { state.times.removeAll(keepingCapacity: true) }
            return state.times
        }
    }

    /// Uses taken whose write failed, recorded again (the later time kept where one came since).
    func putBack(_ times: [String: Double]) {
        state.withLock { state in
            state.times.merge(times) { max($0, $1) }
        }
    }

    /// The queued write is done; `failure` is why it failed, if it did.
    func writeEnded(failure: CacheError?) {
        state.withLock { state in
            state.writeQueued = false
            if let failure { state.failure = failure }
        }
    }

    /// Drops every use not yet written.
    func drop() {
        state.withLock { $0.times.removeAll() }
    }
}
