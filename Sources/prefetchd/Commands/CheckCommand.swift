import Foundation
import PrefetchKit

/// `prefetchd check`: validate job files only.
enum CheckCommand {
    static let spec = CommandSpec(
        name: "check",
        synopsis: "check JOB.yaml [JOB.yaml ...]",
        summary: "Validate job files and print a one-line summary of each; no network, no cache writes.",
        details: """
            Prints FILE: ok — N sets, M URLs, K unique keys, cache DIR for each valid file on
            standard output (URL occurrences, and the distinct cache keys among them), and
            every problem of the others as FILE:LINE:COLUMN: key.path: what is wrong on standard
            error. Exit 0 when every file is valid, 2 otherwise.
            """,
        options: [],
        examples: ["prefetchd check jobs/catalog.yaml", "prefetchd check jobs/*.yaml"],
        execute: execute
    )

    private static func execute(_ arguments: ParsedArguments, _ diagnostics: Diagnostics) throws {
        guard !arguments.positionals.isEmpty else {
            throw UsageError("check: no job file given (usage: prefetchd check JOB.yaml [JOB.yaml ...])")
        }
        for path in arguments.positionals {
            do {
                let summary = try JobFile.check(path: path, environment: ProcessInfo.processInfo.environment)
                Console.out("\(summary)\n")
            } catch {
                diagnostics.report(.usage, "\(error)")
            }
        }
    }
}
