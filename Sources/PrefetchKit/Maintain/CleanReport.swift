import Foundation

/// A count of files or entries and the bytes of file data they hold.
package struct CleanTally: Sendable, Equatable, Encodable {
    package var entries = 0
    package var bytes: Int64 = 0

    mutating func add(_ size: Int64) {
        entries += 1
        bytes += size
    }
}

/// One thing a clean removed, indexed or left alone (a dry run lists what it would do).
package struct CleanItem: Sendable, Equatable {
    package enum Kind: String, Sendable {
        /// Older than max_age.
        case expired
        /// Least recently used while over max_size.
        case trimmed
        /// A temp file older than the longest possible transfer.
        case staleTemp = "stale-temp"
        /// A row whose file an interrupted clean had already removed (listed in its journal).
        case abandonedRemoval = "interrupted-removal"
        /// An index row whose file is gone.
        case missingFile = "missing-file"
        /// A file under a final name without a row: indexed, not deleted (it is whole).
        case orphan
        /// Selected by `prefetchd remove`.
        case removed
    }

    package var kind: Kind
    /// Path relative to the cache folder.
    package var relativePath: String
    package var bytes: Int64
}

/// What one clean did (or, in a dry run, would do).
package struct CleanReport: Sendable, Equatable {
    package var dryRun = false
    package var expired = CleanTally()
    package var trimmed = CleanTally()
    /// Stale temp files.
    package var sweptTemp = CleanTally()
    /// Rows whose file was missing, including those an interrupted clean left (bytes as the row said).
    package var missingFiles = CleanTally()
    /// Files without rows, now indexed.
    package var orphans = CleanTally()
    /// Files the cache did not make, left alone.
    package var foreign = CleanTally()
    /// Fan-out folders (or name prefixes) the orphan sweep visited, of how many.
    package var sweptFolders = 0
    package var totalFolders = 0
    /// Bytes of file data in the index before and after.
    package var bytesBefore: Int64 = 0
    package var bytesAfter: Int64 = 0
    package var duration: TimeInterval = 0

    /// Entries and bytes the expire, trim and sweep steps free.
    package var freed: CleanTally {
        CleanTally(
            entries: expired.entries + trimmed.entries + sweptTemp.entries,
            bytes: expired.bytes + trimmed.bytes + sweptTemp.bytes)
    }

    /// What the index keeps of this clean for `stats`.
    func record(finished: Date) -> CleanRecord {
        CleanRecord(
            finished: finished, duration: duration, removedEntries: freed.entries, freedBytes: freed.bytes,
            expiredEntries: expired.entries, trimmedEntries: trimmed.entries, bytesBefore: bytesBefore,
            bytesAfter: bytesAfter)
    }

    /// The summary lines `prefetchd clean` prints.
    package var summary: String {
        let verb = dryRun ? "would remove" : "removed"
        func line(_ label: String, _ tally: CleanTally) -> String {
            "  \(label.padding(toLength: 22, withPad: " ", startingAt: 0))\(tally.entries) (\(ByteFormat.human(tally.bytes)))"
        }
        return """
            clean\(dryRun ? " (dry run, nothing changed)" : ""): \(verb) \(counted(freed.entries, "file")), \(ByteFormat.human(freed.bytes)) \
            in \(String(format: "%.2f", duration)) s; cache \(ByteFormat.human(bytesBefore)) -> \(ByteFormat.human(bytesAfter))
            \(line("expired", expired))
            \(line("trimmed", trimmed))
            \(line("swept temp files", sweptTemp))
            \(line("rows without files", missingFiles))
            \(line("orphans indexed", orphans))
            \(line("foreign, left alone", foreign))
              orphan sweep          \(sweptFolders) of \(totalFolders) folders

            """
    }
}
