import Foundation
import PrefetchKit
#if canImport(Glibc)
import Glibc
#endif

/// What `clean`, `remove` and `stats` share: which cache and which limits (a job file's `cache:` section,
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

    /// Stopped by a signal, a clean or remove holds the room it let go back again before it exits;
    /// its journal has the next one finish what it began. A dry run changes nothing, so the signals
    /// end it at once (nil). A JSON log still ends with its `summary`, of the stop.
    static func restoringReserveOnStop(_ folder: String, dryRun: Bool, command: String) -> SignalRelay? {
        if dryRun {
            ProcessTuning.releaseStopSignals()
            return nil
        }
        return SignalRelay { number in
            try? SpaceReserve.restore(root: folder)
            Log.summary(command: command, outcome: number == SIGINT ? "interrupted" : "terminated",
                        exitStatus: 128 + number, fields: nil)
            _exit(128 + number)
        }
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
            CacheFailure.report(command, cacheAt: folder, cause, into: diagnostics)
        } else {
            diagnostics.report(.environment, "prefetchd \(command): \(error.description)")
        }
    }
}
