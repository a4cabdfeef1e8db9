import PrefetchKit

/// `prefetchd merge`: fold other caches (a fleet's shard caches) into one.
enum MergeCommand {
    static let spec = CommandSpec(
        name: "merge",
        synopsis: "merge SRC [SRC ...] --into DST [--dry-run] [--copy]",
        summary: "Fold other caches (shard caches) into one: entries, failure ledgers, run histories.",
        details: """
            Every entry of every SRC cache goes into DST: hard-linked when on the same file system,
            copied otherwise (or with --copy), each put under its final name whole and its index row
            written after it, as every store is. A key both hold goes to the newer fetch (the last
            fetch or revalidation the index records); a tie keeps DST's, so a rerun after a kill
            takes only what is still missing; a source's body that would replace DST's is taken
            only if it hashes to its row's checksum. Freshness records (refresh: http) come with their
            entries, variants with the original they were made from; partial bodies stay behind.
            Failure ledger rows (the newer error wins) and runs not recorded yet are added. The
            caches must share one layout; DST is made with it when missing. SRC caches are read
            through read-only snapshots and never changed (a linked file is shared, not modified);
            they must not be written while they are merged. DST's clean lock is held throughout (a
            clean or remove started meanwhile waits up to 10 s, then exits 3; a merge waits as long
            for one), and its index writes share the lock every store takes, so a run on DST may go
            on beside it. The last line sums it up.
            Exit 0 when merged, 2 for a command line that cannot be obeyed (caches of different
            layouts, DST among the sources), 3 when a cache is unusable, a SRC holds no cache, or
            the lock is held too long.
            """,
        options: [
            .value("into", "DST", "The cache folder to merge into (made when missing).", default: "none, it must be given"),
            .flag("dry-run", short: "n", "Print one line per entry (would add, would replace, would skip) and the totals; change nothing."),
            .flag("copy", "Copy every file, even where a hard link would do (DST then shares no file data with the sources)."),
        ],
        examples: [
            "prefetchd merge shards/0 shards/1 shards/2 --into /var/cache/prefetchd",
            "prefetchd merge /mnt/shard-*/cache --into merged --dry-run",
            "prefetchd merge old-cache --into /var/cache/prefetchd --copy",
        ],
        execute: execute
    )

    private static func execute(_ arguments: ParsedArguments, _ diagnostics: Diagnostics) throws {
        guard let destination = arguments.value("into"), !destination.isEmpty else {
            throw UsageError("merge: no destination given (usage: prefetchd merge SRC [SRC ...] --into DST)")
        }
        guard !arguments.positionals.isEmpty else {
            throw UsageError("merge: no cache to merge given (usage: prefetchd merge SRC [SRC ...] --into DST)")
        }
        var options = CacheMerger.Options()
        options.dryRun = arguments.has("dry-run")
        options.copy = arguments.has("copy")
        let merger = CacheMerger(sources: arguments.positionals, into: destination, options: options)
        do throws(MergeError) {
            let report = try merger.run { action in
                if options.dryRun { Console.out(line(action)) }
            }
            if options.dryRun { Console.out(report.summary + "\n") } else { Log.text("prefetchd \(report.summary)") }
        } catch {
            guard case .maintenance(let cause, let source) = error else { throw UsageError("merge: \(error)") }
            MaintenanceCommand.fail("merge", cacheAt: source ?? destination, cause, into: diagnostics)
        }
    }

    /// A dry run's line for one entry: `would add 3f/3f2a....jpg 2041 from SRC (link)`.
    private static func line(_ action: CacheMerger.Action) -> String {
        let how = action.linked ? "link" : "copy"
        switch action.kind {
        case .add, .replace:
            return "would \(action.kind.rawValue) \(action.relativePath) \(action.bytes) from \(action.source) (\(how))\n"
        case .skip:
            return "would skip \(action.relativePath) \(action.bytes) from \(action.source) (held with the same or a newer fetch)\n"
        case .unreadable:
            return "would skip \(action.relativePath) \(action.bytes) from \(action.source) (its file is missing, of another size, or not what its row says)\n"
        case .strayVariant:
            return "would skip \(action.relativePath) \(action.bytes) from \(action.source) (a variant of a body the destination does not hold)\n"
        }
    }
}
