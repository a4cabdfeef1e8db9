/// Uses of entries (their last-access times, the latest of each), by row id where the caller read the
/// row (a run's lookups), else by relative path.
struct PendingUses: Sendable {
    var byRowID: [Int64: Double] = [:]
    var byPath: [String: Double] = [:]

    var count: Int { byRowID.count + byPath.count }

    /// Records a use of the entry at `path` at `time`, the later kept.
    mutating func add(path: String, at time: Double) {
        byPath[path] = max(byPath[path] ?? time, time)
    }

    /// Records a use of the row `rowID` at `time`, the later kept.
    mutating func add(rowID: Int64, at time: Double) {
        byRowID[rowID] = max(byRowID[rowID] ?? time, time)
    }

    /// Adds `other`'s uses, the later time kept where both have one.
    mutating func merge(_ other: PendingUses) {
        byRowID.merge(other.byRowID) { max($0, $1) }
        byPath.merge(other.byPath) { max($0, $1) }
    }
}

/// The uses of entries recorded and not yet written (`PendingUses`), behind a lock of their own rather
/// than the connection's: recording a use never waits for a write under way. The next commit of the
/// connection writes them all (`take`).
final class IndexPendingUses: Sendable {
    private struct State {
        var times = PendingUses()
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
        try record { $0.add(path: relativePath, at: time) }
    }

    /// As `record(_:at:)`, for the row `rowID` as the caller read it.
    func record(rowID: Int64, at time: Double) throws(CacheError) -> Next {
        try record { $0.add(rowID: rowID, at: time) }
    }

    private func record(_ add: (inout PendingUses) -> Void) throws(CacheError) -> Next {
        try state.withLock { state throws(CacheError) -> Next in
            if let failure = state.failure {
                state.failure = nil
                throw failure
            }
            add(&state.times)
            if state.times.count >= 2 * due { return .writeHere }
            guard state.times.count >= due, !state.writeQueued else { return .wait }
            state.writeQueued = true
            return .writeBeside
        }
    }

    /// Every use recorded, taken to be written; a queued write that comes after finds none.
    func take() -> PendingUses {
        state.withLock { state in
            defer {
                state.times.byRowID.removeAll(keepingCapacity: true)
                state.times.byPath.removeAll(keepingCapacity: true)
            }
            return state.times
        }
    }

    /// Uses taken whose write failed, recorded again (the later time kept where one came since).
    func putBack(_ times: PendingUses) {
        state.withLock { state in
            state.times.merge(times)
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
        state.withLock { $0.times = PendingUses() }
    }
}
