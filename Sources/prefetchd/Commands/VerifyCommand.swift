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
            than the job's cache.max_age; with refresh: http, is past the freshness its origin gave
            it (Cache-Control, Expires; cache.max_age where it gave none), or has none recorded (with
            refresh: never a run keeps any cached entry, and so does verify). Logs a line a job on stderr with the counts, of URLs and of unique keys as
            check counts them (the findings count keys: one missing its original or a variant is
            missing once, whatever lines it takes). Reads the cache index and the size of
            each file (one gone or of another size is missing): no network, no writes. Exit 0 when all are cached and fresh, 1 when any is missing or stale, 2 for
            a bad job file, 3 when the folder holds no cache or the cache is unusable.
            """,
        options: [SharedOptions.cache, SharedOptions.logFormat("a verified event a job, errors")],
        examples: ["prefetchd verify jobs/catalog.yaml", "prefetchd verify jobs/catalog.yaml --cache build/cache"],
        execute: execute
    )

    private static func execute(_ arguments: ParsedArguments, _ diagnostics: Diagnostics) throws {
        let jobs = try JobArguments.load(arguments, command: "verify")
        var totals = VerifyTotals()
        for job in jobs {
            let folder = arguments.value("cache").map { MaintenanceTarget.cacheFolder(option: $0) } ?? job.cache.path
            do throws(CacheError) {
                guard let result = try Verifier.verify(job, cachePath: folder, report: { Console.out($0.line + "\n") }) else {
                    return CacheFailure.noCache("verify", at: folder, into: diagnostics)
                }
                if !result.findings.isEmpty { diagnostics.report(.failure) }
                let found = VerifyTotals(result)
                totals = totals + found
                Log.say("prefetchd verify: \(job.name): \(found.line)", or: VerifyTotals.Event(job: job.name, found))
            } catch {
                return CacheFailure.report("verify", cacheAt: folder, error, into: diagnostics)
            }
        }
        diagnostics.summarize(VerifyTotals.Summary(jobs: jobs.map(\.name), totals: totals))
    }
}
