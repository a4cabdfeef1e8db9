/// Why a run could not be carried out at all (as opposed to items that failed).
package enum RunError: Error, CustomStringConvertible {
    /// A job file is invalid: nothing was fetched (exit 2).
    case jobFile(JobFileError)
    /// The cache cannot be used (exit 3).
    case cache(path: String, CacheError)
    /// The download engine could not start (exit 3).
    case engine(FetchError)
    /// A report file could not be written (exit 3).
    case output(path: String, message: String)
    /// The open-file limit, even raised to its hard limit, leaves no room for one transfer (exit 3).
    case openFiles(limit: Int, needed: Int)
    /// `--report` or `--junit` names one of a job's cache's own places (`CacheOwnedPath`), where it would
    /// replace the index or a cached body (exit 2, nothing fetched).
    case outputInsideCache(String)

    package var description: String {
        switch self {
        case .jobFile(let error): "\(error)"
        case .cache(let path, let error) where error.isDiskFull:
            "cache \(path) is unusable: \(error) `prefetchd clean` frees space on a full disk."
        case .cache(let path, let error): "cache \(path) is unusable: \(error)"
        case .engine(let error): "the download engine could not start: \(error)"
        // Standard output's failure says it itself, in the words every command uses.
        case .output("-", let message): message
        case .output(let path, let message): "cannot write \(path): \(message)"
        case .openFiles(let limit, let needed):
            "the open-file limit (ulimit -n) is \(limit); a run needs at least \(needed)"
        case .outputInsideCache(let refusal): refusal
        }
    }
}
