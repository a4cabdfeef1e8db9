/// How one key ended in this run, remembered so later occurrences of it (other sets) are told.
enum KeyOutcome: Sendable {
    case succeeded
    case failed(RunFailure)
    /// Not tried: the failure ledger holds a failure of it not due again yet.
    case ledgered(RunFailure)
    case skipped

    /// The failure the report lists, for a key that failed or was ledgered.
    var failure: RunFailure? {
        switch self {
        case .failed(let failure), .ledgered(let failure): failure
        case .succeeded, .skipped: nil
        }
    }
}

/// Per-set counts, for the JUnit report and the per-set summary.
package struct SetTally: Sendable, Equatable {
    package var name: String
    package var requested = 0
    package var succeeded = 0
    package var failed = 0
    /// Not tried because the failure ledger holds a failure of them: failures for a CI gate.
    package var ledgered = 0
    package var skipped = 0
    /// The first failures of this set, ledgered ones included (at most `SetTally.failureLimit`).
    package var failures: [RunFailure] = []
    /// When the set's first URL was asked for and when its last outcome was told.
    private(set) var firstAsked: ContinuousClock.Instant?
    private(set) var lastTold: ContinuousClock.Instant?

    static let failureLimit = 100

    init(name: String) {
        self.name = name
    }

    /// Seconds from the set's first URL asked for to its last outcome told; 0 for a set with nothing done.
    package var seconds: Double {
        guard let firstAsked, let lastTold else { return 0 }
        return max(0, (lastTold - firstAsked).seconds)
    }

    /// Failed in this run or ledgered: what makes the set, and the run, fail.
    package var unsuccessful: Int { failed + ledgered }

    mutating func noteAsked(at now: ContinuousClock.Instant) {
        if firstAsked == nil { firstAsked = now }
    }

    mutating func apply(_ outcome: KeyOutcome, at now: ContinuousClock.Instant = .now) {
        lastTold = now
        switch outcome {
        case .succeeded: succeeded += 1
        case .skipped: skipped += 1
        case .failed: failed += 1
        case .ledgered: ledgered += 1
        }
        if let failure = outcome.failure, failures.count < Self.failureLimit { failures.append(failure) }
    }
}

/// The counts of a run, kept by its `RunBoard`: totals, the first failures, and the per-set counts.
struct RunTally: Sendable {
    var totals = RunTotals()
    var failures: [RunFailure] = []
    var sets: [SetTally]
    let failureLimit: Int
    /// Benign decoder warnings of the bodies stored, by kind (the report's `warnings`).
    var warnings: [String: Int] = [:]

    init(setNames: [String], failureLimit: Int) {
        sets = setNames.map { SetTally(name: $0) }
        self.failureLimit = failureLimit
    }
}
