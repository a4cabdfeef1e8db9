/// `prefetchd check`: validate job files only.
enum CheckCommand {
    static let spec = CommandSpec(
        name: "check",
        synopsis: "check JOB.yaml [JOB.yaml ...]",
        summary: "Validate job files and print a one-line summary of each; no network, no cache writes.",
        details: """
            Reports every problem as FILE:LINE:COLUMN: key.path: what is wrong. Exit 0 when every
            file is valid, 2 otherwise.
            """,
        options: [],
        examples: ["prefetchd check jobs/catalog.yaml", "prefetchd check jobs/*.yaml"],
        execute: { _ in throw NotAvailable(command: "check", engine: "the job file loader") }
    )
}
