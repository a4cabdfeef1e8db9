import Foundation

/// The `cache:` limits a clean applies (`max_size`, `max_age`, `expire_by`, `trim_to`): what a run
/// records in the cache's index, so that `clean --cache DIR` and `stats --cache DIR` know them without
/// the job file.
package struct CacheLimits: Sendable, Equatable, Codable {
    /// The limits by their job-file keys, in the job file's order.
    package enum Field: String, Sendable, CaseIterable, CodingKey {
        case maxSize = "max_size", maxAge = "max_age", expireBy = "expire_by", trimTo = "trim_to"
    }

    /// Recorded under their job-file keys.
    package typealias CodingKeys = Field

    /// Cap in bytes of file data; 0 = no cap.
    package var maxSize: Int64
    /// Seconds; 0 = never expire.
    package var maxAge: TimeInterval
    package var expireBy: ExpiryClock
    /// Fraction of `maxSize` a trim goes down to.
    package var trimTo: Double

    package init(maxSize: Int64, maxAge: TimeInterval, expireBy: ExpiryClock, trimTo: Double) {
        self.maxSize = maxSize
        self.maxAge = maxAge
        self.expireBy = expireBy
        self.trimTo = trimTo
    }

    package init(_ settings: CacheSettings) {
        self.init(maxSize: settings.maxSize, maxAge: settings.maxAge.seconds, expireBy: settings.expireBy, trimTo: settings.trimTo)
    }

    /// A job file's defaults: what applies where nothing else gives a limit.
    package static let defaults = CacheLimits(CacheSettings(path: ""))

    /// The limits of two jobs sharing a cache, `later` recorded last: the smaller non-zero
    /// `max_size` and `max_age` (0, no limit, is the loosest), the smaller `trim_to`, and the later
    /// job's `expire_by`, so that a clean keeps the cache within every job's limits.
    package func combined(with later: CacheLimits) -> CacheLimits {
        CacheLimits(maxSize: Self.tighter(maxSize, later.maxSize), maxAge: Self.tighter(maxAge, later.maxAge),
                    expireBy: later.expireBy, trimTo: min(trimTo, later.trimTo))
    }

    private static func tighter<Value: Numeric & Comparable>(_ one: Value, _ other: Value) -> Value {
        one == 0 ? other : other == 0 ? one : min(one, other)
    }

    /// The fields in which `other` differs, in job-file order.
    package func differences(from other: CacheLimits) -> [Field] {
        Field.allCases.filter { spelled($0) != other.spelled($0) }
    }

    /// `field`'s value as a job file spells it: `1MiB`, `7d`, `access`, `0.8` (0 for no limit).
    package func spelled(_ field: Field) -> String {
        switch field {
        case .maxSize: Self.spelledSize(maxSize)
        case .maxAge: Self.spelledDuration(maxAge)
        case .expireBy: expireBy.rawValue
        case .trimTo: String(trimTo)
        }
    }

    private static func spelledSize(_ bytes: Int64) -> String {
        let units: [(String, Int64)] = [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)]
        guard let unit = units.first(where: { bytes > 0 && bytes % $0.1 == 0 }) else { return String(bytes) }
        return "\(bytes / unit.1)\(unit.0)"
    }

    private static func spelledDuration(_ seconds: TimeInterval) -> String {
        let milliseconds = Int64((seconds * 1000).rounded())
        let units: [(String, Int64)] = [("d", 86_400_000), ("h", 3_600_000), ("m", 60_000), ("s", 1000)]
        guard let unit = units.first(where: { milliseconds > 0 && milliseconds % $0.1 == 0 }) else {
            return milliseconds == 0 ? "0" : "\(milliseconds)ms"
        }
        return "\(milliseconds / unit.1)\(unit.0)"
    }
}
