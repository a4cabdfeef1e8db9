import Foundation
import PrefetchKit

/// `prefetchd verify`: is every URL of the job cached and fresh?
enum VerifyCommand {
    static let spec = CommandSpec(
        name: "verify",
        synopsis: "verify JOB.yaml [JOB.yaml ...] [--cache DIR] [--log-format text|json]",
        summary: "Check that every URL of the jobs is cached and fresh, without network; list the rest.",
        details: """
            Prints `missing URL` or `stale URL` on standard output for each URL that is not cached,
            or, in a set whose refresh is stale or always, was last fetched or revalidated longer ago
            than the job's cache.max_age (with refresh: never a run keeps any cached entry, and so
            does verify). Logs a line a job on stderr with the counts. Reads the cache index only:
            no network, no writes. Exit 0 when all are cached and fresh, 1 when
            any is missing or stale, 2 for a bad job file, 3 when the cache is unusable.
            """,
        options: [SharedOptions.cache, SharedOptions.logFormat("a verified event a job, errors")],
        examples: ["prefetchd verify jobs/catalog.yaml", "prefetchd verify jobs/catalog.yaml --cache build/cache"],
        execute: execute
    )

    private static func execute(_ arguments: ParsedArguments, _ diagnostics: Diagnostics) throws {
        let jobs = try JobArguments.load(arguments, command: "verify")
        var totals = VerifyTotals()
        for job in jobs {
            do {
                let result = try Verifier.verify(job, cachePath: arguments.value("cache")) { finding in
                    Console.out(finding.line + "\n")
                }
                if !result.findings.isEmpty { diagnostics.report(.failure) }
                let found = VerifyTotals(result)
                totals = totals + found
                Log.say("prefetchd verify: \(job.name): \(found.line)", or: VerifyTotals.Event(job: job.name, found))
            } catch {
                diagnostics.report(.environment, "prefetchd verify: cache of \(job.name) is unusable: \(error)")
                return
            }
        }
        diagnostics.summarize(VerifyTotals.Summary(jobs: jobs.map(\.name), totals: totals))
    }
}
