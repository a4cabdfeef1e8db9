
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
        /// Keys fetched and stored since the index's last flush that the run saw succeed, with what
        /// `revoke` needs should the index lose their rows; tagged with the flush generation.
        var stored: [String: Stored] = [:]
        var generation = 0
    }

    private struct Stored {
        let url: String
        let sets: [Int]
        let bytes: Int64
        let generation: Int
    }

    private let state: Locked<State>

    /// `settledCost` bounds the memory of settled keys: each costs its key's bytes plus a node.
    /// `expectedKeys` (the URLs the run asks for) sizes that memory once, up to the most it holds.
    init(setNames: [String], failureLimit: Int, settledCost: Int = 2 << 20, expectedKeys: Int = 0) {
        let settled = RecencyCache<String, KeyOutcome>(
            totalCostLimit: settledCost, capacity: min(expectedKeys, settledCost / Self.nodeCost))
        state = Locked(State(tally: RunTally(setNames: setNames, failureLimit: failureLimit), settled: settled))
    }

    /// What a settled key costs the board's memory beside its key's bytes.
    private static let nodeCost = 64

    /// Counts one occurrence of `key` for `set`. A key in flight makes the set wait on it; a settled
    /// key tells the set its outcome; any other key is claimed for the caller.
    func ask(_ key: String, set: Int) -> Answer {
        state.withLock { state in
            state.tally.totals.requested += 1
            state.tally.sets[set].requested += 1
            state.tally.sets[set].noteAsked(at: .now)
            if state.inFlight[key] != nil {
                state.inFlight[key]!.append(set)
                return .told
            }
            if let outcome = state.settled.value(forKey: key) {
                state.tally.sets[set].apply(outcome)
                return .told
            }
            state.inFlight[key] = []
            return .claimed(KeyClaim(key: key, set: set, settledWereForgotten: state.settled.evictions > 0,
                                     settledUses: state.settled.used))
        }
    }

    /// Ends a claim with this run's result for its key: counted once in the totals, told to every set
    /// that asked, and remembered for later occurrences.
    func settle(_ claim: KeyClaim, _ result: KeyResult) {
        state.withLock { _ = settle(claim, result, in: &$0) }
    }

    /// `settle` inside the lock; returns the sets told.
    private func settle(_ claim: KeyClaim, _ result: KeyResult, in state: inout State) -> [Int] {
        state.tally.totals.unique += 1
        state.tally.totals[keyPath: result.count] += 1
        if case .fetched(let bytes) = result { state.tally.totals.bytes += bytes }
        let outcome = result.outcome
        let told = tell(claim, outcome, in: &state)
        if let failure = outcome.failure, state.tally.failures.count < state.tally.failureLimit {
            state.tally.failures.append(failure)
        }
        state.settled.setValue(outcome, forKey: claim.key, cost: claim.key.utf8.count + Self.nodeCost)
        return told
    }

    /// Settles a claim whose body was stored under its final name (`settle(_:.fetched)`), and keeps
    /// what `revoke` needs until a flush of the index is seen to have recorded it. `warnings` are
    /// the benign decoder warnings of the body, counted by kind.
    func settleStored(_ claim: KeyClaim, bytes: Int64, url: String, warnings: [String] = []) {
        state.withLock { state in
            for kind in warnings { state.tally.warnings[kind, default: 0] += 1 }
            let sets = settle(claim, .fetched(bytes: bytes), in: &state)
            state.stored[claim.key] = Stored(url: url, sets: sets, bytes: bytes, generation: state.generation)
        }
    }

    /// Before a flush of the index: the generation every store settled so far belongs to.
    func markStored() -> Int {
        state.withLock { state in
            state.generation += 1
            return state.generation - 1
        }
    }

    /// After that flush succeeded: the stores up to `generation` are recorded for good.
    func forgetStored(through generation: Int) {
        state.withLock { $0.stored = $0.stored.filter { $0.value.generation > generation } }
    }

    /// Turns keys counted as fetched into failures, for every set that was told: their bodies were
    /// removed because the index could not record them. Returns the failures it made.
    func revoke(_ keys: [String], failure: (_ url: String, _ set: Int) -> RunFailure) -> [RunFailure] {
        state.withLock { state in
            var revoked: [RunFailure] = []
            for key in keys {
                guard let stored = state.stored.removeValue(forKey: key) else { continue }
                let failed = failure(stored.url, stored.sets[0])
                state.tally.totals.fetched -= 1
                state.tally.totals.failed += 1
                state.tally.totals.bytes -= stored.bytes
                if state.tally.failures.count < state.tally.failureLimit { state.tally.failures.append(failed) }
                for set in stored.sets {
                    state.tally.sets[set].succeeded -= 1
                    state.tally.sets[set].apply(.failed(failed))
                }
                state.settled.setValue(.failed(failed), forKey: key, cost: key.utf8.count + Self.nodeCost)
                revoked.append(failed)
            }
            return revoked
        }
    }

    /// Turns a success `set` was told into `failure`: its own variants of a key another set decided
    /// could not be made.
    func failLater(set: Int, _ failure: RunFailure) {
        state.withLock { state in
            state.tally.totals.failed += 1
            if state.tally.failures.count < state.tally.failureLimit { state.tally.failures.append(failure) }
            state.tally.sets[set].succeeded -= 1
            state.tally.sets[set].apply(.failed(failure))
        }
    }

    /// Ends a claim on a key this run settled before and has forgotten: its sets are told, nothing is
    /// counted again.
    func settleRepeat(_ claim: KeyClaim, _ outcome: KeyOutcome) {
        state.withLock { _ = tell(claim, outcome, in: &$0) }
    }

    /// A copy of the counts.
    var tally: RunTally { state.withLock { $0.tally } }

    /// Keys claimed and not settled yet.
    var inFlightCount: Int { state.withLock { $0.inFlight.count } }

    /// The uses of the settled keys' memory so far (each settle, each occurrence told a settled
    /// outcome), for `rememberedEverySettle(since:before:)`.
    var settledUses: SettledUses { state.withLock { $0.settled.used } }

    /// Whether every key settled after the uses were `mark` was still remembered when `claim` was made:
    /// then a key this run settled since `mark` is told by `ask`, never claimed again.
    func rememberedEverySettle(since mark: SettledUses, before claim: KeyClaim) -> Bool {
        state.withLock { $0.settled.keptEverythingUsed(from: mark, to: claim.settledUses) }
    }

    typealias SettledUses = RecencyCache<String, KeyOutcome>.UseMark

    /// Tells the claim's set and every set waiting on it; returns them.
    private func tell(_ claim: KeyClaim, _ outcome: KeyOutcome, in state: inout State) -> [Int] {
        let sets = [claim.set] + (state.inFlight.removeValue(forKey: claim.key) ?? [])
        for set in sets {
            state.tally.sets[set].apply(outcome)
        }
        return sets
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
    /// The uses of the settled keys' memory when the key was claimed (`RunBoard.rememberedEverySettle`).
    let settledUses: RunBoard.SettledUses

    fileprivate init(key: String, set: Int, settledWereForgotten: Bool, settledUses: RunBoard.SettledUses) {
        self.key = key
        self.set = set
        self.settledWereForgotten = settledWereForgotten
        self.settledUses = settledUses
    }
}

/// How this run ended a key, with the total it counts in.
enum KeyResult: Sendable {
    case fetched(bytes: Int64)
    case cached
    case revalidated
    case skipped
    case failed(RunFailure)
    /// Not tried: the failure ledger holds a failure of it not due again yet.
    case ledgered(RunFailure)

    var outcome: KeyOutcome {
        switch self {
        case .fetched, .cached, .revalidated: .succeeded
        case .skipped: .skipped
        case .failed(let failure): .failed(failure)
        case .ledgered(let failure): .ledgered(failure)
        }
    }

    var count: WritableKeyPath<RunTotals, Int> {
        switch self {
        case .fetched: \.fetched
        case .cached: \.cached
        case .revalidated: \.revalidated
        case .skipped: \.skipped
        case .failed: \.failed
        case .ledgered: \.ledgered
        }
    }
}
