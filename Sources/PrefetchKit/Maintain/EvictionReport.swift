import Foundation

/// What one `prefetchd remove` did (or, in a dry run, would do).
package struct EvictionReport: Sendable, Equatable {
    package var dryRun = false
    /// The entries selected, with their bytes of file data.
    package var removed = CleanTally()
    /// Failure-ledger lines of the selected URLs.
    package var ledgerLines = 0
    /// Rows an interrupted clean or remove had left without files, dropped first.
    package var interrupted = CleanTally()

    /// Whether the selection matched anything.
    package var matched: Bool { removed.entries > 0 || ledgerLines > 0 }

    /// The line `prefetchd remove` prints.
    package var summary: String {
        "remove\(dryRun ? " (dry run, nothing changed): would remove" : ": removed") \(counted(removed.entries, "entry", plural: "entries")), "
            + "\(ByteFormat.human(removed.bytes)) (\(removed.bytes) bytes), \(counted(ledgerLines, "failure-ledger line"))\n"
    }
}
