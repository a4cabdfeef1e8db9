import Synchronization

/// The scheduling state of one run, behind one lock: the counts, the keys in flight with the sets
/// waiting on each, and the outcomes of settled keys (cost-bounded) for later occurrences.
///
/// Coalescing is structural, as in groupcache's `singleflight`: `ask` checks and claims a key in one
/// locked step, so a key has at most one claim, and every occurrence asked while it is held waits on
/// it. The holder settles the claim once; that tells every waiting set.
final class RunBoard: Sendable {
    /// What `ask` decided for one URL occurrence.
    enum Answer: Sendable {
        /// The key is in flight or settled: the set has been (or will be) told; nothing to do.
        case told
        /// The key is the caller's to decide; the set waits on the claim.
        case claimed(KeyClaim)
    }

    private struct State {
        var tally: RunTally
        /// Key in flight -> the further sets that asked for it while it was.
        var inFlight: [String: [Int]] = [:]
        var settled: RecencyCache<String, KeyOutcome>
    }

    private let state: Mutex<State>

    /// `settledCost` bounds the memory of settled keys: each costs its key's bytes plus a node.
    init(setNames: [String], failureLimit: Int, settledCost: Int = 2 << 20) {
        state = Mutex(State(tally: RunTally(setNames: setNames, failureLimit: failureLimit),
                            settled: RecencyCache(totalCostLimit: settledCost)))
    }

    /// Counts one occurrence of `key` for `set`. A key in flight makes the set wait on it; a settled
    /// key tells the set its outcome; any other key is claimed for the caller.
    func ask(_ key: String, set: Int) -> Answer {
        state.withLock { state in
            state.tally.totals.requested += 1
            state.tally.sets[set].requested += 1
            if state.inFlight[key] != nil {
                state.inFlight[key]!.append(set)
                return .told
            }
            if let outcome = state.settled.value(forKey: key) {
                state.tally.sets[set].apply(outcome)
                return .told
            }
            state.inFlight[key] = []
            return .claimed(KeyClaim(key: key, set: set, settledWereForgotten: state.settled.hasEvicted))
        }
    }

    /// Ends a claim with this run's result for its key: counted once in the totals, told to every set
    /// that asked, and remembered for later occurrences.
    func settle(_ claim: KeyClaim, _ result: KeyResult) {
        state.withLock { state in
            state.tally.totals.unique += 1
            state.tally.totals[keyPath: result.count] += 1
            if case .fetched(let bytes) = result { state.tally.totals.bytes += bytes }
            let outcome = result.outcome
            tell(claim, outcome, in: &state)
            if case .failed(let failure) = outcome, state.tally.failures.count < state.tally.failureLimit {
                state.tally.failures.append(failure)
            }
            state.settled.setValue(outcome, forKey: claim.key, cost: claim.key.utf8.count + 64)
        }
    }

    /// Ends a claim on a key this run settled before and has forgotten: its sets are told, nothing is
    /// counted again.
    func settleRepeat(_ claim: KeyClaim, _ outcome: KeyOutcome) {
        state.withLock { tell(claim, outcome, in: &$0) }
    }

    /// A copy of the counts.
    var tally: RunTally { state.withLock { $0.tally } }

    private func tell(_ claim: KeyClaim, _ outcome: KeyOutcome, in state: inout State) {
        let waiting = state.inFlight.removeValue(forKey: claim.key) ?? []
        for set in [claim.set] + waiting {
            state.tally.sets[set].apply(outcome)
        }
    }
}

/// A key `RunBoard.ask` handed to its caller to decide; settled once with `settle` or `settleRepeat`.
struct KeyClaim: Sendable {
    let key: String
    /// The set whose occurrence claimed the key.
    let set: Int
    /// True once the board has forgotten settled keys to stay within its cost: a row or ledger entry
    /// written since the run started may then be this run's own work on this key.
    let settledWereForgotten: Bool

    fileprivate init(key: String, set: Int, settledWereForgotten: Bool) {
        self.key = key
        self.set = set
        self.settledWereForgotten = settledWereForgotten
    }
}

/// How this run ended a key, with the total it counts in.
enum KeyResult: Sendable {
    case fetched(bytes: Int64)
    case cached
    case revalidated
    case skipped
    case failed(RunFailure)

    var outcome: KeyOutcome {
        switch self {
        case .fetched, .cached, .revalidated: .succeeded
        case .skipped: .skipped
        case .failed(let failure): .failed(failure)
        }
    }

    var count: WritableKeyPath<RunTotals, Int> {
        switch self {
        case .fetched: \.fetched
        case .cached: \.cached
        case .revalidated: \.revalidated
        case .skipped: \.skipped
        case .failed: \.failed
        }
    }
}
