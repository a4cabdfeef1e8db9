/// How one key ended in this run, remembered so later occurrences of it (other sets) are told.
enum KeyOutcome: Sendable {
    case succeeded
    case failed(RunFailure)
    case skipped
}

/// Per-set counts, for the JUnit report and the per-set summary.
package struct SetTally: Sendable, Equatable {
    package var name: String
    package var requested = 0
    package var succeeded = 0
    package var failed = 0
    package var skipped = 0
    /// The first failures of this set (at most `SetTally.failureLimit`).
    package var failures: [RunFailure] = []

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
