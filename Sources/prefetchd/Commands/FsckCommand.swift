/// `prefetchd fsck`: index against files.
enum FsckCommand {
    static let spec = CommandSpec(
        name: "fsck",
        synopsis: "fsck [--cache DIR] [--repair]",
        summary: "Check the index against the files and decode-check every stored file.",
        details: """
            Finds index rows without files, files without rows, size or checksum mismatches, files
            that fail validation and stale temp files. Exit 0 when clean, 1 when problems were found
            (with --repair: fixed).
            """,
        options: [SharedOptions.cache, .flag("repair", "Fix what was found: drop bad rows and files, index orphans, delete stale temps.")],
        examples: ["prefetchd fsck --cache /var/cache/prefetchd", "prefetchd fsck --cache /var/cache/prefetchd --repair"],
        execute: { _ in throw NotAvailable(command: "fsck", engine: "the cache index") }
    )
}
