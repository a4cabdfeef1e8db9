#if canImport(Glibc)
internal import Glibc
#endif

/// What a command found wrong, said on standard error as it is found and counted by kind; the exit
/// status follows from the counts alone (swift-format's `DiagnosticsEngine`), never from a command.
package final class Diagnostics {
    /// What went wrong, from the least to the most serious for the exit status.
    package enum Kind: Int, Comparable {
        /// Finished, but something failed: an item, a missing entry, an fsck problem (exit 1).
        case failure
        /// A usage or job-file error: nothing fetched, nothing changed (exit 2).
        case usage
        /// The environment failed: the cache unusable, the disk full, a lock held too long, an output
        /// that could not be written (exit 3).
        case environment

        package static func < (lhs: Kind, rhs: Kind) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    private var worst: Kind?
    private var signal: Int32?
    /// What the command's closing `summary` event reports besides the exit status (`summarize`).
    package private(set) var summaryFields: (any Encodable & Sendable)?
    package private(set) var outcome: String?

    package init() {}

    /// Logs `message` as an error (newline added) when given, and counts one of `kind`.
    package func report(_ kind: Kind, _ message: String? = nil) {
        if let message { Log.message(.error, message) }
        worst = max(worst ?? kind, kind)
    }

    /// What the work came to, for the JSON log's `summary`: its totals and the like in `fields`, and
    /// how it ended (`completed`, `interrupted`, ...).
    package func summarize(_ fields: some Encodable & Sendable, outcome: String = "completed") {
        summaryFields = fields
        self.outcome = outcome
    }

    /// The command's closing `summary` event (JSON log only), with the exit status the counts give.
    /// A command that never summarized its work ended in `error` (a usage or environment error
    /// stopped it), or in the signal that stopped it.
    package func writeSummary(command: String) {
        let status = exitStatus
        let ended = outcome ?? {
            switch status {
            case .interrupted: "interrupted"
            case .terminated, .hungUp: "terminated"
            case .success, .failures: "completed"
            case .usage, .environment: "error"
            }
        }()
        Log.summary(command: command, outcome: ended, exitStatus: status.rawValue, fields: summaryFields)
    }

    /// The command stopped for SIGINT, SIGTERM or SIGHUP after cleaning up.
    package func stopped(by signal: Int32) {
        self.signal = signal
    }

    /// An environment error outranks a stop (the report a stopped run owes was not written); a stop
    /// outranks what the stopped work found.
    package var exitStatus: ExitStatus {
        if worst == .environment { return .environment }
        switch signal {
        case SIGINT: return .interrupted
        case SIGTERM: return .terminated
        case SIGHUP: return .hungUp
        default: break
        }
        switch worst {
        case nil: return .success
        case .failure: return .failures
        case .usage: return .usage
        case .environment: return .environment
        }
    }
}
