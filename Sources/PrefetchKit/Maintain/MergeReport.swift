/// What one `merge` did (or, dry, would do), for its summary line.
package struct MergeReport: Sendable, Equatable {
    package var dryRun: Bool
    package var sources: Int
    package var destination: String
    /// Entries the destination had no row for.
    package var added = 0
    /// Entries whose source row is newer than the destination's (by `modified_at`, the last fetch).
    package var replaced = 0
    /// Entries the destination already holds with the same or a newer fetch.
    package var skipped = 0
    /// Source rows whose file is missing or of another size than the row says; left out.
    package var unreadable = 0
    /// Variants whose original the destination holds in another body than the one they were made from.
    package var strayVariants = 0
    /// Bytes of the entries added and replaced.
    package var bytes: Int64 = 0
    package var linked = 0
    package var copied = 0
    /// Failure ledger rows and runs taken into the destination.
    package var failures = 0
    package var runs = 0

    package init(dryRun: Bool, sources: Int, destination: String) {
        self.dryRun = dryRun
        self.sources = sources
        self.destination = destination
    }

    /// One line: what was added, replaced and skipped, the bytes, how they got there.
    package var summary: String {
        let would = dryRun ? "would be " : ""
        let caches = counted(sources, "cache")
        return "merge\(dryRun ? " --dry-run" : ""): \(caches) into \(destination): \(added) \(would)added, "
            + "\(replaced) \(would)replaced, \(skipped) skipped (held with the same or a newer fetch), "
            + "\(unreadable) unreadable in their source, \(counted(strayVariants, "variant")) of another body left out; "
            + "\(ByteFormat.human(bytes)), \(linked) \(would)linked, \(copied) \(would)copied; "
            + "\(counted(failures, "failure ledger row")) and \(counted(runs, "run")) \(would)taken"
    }
}
