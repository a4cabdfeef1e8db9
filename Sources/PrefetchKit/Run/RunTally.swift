/// How one key ended in this run, remembered so later occurrences of it (other sets) are told.
enum KeyOutcome: Sendable {
    case succeeded
    case failed(RunFailure)
    case skipped
}

/// Per-set counts, for the JUnit report and the per-set summary.
public struct SetTally: Sendable, Equatable {
    public var name: String
    public var requested = 0
    public var succeeded = 0
    public var failed = 0
    public var skipped = 0
    /// The first failures of this set (at most `SetTally.failureLimit`).
    public var failures: [RunFailure] = []

    static let failureLimit = 100

    mutating func apply(_ outcome: KeyOutcome) {
        switch outcome {
        case .succeeded: succeeded += 1
        case .skipped: skipped += 1
        case .failed(let failure):
            failed += 1
            if failures.count < Self.failureLimit { failures.append(failure) }
        }
    }
}

/// The mutable state of a run, owned by the prefetcher behind one Mutex: totals, the keys in flight
/// with the sets waiting on each (one transfer, every set told), and the per-set counts.
struct RunTally: Sendable {
    var totals = RunTotals()
    var failures: [RunFailure] = []
    var sets: [SetTally]
    /// Key in flight -> the further sets that asked for it while it was.
    var inFlight: [String: [Int]] = [:]
    /// Fetch id -> (url, set) for the event log.
    var transfers: [FetchID: (url: String, set: String)] = [:]
    let failureLimit: Int

    init(setNames: [String], failureLimit: Int) {
        sets = setNames.map { SetTally(name: $0) }
        self.failureLimit = failureLimit
    }

    /// Settles a key: totals once, every waiting set once.
    mutating func settle(key: String, firstSet: Int, outcome: KeyOutcome) {
        let waiting = inFlight.removeValue(forKey: key) ?? []
        for set in [firstSet] + waiting {
            sets[set].apply(outcome)
        }
        if case .failed(let failure) = outcome {
            totals.failed += 1
            if failures.count < failureLimit { failures.append(failure) }
        }
    }
}
