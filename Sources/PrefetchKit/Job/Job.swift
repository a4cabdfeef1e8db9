/// A loaded, validated job file.
public struct Job: Sendable, Equatable {
    /// `name:`, or the job file's name without folder and extension.
    public var name: String
    /// The job file's path, as it was given.
    public var path: String
    public var cache: CacheSettings
    public var network: NetworkSettings
    /// The sets in file order; never empty, names unique.
    public var sets: [JobSet]

    /// Every URL occurrence across all sets.
    public var urlCount: Int { sets.reduce(0) { $0 + $1.urls.count } }

    /// What `prefetchd check` prints for this job.
    public var summary: JobSummary {
        JobSummary(path: path, name: name, setCount: sets.count, urlCount: urlCount, cachePath: cache.path)
    }
}

/// One named set of URLs with its effective options.
public struct JobSet: Sendable, Equatable {
    public var name: String
    public var priority: Priority
    /// Defaults merged with this set's overrides.
    public var options: JobOptions
    /// The set's URLs, streamed; `urls.count` is known without iterating.
    public var urls: URLSource
}

/// The result of checking a job file.
public struct JobSummary: Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var name: String
    public var setCount: Int
    public var urlCount: Int
    public var cachePath: String

    /// `FILE: ok — N sets, M URLs, cache DIR`
    public var description: String {
        "\(path): ok — \(counted(setCount, "set")), \(counted(urlCount, "URL")), cache \(cachePath)"
    }
}
