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
        JobSummary(path: path, name: name, setCount: sets.count, urlCount: urlCount,
                   keyCount: Set(RunPlan(job: self).lazy.map(\.key)).count, cachePath: cache.path)
    }
}

/// One named set of URLs with its effective options.
package struct JobSet: Sendable, Equatable {
    package var name: String
    package var priority: Priority
    /// Defaults merged with this set's overrides. Read in place (`_read`): a run reads a set's options
    /// for every URL, and a copy of them cost a reference count for each of their headers, lists and
    /// names.
    package var options: JobOptions {
        _read { yield held.options }
        set { held = Held(options: newValue) }
    }
    /// The set's URLs, streamed; `urls.count` is known without iterating.
    package var urls: URLSource
    /// The options, behind one reference: a copy of the set retains that alone.
    private var held: Held

    package init(name: String, priority: Priority, options: JobOptions, urls: URLSource) {
        self.name = name
        self.priority = priority
        self.urls = urls
        held = Held(options: options)
    }

    package static func == (lhs: JobSet, rhs: JobSet) -> Bool {
        lhs.name == rhs.name && lhs.priority == rhs.priority && lhs.options == rhs.options && lhs.urls == rhs.urls
    }

    private final class Held: Sendable {
        let options: JobOptions
        init(options: JobOptions) { self.options = options }
    }
}

/// The result of checking a job file.
package struct JobSummary: Sendable, Equatable, CustomStringConvertible {
    package var path: String
    package var name: String
    package var setCount: Int
    /// URL occurrences, as `verify` counts them.
    package var urlCount: Int
    /// Distinct cache keys among them: what a run transfers at most, and what `verify` checks.
    package var keyCount: Int
    package var cachePath: String

    /// `FILE: ok — N sets, M URLs, K unique keys, cache DIR`
    package var description: String {
        "\(path): ok — \(counted(setCount, "set")), \(counted(urlCount, "URL")), \(counted(keyCount, "unique key")), cache \(cachePath)"
    }
}
