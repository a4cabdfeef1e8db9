/// `prefetchd verify`: is every URL of the job cached and fresh?
enum VerifyCommand {
    static let spec = CommandSpec(
        name: "verify",
        synopsis: "verify JOB.yaml [JOB.yaml ...]",
        summary: "Check that every URL of the jobs is cached and fresh, without network; list the rest.",
        details: """
            Prints each missing or stale URL on standard output. Exit 0 when all are cached and
            fresh, 1 when any is missing or stale, 2 for a bad job file.
            """,
        options: [SharedOptions.cache],
        examples: ["prefetchd verify jobs/catalog.yaml", "prefetchd verify jobs/catalog.yaml --cache build/cache"],
        execute: { _ in throw NotAvailable(command: "verify", engine: "the cache index") }
    )
}
