/// The version printed by `prefetchd --version` and sent in the User-Agent.
package enum PrefetchVersion {
    package static let string = "0.1.0"

    /// `format_version` in every machine-readable output: the run report, `stats --format json` and
    /// each `--log-format json` event. Raised when a field changes meaning or goes away; new fields
    /// may appear within a version.
    package static let machineFormat = 1
}
