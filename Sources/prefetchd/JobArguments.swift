import Foundation
import PrefetchKit

/// Loads the job files named on the command line; any invalid one is a job-file error (exit 2).
enum JobArguments {
    static func load(_ arguments: ParsedArguments, command: String) throws -> [Job] {
        guard !arguments.positionals.isEmpty else {
            throw UsageError("\(command): no job file given (usage: prefetchd \(command) JOB.yaml [JOB.yaml ...])")
        }
        return try JobFile.loadAll(paths: arguments.positionals, environment: ProcessInfo.processInfo.environment)
    }
}
