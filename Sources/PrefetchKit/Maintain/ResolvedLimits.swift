import Foundation

/// Where a limit that `clean` or `stats` uses came from.
package enum LimitSource: String, Sendable {
    case recorded
    case jobFile = "job file"
    case flag
    case `default`
}

/// What a maintenance command is given besides the cache: a job file's limits and `clean`'s flags.
package struct LimitOverrides: Sendable, Equatable {
    package var jobFile: CacheLimits?
    package var maxAge: TimeInterval?
    package var maxSize: Int64?

    package init(jobFile: CacheLimits? = nil, maxAge: TimeInterval? = nil, maxSize: Int64? = nil) {
        self.jobFile = jobFile
        self.maxAge = maxAge
        self.maxSize = maxSize
    }
}

/// The limits a maintenance command applies, each with where it came from: a flag over the job file
/// given to the command, over the limits the cache's runs recorded, over the defaults.
package struct ResolvedLimits: Sendable, Equatable {
    package private(set) var limits: CacheLimits
    private var sources: [CacheLimits.Field: LimitSource]

    package init(recorded: CacheLimits?, overrides: LimitOverrides = LimitOverrides()) {
        limits = .defaults
        sources = [:]
        for (given, source) in [(recorded, LimitSource.recorded), (overrides.jobFile, .jobFile)] {
            guard let given else { continue }
            limits = given
            for field in CacheLimits.Field.allCases { sources[field] = source }
        }
        if let maxAge = overrides.maxAge {
            limits.maxAge = maxAge
            sources[.maxAge] = .flag
        }
        if let maxSize = overrides.maxSize {
            limits.maxSize = maxSize
            sources[.maxSize] = .flag
        }
    }

    package func source(_ field: CacheLimits.Field) -> LimitSource {
        sources[field] ?? .default
    }

    /// `max_size 1MiB (recorded), max_age 7d (default), ...`: every limit, its value and its source.
    package var summary: String {
        CacheLimits.Field.allCases.map { "\($0.rawValue) \(limits.spelled($0)) (\(source($0).rawValue))" }
            .joined(separator: ", ")
    }
}

extension CleanPolicy {
    /// The default pacing with `limits`.
    package init(limits: CacheLimits) {
        self.init(maxAge: limits.maxAge, expireBy: limits.expireBy, maxSize: limits.maxSize, trimTo: limits.trimTo)
    }
}
