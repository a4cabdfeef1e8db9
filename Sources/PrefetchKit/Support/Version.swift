/// The version printed by `prefetchd --version` and sent in the User-Agent.
package enum PrefetchVersion {
    package static let string = "0.1.0"
}
