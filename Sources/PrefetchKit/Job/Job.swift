/// A loaded, validated job file.
package struct Job: Sendable, Equatable {
    /// `name:`, or the job file's name without folder and extension.
    package var name: String
    /// The job file's path, as it was given.
    package var path: String
    package var cache: CacheSettings
    package var network: NetworkSettings
    /// The sets in file order; never empty, names unique.
    package var sets: [JobSet]
    /// The options of `defaults:` over the built-in ones: what a URL no set lists is keyed and shown by.
    package var defaults = JobOptions()
    /// `hosts:`, in file order.
    package var hosts: [HostSettings] = []

    /// The `hosts:` rate limits as the engine applies them.
    package var hostRateRules: HostRateRules {
        HostRateRules(hosts.map { ($0.pattern, $0.rateLimit) })
    }

    /// Every URL occurrence across all sets.
    package var urlCount: Int { sets.reduce(0) { $0 + $1.urls.count } }

    /// What `prefetchd check` prints for this job.
    package var summary: JobSummary {
        JobSummary(path: path, name: name, setCount: sets.count, urlCount: urlCount, cachePath: cache.path)
    }
}

/// One named set of URLs with its effective options.
package struct JobSet: Sendable, Equatable {
    package var name: String
    package var priority: Priority
    /// Defaults merged with this set's overrides.
    package var options: JobOptions
    /// The set's URLs, streamed; `urls.count` is known without iterating.
    package var urls: URLSource
}

/// The result of checking a job file.
package struct JobSummary: Sendable, Equatable, CustomStringConvertible {
    package var path: String
    package var name: String
    package var setCount: Int
    package var urlCount: Int
    package var cachePath: String

    /// `FILE: ok — N sets, M URLs, cache DIR`
    package var description: String {
        "\(path): ok — \(counted(setCount, "set")), \(counted(urlCount, "URL")), cache \(cachePath)"
    }
}
