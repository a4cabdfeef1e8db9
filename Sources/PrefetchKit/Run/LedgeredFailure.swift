import Foundation

extension RunFailure {
    /// A key the failure ledger kept this run from trying: it failed for good in an earlier run and is
    /// not due again yet. No attempt was made in this run.
    static func ledgered(url: String, set: String, record: FailureRecord) -> RunFailure {
        let due = record.nextRetryAt.map(Timestamp.iso8601)
        let status = record.httpStatus.map { " (HTTP \($0))" } ?? ""
        return RunFailure(
            url: url, set: set, reason: record.reason, httpStatus: record.httpStatus, attempts: 0,
            message: "failed as \(record.reason)\(status) at \(Timestamp.iso8601(record.lastErrorAt)); the failure ledger "
                + "keeps it from being tried again\(due.map { " before \($0)" } ?? "") (retry_failed: true tries it now)",
            ledgered: true, nextRetry: due)
    }
}
