import Foundation

/// A count of files or entries and the bytes of file data they hold.
public struct CleanTally: Sendable, Equatable {
    public var entries = 0
    public var bytes: Int64 = 0

    public init(entries: Int = 0, bytes: Int64 = 0) {
        self.entries = entries
        self.bytes = bytes
    }

    mutating func add(_ size: Int64) {
        entries += 1
        bytes += size
    }
}

/// One thing a clean removed, indexed or left alone (a dry run lists what it would do).
public struct CleanItem: Sendable, Equatable {
    public enum Kind: String, Sendable {
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
    }

    public var kind: Kind
    /// Path relative to the cache folder.
    public var relativePath: String
    public var bytes: Int64
}

/// What one clean did (or, in a dry run, would do).
public struct CleanReport: Sendable, Equatable {
    public var dryRun = false
    public var expired = CleanTally()
    public var trimmed = CleanTally()
    /// Stale temp files.
    public var sweptTemp = CleanTally()
    /// Rows whose file was missing, including those an interrupted clean left (bytes as the row said).
    public var missingFiles = CleanTally()
    /// Files without rows, now indexed.
    public var orphans = CleanTally()
    /// Files the cache did not make, left alone.
    public var foreign = CleanTally()
    /// Fan-out folders (or name prefixes) the orphan sweep visited, of how many.
    public var sweptFolders = 0
    public var totalFolders = 0
    /// Bytes of file data in the index before and after.
    public var bytesBefore: Int64 = 0
    public var bytesAfter: Int64 = 0
    public var duration: TimeInterval = 0

    /// Entries and bytes the expire, trim and sweep steps free.
    public var freed: CleanTally {
        CleanTally(
            entries: expired.entries + trimmed.entries + sweptTemp.entries,
            bytes: expired.bytes + trimmed.bytes + sweptTemp.bytes)
    }

    /// The summary lines `prefetchd clean` prints.
    public var summary: String {
        let verb = dryRun ? "would remove" : "removed"
        func line(_ label: String, _ tally: CleanTally) -> String {
            "  \(label.padding(toLength: 22, withPad: " ", startingAt: 0))\(tally.entries) (\(ByteFormat.human(tally.bytes)))"
        }
        return """
            clean\(dryRun ? " (dry run, nothing changed)" : ""): \(verb) \(freed.entries) files, \(ByteFormat.human(freed.bytes)) \
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
