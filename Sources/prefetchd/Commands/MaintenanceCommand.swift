import Foundation
import PrefetchKit

/// What `clean` and `stats` share: which cache and which limits (a job file's `cache:` section,
/// or `--cache DIR`), and their error mapping.
enum MaintenanceCommand {
    struct Target {
        let folder: String
        /// The job's cache settings, when a job file was given.
        let settings: CacheSettings?
    }

    /// `JOB.yaml` (its cache.path unless `--cache` is given), else `--cache DIR`, else
    /// `$PREFETCHD_CACHE_DIR`, else `.prefetchd-cache`.
    static func target(_ arguments: ParsedArguments, command: String) throws -> Target {
        guard arguments.positionals.count <= 1 else {
            throw UsageError("\(command): give at most one job file (usage: prefetchd \(command) [JOB.yaml | --cache DIR])")
        }
        guard let path = arguments.positionals.first else {
            return Target(folder: MaintenanceTarget.cacheFolder(option: arguments.value("cache")), settings: nil)
        }
        let job = try JobFile.load(path: path, environment: ProcessInfo.processInfo.environment)
        let folder = arguments.value("cache").map { MaintenanceTarget.cacheFolder(option: $0) } ?? job.cache.path
        return Target(folder: folder, settings: job.cache)
    }

    /// A `--max-age` / `--max-size` style value, or a usage error naming the option.
    static func value<Value>(_ arguments: ParsedArguments, _ option: String, command: String,
                             _ parse: (String) throws(ValueProblem) -> Value) throws -> Value? {
        guard let text = arguments.value(option) else { return nil }
        do {
            return try parse(text)
        } catch {
            throw UsageError("\(command): --\(option): \(error.message)")
        }
    }

    /// Reports `error` as the environment's (the cache, its lock or the output failed), naming the
    /// cache at `folder` when the error itself does not.
    static func fail(_ command: String, cacheAt folder: String, _ error: MaintenanceError, into diagnostics: Diagnostics) {
        if case .cache(let cause) = error {
            diagnostics.report(.environment, "prefetchd \(command): cache \(folder): \(cause)")
        } else {
            diagnostics.report(.environment, "prefetchd \(command): \(error.description)")
        }
    }
}
